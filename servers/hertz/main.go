// Command hertz serves the hellobench page with github.com/cloudwego/hertz
// on its default transport, netpoll: an epoll event loop of its own that
// reads each connection into netpoll's buffers, not through net.Conn. At
// /json it sends a Message that c.JSON encodes for each request with
// hertz's default encoder, sonic (bytedance/sonic's ConfigStd) on amd64 and
// arm64 and encoding/json elsewhere or with -tags stdjson: 27 bytes.
//
// hertz accepts much that RFC 9112 asks a server to refuse; unless -bare,
// a guard (guard.go) shows hertz only requests a strict parser has checked.
// With -tls-cert and -tls-key it serves HTTPS (HTTP/1.1) on hertz's
// standard transport (server.go): netpoll has no TLS.
package main

import (
	"context"
	"crypto/tls"
	"net"
	"time"

	"github.com/cloudwego/hertz/pkg/app"
	"github.com/cloudwego/hertz/pkg/app/server"
	"github.com/cloudwego/hertz/pkg/common/config"
	"github.com/cloudwego/hertz/pkg/protocol/consts"

	"hellobench/page"
	"hellobench/servers/internal/serve"
)

// work is the handler's optional work, -work-cpu and -work-wait (page.Work).
var work page.Work

func hello(_ context.Context, c *app.RequestContext) {
	if work.On() {
		work.Do() // on netpoll's pool, off the event loop: blocks this connection only
	}
	// hertz adds Content-Length, Date and Server, and drops HEAD's body.
	c.Data(consts.StatusOK, page.ContentType, page.HTML)
}

// helloJSON encodes a new Message for each request with hertz's default
// JSON marshaler, as "application/json; charset=utf-8".
func helloJSON(_ context.Context, c *app.RequestContext) {
	c.JSON(consts.StatusOK, page.Message{Message: page.Greeting})
}

// newHertz returns the server, not yet running, on ln.
func newHertz(ln net.Listener, headerTimeout, idleTimeout time.Duration, bare bool, tlsConfig *tls.Config) *server.Hertz {
	opts := []config.Option{
		server.WithListener(ln),
		server.WithReadTimeout(headerTimeout),
		server.WithIdleTimeout(idleTimeout),
		server.WithMaxHeaderBytes(8 << 10),      // the contract's cap (hertz's: 1 MiB); 431 past it
		server.WithHandleMethodNotAllowed(true), // 405 instead of 404
		server.WithRedirectTrailingSlash(false), // only /hello/world itself
		server.WithDisablePrintRoute(true),
		// Requests in flight get 4 s to finish; the contract allows 5 s.
		server.WithExitWaitTime(4 * time.Second),
	}
	// TLS and the guard (server.go); no Recovery middleware: nothing per request.
	h := server.New(append(opts, options(headerTimeout, bare, tlsConfig)...)...)
	h.Name = "hertz"
	h.GET(page.Path, hello)
	h.HEAD(page.Path, hello)
	h.GET(page.JSONPath, helloJSON)
	h.HEAD(page.JSONPath, helloJSON)
	h.NoMethod(func(_ context.Context, c *app.RequestContext) {
		c.Response.Header.Set("Allow", page.Allow)
	})
	return h
}

func main() {
	f := serve.New("hertz", ":8088", "close a connection whose request headers are not complete within this `duration`")
	f.BareFlag("serve as hertz does out of the box, without this server's guard (for the robustness report)")
	f.TLSFlags("serve HTTPS (HTTP/1.1, on hertz's standard transport: netpoll has no TLS) with the certificate in this PEM `file` (with -tls-key)")
	f.Work(&work)
	f.Parse()
	run(f) // server.go
}
