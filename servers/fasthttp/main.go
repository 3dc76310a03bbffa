// Command fasthttp serves the hellobench page with github.com/valyala/fasthttp:
// one RequestHandler that routes on ctx.Path, as fasthttp's own examples do.
// At /json it sends a Message that json.Marshal encodes for each request,
// 27 bytes (fasthttp has no JSON helper). Around it (server.go, prefork.go):
// the guards of servers/internal/fasthttpguard, unless -bare; HTTPS
// (HTTP/1.1) with -tls-cert and -tls-key; fasthttp's prefork with -prefork.
package main

import (
	"encoding/json"
	"time"

	"github.com/valyala/fasthttp"

	"hellobench/page"
	"hellobench/servers/internal/serve"
)

// work is the handler's optional work, -work-cpu and -work-wait (page.Work).
var work page.Work

// route answers the contract at the handler level. fasthttp adds Date,
// Server and Content-Length, and drops the body of a HEAD response.
func route(ctx *fasthttp.RequestCtx) {
	h := hello
	switch string(ctx.Path()) { // the conversion does not allocate here
	case page.Path:
	case page.JSONPath:
		h = helloJSON
	default:
		ctx.Error("Not Found", fasthttp.StatusNotFound)
		return
	}
	if !ctx.IsGet() && !ctx.IsHead() {
		ctx.Error("Method Not Allowed", fasthttp.StatusMethodNotAllowed)
		ctx.Response.Header.Set("Allow", page.Allow) // after Error, which resets headers
		return
	}
	h(ctx)
}

// hello sends the page.
func hello(ctx *fasthttp.RequestCtx) {
	if work.On() {
		work.Do() // blocks only this connection's worker goroutine
	}
	ctx.SetContentType(page.ContentType)
	ctx.SetBody(page.HTML)
}

// helloJSON encodes a new Message for each request with json.Marshal, as
// fasthttp's own example does, and sends its 27 bytes.
func helloJSON(ctx *fasthttp.RequestCtx) {
	b, _ := json.Marshal(page.Message{Message: page.Greeting}) // a struct of one string always encodes
	ctx.SetContentType(page.JSONType)
	ctx.SetBody(b)
}

func newServer(headerTimeout, idleTimeout time.Duration) *fasthttp.Server {
	return &fasthttp.Server{
		Handler: versions(route), // 505 to versions other than 1.0 and 1.1 (server.go)
		Name:    "fasthttp",
		// ReadTimeout runs from a request's first byte to its end, so it
		// bounds slow headers; IdleTimeout bounds the wait for the next one.
		ReadTimeout:    headerTimeout,
		IdleTimeout:    idleTimeout,
		ReadBufferSize: 8 << 10, // holds the whole header section; 431 past it
		// The handler reads no header by name: skip canonicalising them.
		DisableHeaderNamesNormalizing: true,
		ErrorHandler:                  parseError, // server.go
		Logger:                        quiet{},    // no per-request noise
	}
}

func main() {
	f := serve.FastHTTPFlags("fasthttp", ":8081", &work)
	pf := preforkFlag() // prefork.go
	f.Parse()
	run(newServer(f.HeaderTimeout, f.IdleTimeout), f, *pf) // server.go
}
