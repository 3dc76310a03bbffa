//go:build !goexperiment.jsonv2

package main

// Without GOEXPERIMENT=jsonv2 there is no encoding/json/v2 to add.
var v2Encoders []encoder
