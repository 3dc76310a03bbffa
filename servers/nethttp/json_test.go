package main

import (
	"net/http"
	"testing"
	"time"

	"hellobench/page"
	"hellobench/servers/internal/jsontest"
)

// TestJSON serves /json over a connection as main serves it, guarded and
// bare; json.Encoder's output ends with a newline.
func TestJSON(t *testing.T) {
	jsontest.Served(t, "nethttp", string(page.JSON)+"\n", page.JSONType, func(bare bool) *http.Server {
		return newServer("", time.Second, time.Second, bare)
	})
}
