package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"time"

	"github.com/cloudwego/hertz/pkg/app"
	"github.com/cloudwego/hertz/pkg/network"
)

// The guard. netpoll reads each socket into its own buffers, and hertz
// parses from those: there is no net.Conn to wrap with a scanner, as the
// fasthttp servers' guard does. What hertz keeps is the raw header
// section of each request (RequestHeader.RawHeaders), so the guard is a
// middleware that reads it before any route answers: a request whose
// framing fields RFC 9112 asks a server to refuse (both Transfer-Encoding
// and Content-Length, a coding other than a final chunked, a malformed or
// repeated Content-Length, Transfer-Encoding in HTTP/1.0, a field name
// that is not a token) is answered 400 (501 for a coding hertz does not
// know) and the connection closed, so that whatever hertz made of the
// body, no byte after it is read as a request. What it cannot see is
// listed as hertz's deviations in the target table and the conformance
// suite: the request line (hertz serves any HTTP/x.y as 1.0 and keeps no
// copy of it) and chunk lines (hertz decodes the body before a handler
// runs). It also drops an empty line between two requests, which hertz
// refuses.

// strict is the guard's middleware.
func strict(ctx context.Context, c *app.RequestContext) {
	if status := framing(c.Request.Header.RawHeaders(), c.Request.Header.IsHTTP11()); status != 0 {
		c.AbortWithMsg(http.StatusText(status), status) // resets the response: first
		c.SetConnectionClose()
		return
	}
	if d, ok := ctx.Value(deadlineKey{}).(*headerDeadline); ok {
		d.met()
	}
	skipEmptyLines(c.GetReader())
	c.Next(ctx)
}

// skipEmptyLines drops the empty lines already read after this request:
// RFC 9112 section 2.2 asks a server to ignore one before a request line,
// as some clients send after a body, and hertz would read it as a
// malformed request line. The request, body included, has been read, so
// what follows in the buffer is the next request.
func skipEmptyLines(r network.Reader) {
	for r.Len() >= 2 {
		if b, err := r.Peek(2); err != nil || b[0] != '\r' || b[1] != '\n' {
			return
		}
		r.Skip(2)
	}
}

// framing returns the status that refuses a request with the raw header
// section h, or 0 for one well framed.
func framing(h []byte, http11 bool) int {
	var (
		cl, te      bool   // the fields seen
		clValue     []byte // Content-Length's value
		codings     [][]byte
		lastFraming bool // the last field line was Content-Length or Transfer-Encoding
	)
	for len(h) > 0 {
		var line []byte
		if i := bytes.IndexByte(h, '\n'); i >= 0 {
			line, h = h[:i], h[i+1:]
		} else {
			line, h = h, nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			break // the end of the header section
		}
		if line[0] == ' ' || line[0] == '\t' {
			// obs-fold (RFC 9112 section 5.2): refused where it would
			// continue a framing field.
			if lastFraming {
				return http.StatusBadRequest
			}
			continue
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 || !token(line[:colon]) {
			return http.StatusBadRequest
		}
		name, value := line[:colon], bytes.Trim(line[colon+1:], " \t")
		lastFraming = false
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			if !digits(value) || (cl && !bytes.Equal(value, clValue)) {
				return http.StatusBadRequest
			}
			cl, clValue, lastFraming = true, value, true
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			te, lastFraming = true, true
			for v := range bytes.SplitSeq(value, []byte(",")) {
				codings = append(codings, bytes.Trim(v, " \t"))
			}
		}
	}
	if !te {
		return 0
	}
	if cl || !http11 {
		return http.StatusBadRequest // RFC 9112 section 6.1
	}
	// Section 6.3: chunked once, and last.
	for i, v := range codings {
		last := i == len(codings)-1
		switch {
		case bytes.EqualFold(v, []byte("chunked")):
			if !last {
				return http.StatusBadRequest
			}
		case last, len(v) == 0, !token(v):
			return http.StatusBadRequest
		default:
			// A coding before chunked that hertz does not decode.
			return http.StatusNotImplemented
		}
	}
	return 0
}

// token reports whether b is an RFC 9110 token.
func token(b []byte) bool {
	for _, c := range b {
		if c <= ' ' || c >= 0x7f || bytes.IndexByte([]byte(`"(),/:;<=>?@[\]{}`), c) >= 0 {
			return false
		}
	}
	return len(b) > 0
}

// digits reports whether b is a Content-Length hertz reads as written: 1
// to 18 decimal digits, so that it cannot wrap.
func digits(b []byte) bool {
	if len(b) == 0 || len(b) > 18 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// hertz's read timeout bounds each wait for bytes, not the whole header
// section: a client sending a byte within each timeout keeps its
// connection, and a header section cut off by the timeout is answered 400,
// not 408. headerDeadline answers 408 and closes a connection whose first
// request has not reached a handler within the header timeout from its
// connecting, before hertz's own timeout, which the guard sets later,
// fires. Until then hertz is reading, so nothing else writes.
type headerDeadline struct{ t *time.Timer }

type deadlineKey struct{}

const timeout408 = "HTTP/1.1 408 Request Timeout\r\nServer: hertz\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"

// onConnect arms the deadline of a new connection.
func onConnect(timeout time.Duration) func(context.Context, network.Conn) context.Context {
	return func(ctx context.Context, conn network.Conn) context.Context {
		d := &headerDeadline{t: time.AfterFunc(timeout, func() {
			conn.SetWriteTimeout(time.Second)
			io.WriteString(conn, timeout408)
			conn.Close()
		})}
		return context.WithValue(ctx, deadlineKey{}, d)
	}
}

// met disarms the deadline: the first request's headers are in.
func (d *headerDeadline) met() { d.t.Stop() }
