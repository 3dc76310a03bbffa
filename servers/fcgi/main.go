// Command fcgi serves the hellobench page as a FastCGI responder
// (net/http/fcgi) behind lighttpd, the seeds' oldest configuration. At
// /json it answers a page.Message encoded on every request by
// json.NewEncoder, 28 bytes with its newline.
//
// Spawned by lighttpd through bin-path, it serves the socket lighttpd passes
// as stdin, with serve.sh's arguments after the address (-work-cpu...); with
// -socket it listens itself (serve.go). serve.sh runs it and lighttpd.conf.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/http"
	"strconv"

	"hellobench/page"
	"hellobench/servers/internal/serve"
)

// work is the handler's optional work, -work-cpu and -work-wait (page.Work).
var work page.Work

// hello answers the contract behind lighttpd: 200 with the page for GET and
// HEAD at page.Path, and with a JSON Message at page.JSONPath; 405 for other
// methods there, 404 elsewhere. No Server header: lighttpd adds its own.
func hello(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	if r.URL.Path != page.Path && r.URL.Path != page.JSONPath {
		plain(w, http.StatusNotFound)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", page.Allow)
		plain(w, http.StatusMethodNotAllowed)
		return
	}
	if r.URL.Path == page.JSONPath {
		helloJSON(w, r)
		return
	}
	if work.On() {
		work.Do() // on this request's own goroutine: blocks only it
	}
	h.Set("Content-Type", page.ContentType)
	// net/http/fcgi sets no Content-Length: lighttpd would chunk or close.
	h.Set("Content-Length", contentLength)
	w.WriteHeader(http.StatusOK)
	// net/http/fcgi sends a HEAD's body too, a copy that lighttpd drops.
	if r.Method != http.MethodHead {
		w.Write(page.HTML)
	}
}

// helloJSON answers GET and HEAD at page.JSONPath with a Message encoded
// for each request into a buffer, whose length is sent first, HEAD's too.
func helloJSON(w http.ResponseWriter, r *http.Request) {
	var b bytes.Buffer
	json.NewEncoder(&b).Encode(page.Message{Message: page.Greeting})
	h := w.Header()
	h.Set("Content-Type", page.JSONType)
	h.Set("Content-Length", strconv.Itoa(b.Len()))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(b.Bytes())
	}
}

func main() {
	socket := flag.String("socket", "", "FastCGI `socket` to listen on: a unix socket path (containing a '/') or a TCP host:port; empty: the socket lighttpd passes on stdin")
	// serve.sh runs -check first: lighttpd would say only that a backend failed.
	check := flag.Bool("check", false, "check the flags, then exit (0: good; 2, with a message: bad)")
	work.Flags(flag.CommandLine)
	flag.Parse()
	serve.Exit("fcgi", serve.NoArgs(), work.Check())
	if !*check {
		serveSocket(*socket) // serve.go
	}
}
