package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/lesismal/nbio"
	"github.com/lesismal/nbio/nbhttp"

	"hellobench/servers/internal/http1"
)

// The guard. nbhttp's parser accepts much that RFC 9112 asks a server to
// refuse (a request with both Transfer-Encoding and Content-Length, bare
// LF line ends, control characters in the target, several Host fields or
// none), and has no bound on a header section nor a deadline on a request:
// only one on the wait for the next. nbio hands each connection's bytes,
// as the poller reads them, to the connection's session, nbhttp's parser;
// the guard takes the session's place, and passes on only what the
// project's strict parser (servers/internal/http1, gnet's) has checked: a
// request's head once all of it is in and valid, body bytes once their
// framing is, a chunked body's last chunk and trailer only whole. Empty
// lines before a request line are dropped, as section 2.2 asks. At the
// first byte the parser refuses, the guard passes nothing more: it queues
// its answer (400, 431, 501 or 505) behind the handlers of the requests
// before it, on the connection's own queue, then shuts its write side and
// closes a second later, or when the client has.
//
// A request not whole within the header timeout of its first byte has its
// connection closed: the guard arms the read deadline while a request is
// incomplete, and nbhttp sets it to the idle timeout once it has answered.

// guards is the guard of every connection of one engine, and how the
// engine drains them.
type guards struct {
	timeout time.Duration // the header timeout
	inline  bool          // the handlers run on the loop, as nbhttp parses
	mu      sync.Mutex
	conns   map[*nbio.Conn]*guard // nil until a connection's first bytes
}

// newGuards puts a guard before nbhttp's parser on every connection of e,
// and with inline runs the handlers on the loop.
func newGuards(e *nbhttp.Engine, timeout time.Duration, inline bool) *guards {
	s := &guards{timeout: timeout, inline: inline, conns: map[*nbio.Conn]*guard{}}
	e.OnOpen(func(c net.Conn) {
		if nc, ok := c.(*nbio.Conn); ok {
			s.mu.Lock()
			s.conns[nc] = nil
			s.mu.Unlock()
		}
	})
	e.OnClose(func(c net.Conn, err error) {
		if nc, ok := c.(*nbio.Conn); ok {
			s.mu.Lock()
			delete(s.conns, nc)
			s.mu.Unlock()
		}
	})
	// Every read of a connection reaches its data handler, which parses
	// through the session: the guard takes nbhttp's parser's place there
	// before the first bytes are parsed.
	e.Engine.OnData(func(c *nbio.Conn, data []byte) {
		if p, ok := c.Session().(*nbhttp.Parser); ok {
			g := &guard{Parser: p, c: c, s: s}
			if s.inline {
				// Each request's handler runs as nbhttp parses it, on
				// the loop; a close still goes through the connection's
				// queue, to nbio's task pool, and waits for the parse.
				p.Execute = nbhttp.SyncExecutor
			}
			c.SetSession(g)
			s.mu.Lock()
			s.conns[c] = g
			s.mu.Unlock()
		}
		c.DataHandler()(c, data)
	})
	return s
}

