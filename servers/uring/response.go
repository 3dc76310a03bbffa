//go:build linux

package main

import (
	"strconv"

	"hellobench/page"
)

// reply is the fixed part of one kind of response; Date and Connection are
// added per request.
type reply struct {
	status string // status line
	ctype  string // Content-Type
	length string // Content-Length
	body   []byte
	allow  bool // send Allow, for 405
}

func newReply(status, ctype string, body []byte, allow bool) *reply {
	return &reply{
		status: "HTTP/1.1 " + status + "\r\n",
		ctype:  ctype,
		length: strconv.Itoa(len(body)),
		body:   body,
		allow:  allow,
	}
}

func textReply(status string) *reply {
	return newReply(status, "text/plain; charset=utf-8", []byte(status+"\n"), false)
}

var (
	replyOK          = newReply("200 OK", page.ContentType, page.HTML, false)
	replyNotFound    = textReply("404 Not Found")
	replyNotAllowed  = newReply("405 Method Not Allowed", "text/plain; charset=utf-8", []byte("405 Method Not Allowed\n"), true)
	replyBadRequest  = textReply("400 Bad Request")
	replyTooLarge    = textReply("431 Request Header Fields Too Large")
	replyNotImpl     = textReply("501 Not Implemented")
	replyBadVersion  = textReply("505 HTTP Version Not Supported")
	continueResponse = "HTTP/1.1 100 Continue\r\n\r\n"
)

// errorReply is the answer to a request the parser failed with status.
func errorReply(status int) *reply {
	switch status {
	case 431:
		return replyTooLarge
	case 501:
		return replyNotImpl
	case 505:
		return replyBadVersion
	}
	return replyBadRequest
}

// route picks the answer to method on path, and whether it goes without a body.
func route(method, path []byte) (r *reply, head bool) {
	head = string(method) == "HEAD"
	switch {
	case string(path) != page.Path:
		return replyNotFound, head
	case head || string(method) == "GET":
		return replyOK, head
	}
	return replyNotAllowed, false
}

// connection is the Connection header a response carries.
type connection uint8

const (
	connNone      connection = iota // HTTP/1.1 keep-alive: nothing to say
	connClose                       // the server closes after this response
	connKeepAlive                   // HTTP/1.0 keep-alive, which must be said
)

// appendResponse appends the response r to b: status line, headers, and the
// body unless head.
func appendResponse(b []byte, r *reply, head bool, c connection, date []byte) []byte {
	b = append(b, r.status...)
	b = append(b, "Server: uring\r\nDate: "...)
	b = append(b, date...)
	b = append(b, "\r\nContent-Type: "...)
	b = append(b, r.ctype...)
	b = append(b, "\r\nContent-Length: "...)
	b = append(b, r.length...)
	b = append(b, "\r\n"...)
	if r.allow {
		b = append(b, "Allow: "+page.Allow+"\r\n"...)
	}
	switch c {
	case connClose:
		b = append(b, "Connection: close\r\n"...)
	case connKeepAlive:
		b = append(b, "Connection: keep-alive\r\n"...)
	}
	b = append(b, "\r\n"...)
	if !head {
		b = append(b, r.body...)
	}
	return b
}
