// Package jsonreply is the second endpoint, page.JSONPath, of the servers
// that write HTTP themselves (gnet, uring): a page.Message built and encoded
// with json.Marshal on every request, 27 bytes with no newline after them.
// Those stacks have no HTTP and so no JSON helper: encoding/json is their
// encoder.
//
// The shared router, http1.Route, knows the page alone; a server asks Route
// only about what http1.Route sends to 404, so the page pays two pointer
// compares for this route: one where it is routed, one where it is answered.
package jsonreply

import (
	"encoding/json"
	"strconv"

	"hellobench/page"
	"hellobench/servers/internal/http1"
)

// Reply marks a request answered by Append. It carries no bytes: the answer
// is encoded anew for each request.
var Reply = new(http1.Reply)

// Route is http1.Route for page.JSONPath.
func Route(method, path []byte) (r *http1.Reply, head bool) {
	head = string(method) == "HEAD"
	switch {
	case string(path) != page.JSONPath:
		return http1.NotFound, head
	case head || string(method) == "GET":
		return Reply, head
	}
	return http1.NotAllowed, false
}

// Append appends the answer to a request for page.JSONPath to b, with the
// headers http1.AppendResponse gives the page, in the same order, server
// in its Server header; a HEAD's has the GET's Content-Length and no body.
func Append(b []byte, server string, head bool, c http1.Connection, date []byte) []byte {
	body, err := json.Marshal(page.Message{Message: page.Greeting})
	if err != nil {
		panic(err) // a struct of one string always encodes
	}
	b = append(b, "HTTP/1.1 200 OK\r\nServer: "...)
	b = append(b, server...)
	b = append(b, "\r\nDate: "...)
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
