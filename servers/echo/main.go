// Command echo serves the hellobench page with github.com/labstack/echo/v4
// on net/http's server, behind a guard that refuses requests whose framing
// RFC 9112 asks a server to refuse and net/http accepts: a listener and a
// handler around the router (servers/internal/nethttpguard).
//
// With -bare it serves as echo and net/http do out of the box.
//
// At /json it answers a page.Message encoded on every request by echo's
// c.JSON (its default serializer, json.NewEncoder(w).Encode), 28 bytes with
// the encoder's newline.
//
// With -tls-cert and -tls-key it serves HTTPS, and HTTP/2 to clients that
// ask by ALPN; with -h2c, HTTP/2 over cleartext too; with -h3, HTTP/3 on the
// same port over UDP. The server around the router, shared by every server
// on net/http with its flags and graceful drain, is servers/internal/serve's.
package main

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hellobench/page"
	"hellobench/servers/internal/serve"
)

// work is the handler's optional work, -work-cpu and -work-wait (see
// page.Work). Off by default, it costs hello the inlined test of On.
var work page.Work

func hello(c echo.Context) error {
	if work.On() {
		// Waiting blocks only this connection's own goroutine.
		work.Do()
	}
	// net/http adds Content-Length and Date, and drops the body of a HEAD
	// response. (HTMLBlob would say charset=UTF-8.)
	return c.Blob(http.StatusOK, page.ContentType, page.HTML)
}

// helloJSON answers GET and HEAD /json with a Message built and encoded
// for each request. c.JSON sets "application/json" and encodes with
// json.Encoder, which ends it with a newline: 28 bytes. net/http adds
// Content-Length for a body this small written before the handler returns,
// HEAD's too (it counts what was written, then drops it).
func helloJSON(c echo.Context) error {
	return c.JSON(http.StatusOK, page.Message{Message: page.Greeting})
}

// notAllowed answers a method the route does not have.
func notAllowed(echo.Context) error { return echo.ErrMethodNotAllowed }

// newEcho returns the router.
func newEcho() *echo.Echo {
	e := echo.New() // no Logger, no Recover middleware: nothing per request
	// echo's 405 names OPTIONS in Allow, which it answers itself with 204;
	// the contract's resources have GET and HEAD only.
	e.HTTPErrorHandler = func(err error, c echo.Context) {
		if he, ok := err.(*echo.HTTPError); ok && he.Code == http.StatusMethodNotAllowed {
			c.Response().Header().Set(echo.HeaderAllow, page.Allow)
		}
		e.DefaultHTTPErrorHandler(err, c)
	}
	e.GET(page.Path, hello)
	e.HEAD(page.Path, hello)
	e.OPTIONS(page.Path, notAllowed)
	e.GET(page.JSONPath, helloJSON)
	e.HEAD(page.JSONPath, helloJSON)
	e.OPTIONS(page.JSONPath, notAllowed)
	return e
}

// main serves the Echo instance as the handler of an http.Server, as
// echo's documentation starts a custom server.
func main() {
	f := serve.HTTPFlags("echo", ":8086", "echo on net/http", &work)
	f.Parse()
	serve.HTTP(f, newEcho())
}
