// Command nethttp serves the hellobench page with net/http alone: a ServeMux
// with a Go 1.22 method pattern and an http.Server with the contract's
// limits, behind a guard that refuses requests whose framing RFC 9112 asks
// a server to refuse and net/http accepts (servers/internal/nethttpguard).
//
// At /json it answers a page.Message encoded on every request by
// encoding/json's json.NewEncoder(w).Encode, 28 bytes with its newline.
//
// With -bare it serves as net/http does out of the box, without that guard.
//
// With -tls-cert and -tls-key it serves HTTPS, and HTTP/2 to clients
// that ask by ALPN; with -h2c, HTTP/2 over cleartext to clients with prior
// knowledge too. With -h3 as well, it serves HTTP/3 on the same port over
// UDP. The server around the mux, its flags, TLS, HTTP/2, HTTP/3 and the
// graceful drain, is the one every server on net/http shares
// (servers/internal/serve).
package main

import (
	"encoding/json"
	"net/http"
	"strconv"

	"hellobench/page"
	"hellobench/servers/internal/serve"
)

// work is the handler's optional work, -work-cpu and -work-wait (see
// page.Work). Off by default, it costs hello the inlined test of On.
var work page.Work

var contentLength = strconv.Itoa(page.Size)

// hello answers GET and HEAD /hello/world. net/http adds Date, drops the body
// for HEAD, and answers 404 for other paths and 405 with Allow for other
// methods, because the pattern names a method.
func hello(w http.ResponseWriter, r *http.Request) {
	if work.On() {
		// Waiting blocks only this connection's own goroutine.
		work.Do()
	}
	h := w.Header()
	h.Set("Content-Type", page.ContentType)
	h.Set("Content-Length", contentLength)
	w.Write(page.HTML)
}

// helloJSON answers GET and HEAD /json with a Message built and encoded
// for each request; json.Encoder ends it with a newline: 28 bytes. net/http
// adds Content-Length for a body this small written before the handler
// returns, HEAD's too (it counts what was written, then drops it), and
// Date, 404 and 405 as for hello.
func helloJSON(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", page.JSONType)
	json.NewEncoder(w).Encode(page.Message{Message: page.Greeting})
}

// newMux returns the router.
func newMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+page.Path, hello) // GET also matches HEAD
	mux.HandleFunc("GET "+page.JSONPath, helloJSON)
	return mux
}

func main() {
	f := serve.HTTPFlags("nethttp", ":8080", "net/http", &work)
	f.Parse()
	serve.HTTP(f, newMux())
}
