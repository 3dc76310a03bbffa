// Command chi serves the hellobench page with github.com/go-chi/chi/v5 on
// net/http's server, behind a guard that refuses requests whose framing
// RFC 9112 asks a server to refuse and net/http accepts: a listener and a
// handler around the router (servers/internal/nethttpguard).
//
// With -bare it serves as chi and net/http do out of the box, without that
// guard.
//
// At /json it answers a page.Message encoded on every request by
// encoding/json's json.NewEncoder(w).Encode, 28 bytes with its newline.
//
// With -tls-cert and -tls-key it serves HTTPS, and HTTP/2 to clients that
// ask by ALPN; with -h2c, HTTP/2 over cleartext too; with -h3, HTTP/3 on the
// same port over UDP. The server around the router, shared by every server
// on net/http with its flags and graceful drain, is servers/internal/serve's.
package main

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"hellobench/page"
	"hellobench/servers/internal/serve"
)

var contentLength = strconv.Itoa(page.Size)

// work is the handler's optional work, -work-cpu and -work-wait (see
// page.Work). Off by default, it costs hello the inlined test of On.
var work page.Work

// hello answers GET and HEAD /hello/world; net/http adds Date and drops the
// body of a HEAD response.
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
// for each request with encoding/json, chi having no JSON helper of its
// own (go-chi/render is a module apart); json.Encoder ends it with a
// newline: 28 bytes. net/http adds Content-Length for a body this small
// written before the handler returns, HEAD's too (it counts what was
// written, then drops it).
func helloJSON(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", page.JSONType)
	json.NewEncoder(w).Encode(page.Message{Message: page.Greeting})
}

// newRouter returns the router.
func newRouter() *chi.Mux {
	r := chi.NewRouter() // no Logger, no Recoverer: nothing per request
	r.Get(page.Path, hello)
	r.Head(page.Path, hello)
	r.Get(page.JSONPath, helloJSON)
	r.Head(page.JSONPath, helloJSON)
	// chi's own 405 gives each allowed method an Allow line of its own;
	// the contract asks for one. Both paths allow GET and HEAD.
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", page.Allow)
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	})
	return r
}

func main() {
	f := serve.HTTPFlags("chi", ":8087", "chi on net/http", &work)
	f.Parse()
	serve.HTTP(f, newRouter())
}
