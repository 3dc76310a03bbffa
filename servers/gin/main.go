// Command gin serves the hellobench page with github.com/gin-gonic/gin in
// release mode, on net/http's server, behind a guard that refuses requests
// whose framing RFC 9112 asks a server to refuse and net/http accepts: a
// listener and a handler around the engine (servers/internal/nethttpguard).
//
// With -bare it serves as gin and net/http do out of the box, without that
// guard.
//
// At /json it answers a page.Message encoded on every request by gin's
// c.JSON (encoding/json's json.Marshal in gin's default build), 27 bytes.
//
// With -tls-cert and -tls-key it serves HTTPS, and HTTP/2 to clients that
// ask by ALPN; with -h2c, HTTP/2 over cleartext too; with -h3, HTTP/3 on the
// same port over UDP. The server around the router, shared by every server
// on net/http with its flags and graceful drain, is servers/internal/serve's.
package main

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"hellobench/page"
	"hellobench/servers/internal/serve"
)

// work is the handler's optional work, -work-cpu and -work-wait (see
// page.Work). Off by default, it costs hello the inlined test of On.
var work page.Work

func hello(c *gin.Context) {
	if work.On() {
		// Waiting blocks only this connection's own goroutine.
		work.Do()
	}
	// Data sets Content-Type and Content-Length; net/http adds Date and
	// drops the body of a HEAD response.
	c.Data(http.StatusOK, page.ContentType, page.HTML)
}

// helloJSON answers GET and HEAD /json with a Message built and encoded
// for each request. c.JSON sets "application/json; charset=utf-8" and
// writes json.Marshal's 27 bytes, no newline; net/http adds Content-Length
// for a body this small written before the handler returns, HEAD's too (it
// counts what was written, then drops it).
func helloJSON(c *gin.Context) {
	c.JSON(http.StatusOK, page.Message{Message: page.Greeting})
}

// newRouter returns the engine.
func newRouter() *gin.Engine {
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()                  // no Logger, no Recovery: nothing per request
	r.HandleMethodNotAllowed = true // 405 with Allow instead of 404
	// Only the paths themselves: no redirect from /hello/world/ or
	// /Hello/World (or /json/, /JSON), answer 404 instead.
	r.RedirectTrailingSlash = false
	r.RedirectFixedPath = false
	r.GET(page.Path, hello)
	r.HEAD(page.Path, hello)
	r.GET(page.JSONPath, helloJSON)
	r.HEAD(page.JSONPath, helloJSON)
	return r
}

func main() {
	f := serve.HTTPFlags("gin", ":8083", "gin on net/http", &work)
	f.Parse()
	serve.HTTP(f, newRouter())
}
