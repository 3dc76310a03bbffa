package http1

import (
	"strconv"

	"hellobench/page"
)

// The answers of a server that speaks HTTP/1.1 through this package (gnet's
// and uring's): the page, the contract's errors, and the writer that puts
// one together with its Date and Connection, allocating nothing.

// A Reply is the fixed part of one kind of response; Date and Connection
// are added per request.
type Reply struct {
	status string // status line
	ctype  string // Content-Type
	length string // Content-Length
	body   []byte
	allow  bool // send Allow, for 405
}

func newReply(status, ctype string, body []byte, allow bool) *Reply {
	return &Reply{
		status: "HTTP/1.1 " + status + "\r\n",
		ctype:  ctype,
		length: strconv.Itoa(len(body)),
		body:   body,
		allow:  allow,
	}
}

func textReply(status string) *Reply {
	return newReply(status, "text/plain; charset=utf-8", []byte(status+"\n"), false)
}

// The replies of the contract.
var (
	OK             = newReply("200 OK", page.ContentType, page.HTML, false)
	NotFound       = textReply("404 Not Found")
	NotAllowed     = newReply("405 Method Not Allowed", "text/plain; charset=utf-8", []byte("405 Method Not Allowed\n"), true)
	BadRequest     = textReply("400 Bad Request")
	TooLarge       = textReply("431 Request Header Fields Too Large")
	BodyTooLarge   = textReply("413 Content Too Large")
	NotImplemented = textReply("501 Not Implemented")
	BadVersion     = textReply("505 HTTP Version Not Supported")
)

// Continue is the interim answer to Expect: 100-continue.
const Continue = "HTTP/1.1 100 Continue\r\n\r\n"

// ErrorReply is the answer to a request the parser failed with status.
func ErrorReply(status int) *Reply {
	switch status {
	case 413:
		return BodyTooLarge
	case 431:
		return TooLarge
	case 501:
		return NotImplemented
	case 505:
		return BadVersion
	}
	return BadRequest
}

// Route picks the answer to method on path, and whether it goes without a
// body.
func Route(method, path []byte) (r *Reply, head bool) {
	head = string(method) == "HEAD"
	switch {
	case string(path) != page.Path:
		return NotFound, head
	case head || string(method) == "GET":
		return OK, head
	}
	return NotAllowed, false
}

// Connection is the Connection header a response carries.
type Connection uint8

const (
	ConnNone      Connection = iota // HTTP/1.1 keep-alive: nothing to say
	ConnClose                       // the server closes after this response
	ConnKeepAlive                   // HTTP/1.0 keep-alive, which must be said
)

// AppendResponse appends the response r to b: status line, headers (Server
// says server), and the body unless head.
func AppendResponse(b []byte, server string, r *Reply, head bool, c Connection, date []byte) []byte {
	b = append(b, r.status...)
	b = append(b, "Server: "...)
	b = append(b, server...)
	b = append(b, "\r\nDate: "...)
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
	case ConnClose:
		b = append(b, "Connection: close\r\n"...)
	case ConnKeepAlive:
		b = append(b, "Connection: keep-alive\r\n"...)
	}
	b = append(b, "\r\n"...)
	if !head {
		b = append(b, r.body...)
	}
	return b
}