// drain closes each connection once it has no request in progress, until
// none is left or ctx is done.
func (s *guards) drain(ctx context.Context) {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		s.mu.Lock()
		for c, g := range s.conns {
			if g == nil || !g.busy.Load() && c.ExecuteLen() == 0 {
				c.Close()
			}
		}
		left := len(s.conns)
		s.mu.Unlock()
		if left == 0 {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// guard is one connection's: nbhttp's parser, read through the strict one.
type guard struct {
	*nbhttp.Parser // nbhttp's, which gets the checked bytes
	c              *nbio.Conn
	s              *guards
	p              http1.Parser
	// buf holds what was read and not yet passed on: its first held bytes
	// are checked but held back (a trailer not yet whole), the rest not
	// yet checked (a request not yet whole). nil while there are none, so
	// an idle connection keeps no buffer.
	buf     []byte
	held    int
	armed   bool        // the header deadline is set for the request in progress
	trailer bool        // the last chunk's line is read: the trailer section is held
	busy    atomic.Bool // a request is in progress: read in part, or held
	refused bool        // the guard has answered; nothing more is passed on
}

// Parse is nbhttp's session's: data is what the poller has just read.
func (g *guard) Parse(data []byte) error {
	if g.refused {
		return nil // read and dropped until the close
	}
	s := scan{in: data, r: g.held}
	if len(g.buf) > 0 {
		g.buf = append(g.buf, data...)
		s.in = g.buf
	}
	for g.step(&s) {
	}
	s.pass(g)
	if s.status != 0 {
		g.refuse(s.status)
		g.buf, g.held = nil, 0
		return s.err
	}
	g.keep(s.in, s.c, s.r)
	return s.err
}

// scan is one Parse's progress through in: checked bytes move to its
// front, in[:w] to be passed on; in[c:] is kept, of which in[c:r] is
// checked and held.
type scan struct {
	in      []byte
	w, c, r int
	status  int   // the refused request's answer; 0 while none is
	err     error // nbhttp's
}

// pass gives nbhttp's parser in[:w].
func (s *scan) pass(g *guard) {
	if s.w > 0 && s.err == nil {
		s.err = g.Parser.Parse(s.in[:s.w])
	}
	s.w = 0
}

// step checks the next part of s.in and reports whether there may be more.
func (g *guard) step(s *scan) bool {
	in := s.in
	if g.p.Idle() {
		for len(in)-s.r >= 2 && in[s.r] == '\r' && in[s.r+1] == '\n' {
			s.r += 2 // an empty line before a request line: dropped
			s.c = s.r
		}
		if len(in) == s.r || len(in)-s.r == 1 && in[s.r] == '\r' {
			return false
		}
	}
	// In a chunked body, a line at a time, so that the last chunk's line
	// is read alone.
	end := len(in)
	if g.p.InBody() && g.p.Req.Chunked && !g.p.InTrailer() {
		if i := bytes.IndexByte(in[s.r:], '\n'); i >= 0 {
			end = s.r + i + 1
		}
	}
	n, ev := g.p.Parse(in[s.r:end])
	s.r += n
	switch {
	case ev == http1.Fail:
		s.status = g.p.Status
		return false
	case ev == http1.Header && !nbhttpMethods[string(g.p.Req.Method)]:
		s.status = http.StatusNotImplemented
		return false
	case ev == http1.Header:
		s.w = g.passHead(in, s.w, s.c, s.r)
		s.c = s.r
	case g.p.InTrailer():
		// The last chunk's line, then the trailer fields, held until the
		// trailer section ends, then dropped: nbhttp refuses a trailer
		// field not announced in Trailer.
		if !g.trailer {
			g.trailer = true
			s.c = s.r
		}
	case ev == http1.Done && g.trailer:
		g.trailer = false
		s.pass(g)
		if s.err == nil {
			s.err = g.Parser.Parse([]byte("0\r\n\r\n"))
		}
		s.c = s.r
	default:
		s.w += copy(in[s.w:], in[s.c:s.r])
		s.c = s.r
	}
	if ev == http1.Done {
		g.armed = false
	}
	return ev != http1.More || end < len(in)
}

// keep holds in[c:], of which in[c:r] is checked, until more is read, and
// arms the header deadline while a request is incomplete.
func (g *guard) keep(in []byte, c, r int) {
	rest := in[c:]
	switch {
	case len(rest) == 0:
		g.buf = nil
	case len(g.buf) > 0:
		g.buf = g.buf[:copy(g.buf, rest)]
	default:
		g.buf = append([]byte(nil), rest...) // in is nbio's read buffer
	}
	g.held = r - c
	pending := len(g.buf) > 0 || !g.p.Idle()
	g.busy.Store(pending)
	if pending && !g.armed {
		g.armed = true
		g.c.SetReadDeadline(time.Now().Add(g.s.timeout))
	}
}

// refuse answers the request the strict parser refused once the requests
// before it are answered: its job follows theirs on the connection's queue.
func (g *guard) refuse(status int) {
	g.refused = true
	g.busy.Store(false)
	resp := http1.AppendResponse(nil, "nbio", http1.ErrorReply(status), false, http1.ConnClose,
		time.Now().UTC().AppendFormat(nil, http.TimeFormat))
	c, w := g.c, g.UnderlayerConn() // w: over TLS, the TLS connection
	c.Execute(func() {
		w.Write(resp)
		// Shut the write side and close a second later, or once the
		// client closes: the status is read before any reset.
		if rc, err := c.SyscallConn(); err == nil {
			rc.Control(func(fd uintptr) { syscall.Shutdown(int(fd), syscall.SHUT_WR) })
		}
		c.SetReadDeadline(time.Now().Add(time.Second))
	})
}

// nbhttpMethods are the methods nbhttp's parser knows (table.go); it
// closes the connection without a word on any other, so the guard answers
// those 501 Not Implemented, as RFC 9110 section 15.6.2 allows for a
// method the server does not recognize.
var nbhttpMethods = map[string]bool{
	"GET": true, "HEAD": true, "POST": true, "PUT": true, "PATCH": true,
	"DELETE": true, "OPTIONS": true, "TRACE": true, "CONNECT": true,
}

// passHead moves the head in[c:r], just checked, to in[w:] as nbhttp takes
// it, and returns the new end of what is passed on. nbhttp takes only a
// target in origin or asterisk form: an absolute-form target passes as
// its path and query, which RFC 9112 section 3.2.2 makes the same request
// (its authority wins over Host, and this server serves every host alike).
// nbhttp keeps the whitespace around a field value as part of it, and
// refuses a Content-Length with a tab there: every HTAB of a field line
// (OWS, or inside a value, where it is whitespace too) passes as SP.
func (g *guard) passHead(in []byte, w, c, r int) int {
	head := in[c:r]
	if t := g.p.Req.Target; len(t) > 0 && t[0] != '/' && t[0] != '*' {
		if i := bytes.Index(t, []byte("://")); i >= 0 {
			off := cap(head) - cap(t) // t aliases head
			rest := t[i+3:]
			path := rest[min(len(rest), pathStart(rest)):]
			w += copy(in[w:], head[:off])
			if len(path) == 0 || path[0] != '/' {
				w += copy(in[w:], "/")
			}
			w += copy(in[w:], path)
			head = head[off+len(t):]
		}
	}
	start := w
	w += copy(in[w:], head)
	for i := start; i < w; i++ {
		if in[i] == '\t' {
			in[i] = ' '
		}
	}
	return w
}

// pathStart returns the offset of the path or query after an authority.
func pathStart(a []byte) int {
	if i := bytes.IndexAny(a, "/?"); i >= 0 {
		return i
	}
	return len(a)
}
