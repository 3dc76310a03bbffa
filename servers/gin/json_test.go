package main

import (
	"net/http"
	"testing"
	"time"

	"hellobench/page"
	"hellobench/servers/internal/jsontest"
	"hellobench/servers/internal/serve"
)

// TestJSON serves /json over a connection as main serves it, guarded and
// bare; gin's c.JSON writes json.Marshal's bytes, no newline, and adds a charset.
func TestJSON(t *testing.T) {
	jsontest.Served(t, "gin", string(page.JSON), page.JSONType+"; charset=utf-8", func(bare bool) *http.Server {
		return newServer("", time.Second, time.Second, bare)
	})
}

// newServer is the server main serves, with its flags' values given.
func newServer(addr string, headerTimeout, idleTimeout time.Duration, bare bool) *http.Server {
	f := &serve.Flags{Name: "gin", Addr: addr, HeaderTimeout: headerTimeout, IdleTimeout: idleTimeout, Bare: bare}
	return serve.Server(f, newRouter())
}
