//go:build linux

package main

import (
	"encoding/json"
	"strconv"

	"hellobench/page"
	"hellobench/servers/internal/http1"
)

// The second endpoint, page.JSONPath: a page.Message built and encoded
// with json.Marshal on every request, 27 bytes with no newline after them.
// gnet has no HTTP and so no JSON helper: encoding/json is the stack's
// encoder. The shared router, http1.Route, knows the page alone; serve asks
// routeJSON only about what it sends to 404, so the page pays two pointer
// compares for this route: one where it is routed, one where it is answered.

// jsonReply marks a request answered by appendJSON. It carries no bytes:
// the answer is encoded anew for each request.
var jsonReply = new(http1.Reply)

// routeJSON is http1.Route for page.JSONPath.
func routeJSON(method, path []byte) (r *http1.Reply, head bool) {
	head = string(method) == "HEAD"
	switch {
	case string(path) != page.JSONPath:
		return http1.NotFound, head
	case head || string(method) == "GET":
		return jsonReply, head
	}
	return http1.NotAllowed, false
}

// appendJSON appends the answer to a request for page.JSONPath to b, with
// the headers http1.AppendResponse gives the page, in the same order; a
// HEAD's has the GET's Content-Length and no body.
func appendJSON(b []byte, head bool, c http1.Connection, date []byte) []byte {
	body, err := json.Marshal(page.Message{Message: page.Greeting})
	if err != nil {
		panic(err) // a struct of one string always encodes
	}
	b = append(b, "HTTP/1.1 200 OK\r\nServer: "+serverName+"\r\nDate: "...)
	b = append(b, date...)
	b = append(b, "\r\nContent-Type: "+page.JSONType+"\r\nContent-Length: "...)
	b = strconv.AppendInt(b, int64(len(body)), 10)
	b = append(b, "\r\n"...)
	switch c {
	case http1.ConnClose:
		b = append(b, "Connection: close\r\n"...)
	case http1.ConnKeepAlive:
		b = append(b, "Connection: keep-alive\r\n"...)
	}
	b = append(b, "\r\n"...)
	if !head {
		b = append(b, body...)
	}
	return b
}
