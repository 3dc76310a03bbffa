package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"hellobench/page"
)

var contentLength = strconv.Itoa(page.Size)

// work is the handler's optional work, -work-cpu and -work-wait (see
// page.Work). Off by default, it costs hello the inlined test of On.
var work page.Work

// hello answers the contract behind lighttpd: 200 with the page for GET and
// HEAD at page.Path, and with a JSON Message at page.JSONPath; 405 for other
// methods there, 404 elsewhere. It sets no Server header: lighttpd adds its
// own.
type hello struct{}

func (hello) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
		// net/http/fcgi serves each request on a goroutine of its own:
		// waiting blocks only this one.
		work.Do()
	}
	h.Set("Content-Type", page.ContentType)
	// net/http/fcgi sets no Content-Length; without one lighttpd would
	// chunk the body (HTTP/1.1) or close the connection (HTTP/1.0).
	h.Set("Content-Length", contentLength)
	w.WriteHeader(http.StatusOK)
	// net/http/fcgi sends whatever is written, HEAD or not; lighttpd would
	// drop it, but not writing it spares the copy over the socket.
	if r.Method != http.MethodHead {
		w.Write(page.HTML)
	}
}

// helloJSON answers GET and HEAD at page.JSONPath with a Message built
// and encoded for each request by json.NewEncoder(...).Encode, which ends
// it with a newline: 28 bytes. net/http/fcgi sets no Content-Length, so the
// encoder writes into a buffer whose length is sent first, HEAD's too.
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

// plain writes a short text body for an error status, with its length.
func plain(w http.ResponseWriter, code int) {
	body := strconv.Itoa(code) + " " + http.StatusText(code) + "\n"
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(code)
	w.Write([]byte(body))
}
