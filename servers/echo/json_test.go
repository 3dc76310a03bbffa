package main

import (
	"net/http"
	"testing"
	"time"

	"hellobench/page"
	"hellobench/servers/internal/jsontest"
)

// TestJSON serves /json over a connection as main serves it, guarded and
// bare; echo's serializer is json.Encoder, whose output ends with a newline.
func TestJSON(t *testing.T) {
	jsontest.Served(t, "echo", string(page.JSON)+"\n", page.JSONType, func(bare bool) *http.Server {
		return newServer("", time.Second, time.Second, bare)
	})
}
