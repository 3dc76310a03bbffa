package main

import (
	"net/http"
	"strconv"

	"hellobench/page"
)

var contentLength = strconv.Itoa(page.Size)

// plain writes a short text body for an error status, with its length.
func plain(w http.ResponseWriter, code int) {
	body := strconv.Itoa(code) + " " + http.StatusText(code) + "\n"
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(code)
	w.Write([]byte(body))
}
