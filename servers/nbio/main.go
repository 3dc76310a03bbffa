// Command nbio serves the hellobench page with github.com/lesismal/nbio's
// nbhttp engine: net/http's own ServeMux and handlers, run on an epoll event
// loop of nbio's instead of a goroutine per connection. One poller reads
// every connection into nbio's buffers, parses the requests and runs their
// handlers; with -work-wait (or -bare), nbio's task pool runs the
// handlers, each connection's in order.
//
// At /json it answers a page.Message encoded on every request by
// encoding/json's json.NewEncoder(&b).Encode into a buffer, 28 bytes with
// its newline, sent with its Content-Length.
//
// nbhttp's parser accepts much that RFC 9112 asks a server to refuse;
// unless -bare, a guard (guard.go) shows it only requests the project's
// strict parser has checked. serve.go has the flags, the engine's settings
// and the graceful stop.
package main

import (
	"bytes"
	"encoding/json"
	"log"
	"net/http"
	"strconv"

	"hellobench/page"
)

var contentLength = strconv.Itoa(page.Size)

// work is the handler's optional work, -work-cpu and -work-wait (see
// page.Work). Off by default, it costs hello the inlined test of On.
var work page.Work

// hello answers GET and HEAD /hello/world. nbhttp adds Date; what else
// nbhttp leaves to a handler, contract (serve.go) does for every answer.
func hello(w http.ResponseWriter, r *http.Request) {
	if work.On() {
		// With a wait, the handler runs on nbio's task pool, off the
		// event loop: waiting blocks only this connection's requests.
		work.Do()
	}
	h := w.Header()
	h.Set("Content-Type", page.ContentType)
	h.Set("Content-Length", contentLength)
	w.Write(page.HTML)
}

// helloJSON answers GET and HEAD /json with a Message built and encoded
// for each request; json.Encoder ends it with a newline: 28 bytes. nbhttp
// sends a body chunked unless told its length, so it is encoded first.
func helloJSON(w http.ResponseWriter, r *http.Request) {
	var b bytes.Buffer
	json.NewEncoder(&b).Encode(page.Message{Message: page.Greeting})
	h := w.Header()
	h.Set("Content-Type", page.JSONType)
	h.Set("Content-Length", strconv.Itoa(b.Len()))
	w.Write(b.Bytes())
}

// newMux returns the ServeMux, which answers 404 for other paths and 405
// with Allow for other methods, because the patterns name a method.
func newMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+page.Path, hello) // GET also matches HEAD
	mux.HandleFunc("GET "+page.JSONPath, helloJSON)
	return mux
}

func main() {
	if err := serve(parseFlags(), contract(newMux())); err != nil {
		log.Fatalf("nbio: %v", err)
	}
}
