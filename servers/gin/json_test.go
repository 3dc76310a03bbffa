package main

import (
	"net/http"
	"testing"
	"time"

	"hellobench/page"
	"hellobench/servers/internal/jsontest"
)

// TestJSON serves /json over a connection as main serves it, guarded and
// bare; gin's c.JSON writes json.Marshal's bytes, no newline, and adds a charset.
func TestJSON(t *testing.T) {
	jsontest.Served(t, "gin", string(page.JSON), page.JSONType+"; charset=utf-8", func(bare bool) *http.Server {
		return newServer("", time.Second, time.Second, bare)
	})
}
