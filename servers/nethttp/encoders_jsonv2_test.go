//go:build goexperiment.jsonv2

package main

import (
	jsonv2 "encoding/json/v2"
	"net/http"
	"testing"

	"hellobench/bench/memconn"
	"hellobench/page"
)

// With GOEXPERIMENT=jsonv2 (Go 1.25 and later) this Go has encoding/json/v2,
// and encoding/json itself then runs on v2's implementation: its rows here
// are v1's API on v2's code, beside v2's own MarshalWrite.
var v2Encoders = []encoder{
	{"json-v2-MarshalWrite", func(w http.ResponseWriter, m *page.Message) error { return jsonv2.MarshalWrite(w, m) }},
	{"json-v2-Marshal", marshalled(func(v any) ([]byte, error) { return jsonv2.Marshal(v) })},
}

// BenchmarkEncoderV2 is BenchmarkEncoder's loop with encoding/json/v2,
// and with encoding/json as this experiment builds it.
func BenchmarkEncoderV2(b *testing.B) {
	for _, e := range append(v2Encoders, encoders[:2]...) {
		name := e.name
		if name == "encoding-json-Encoder" || name == "encoding-json-Marshal" {
			name += "-on-v2"
		}
		b.Run(name, func(b *testing.B) {
			memconn.Bench(b, serveEncoder(e), jsonRequest, true)
		})
	}
}
