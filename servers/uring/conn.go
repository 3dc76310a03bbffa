//go:build linux

package main

import (
	"time"

	"golang.org/x/sys/unix"

	"hellobench/servers/internal/http1"
	"hellobench/servers/internal/jsonreply"
)

const (
	// linger is how long a closing connection, its response sent and its
	// write side shut, reads and drops what the client still sends, so that
	// closing does not reset the connection under the client's last response.
	linger = time.Second
	// A connection whose unsent answers pass pauseAt stops receiving until
	// they are under resumeAt: a client that sends and does not read fills
	// its own socket buffers and blocks, instead of the server's memory.
	// An answer is about 400 bytes: 16 KiB is some 40 pipelined ones.
	pauseAt  = 16 << 10
	resumeAt = 4 << 10
	// maxPending bounds what one connection holds, received while paused
	// (one batch of completions can bring as much as the receive buffers
	// hold) or unsent: past it the connection is reset.
	maxPending = 4 << 20
	// maxHeld is a loop's budget for what its connections hold: past it a
	// connection with resumeAt or more unsent is paused, and one that sends
	// while paused is reset. 16 MiB, some 1 000 never-reading pipeliners at the
	// pause bound: the collector lets the heap grow to twice what is live,
	// and at 64 MiB 1 000 of them took the process past 126 MiB.
	maxHeld = 16 << 20
	// maxBody caps a request body: a hello-world page takes none, and a
	// client sending more gets 413 and the connection closed.
	maxBody = 1 << 20
	// freshGrace is how long, while draining, a new connection that has
	// sent nothing is left open: its client may be about to send its
	// request. (Go's net/http waits 5 s; the drain has 3 s in all.)
	freshGrace = time.Second
)

// phase is where a connection is in its exchange, which decides its deadline.
type phase uint8

const (
	phaseIdle    phase = iota // between requests (or none yet): idle timeout
	phaseRequest              // a request has started: header timeout, from its first byte
	phaseBody                 // reading its body: the same timeout, not renewed
	phaseWait                 // its answer is worked on off the ring (work.go): no timeout, nothing parsed
	phaseFlush                // last response still being sent
	phaseLinger               // last response sent, write side shut
)

// conn is the state of one connection, touched only by its loop. A closed
// conn is reused for a later connection; gen tells their operations apart.
type conn struct {
	fd       int
	slot     int    // in loop.conns, for good
	gen      uint32 // 0 while the slot is free
	ops      int    // operations in flight: the slot is freed at 0 once gone
	idx      int    // in loop.live
	p        http1.Parser
	phase    phase
	deadline time.Duration // loop time
	tl       *tlist        // the timeout list c is on, if any (timer.go)
	prev     *conn         // on tl
	next     *conn
	opened   time.Duration // loop time of the accept
	progress time.Duration // loop time of the last bytes received
	used     bool          // a request has been answered
	body     int64         // bytes of the current request's body read
	holds    int           // bytes counted in loop.held

	in         []byte // received, not yet parsed: a partial request, or those behind a held one
	out        []byte // answers for the next send
	wire       []byte // answers in the send in flight
	sending    bool
	dirty      bool // in loop.dirty: out is sent after this batch
	recving    bool // its multishot receive is armed
	paused     bool // its receive cancelled until its answers drain (pauseAt)
	starved    bool // in loop.starved: paused for the loop's budget
	cancelling bool // a pause's cancel is in flight
	eof        bool // the client has shut its side
	clean      bool // closing after a request read whole, nothing after it
	gone       bool // closing: its receive cancelled, its close queued

	// The answer to the request being read, chosen when its header section
	// completes and sent when its body has been read.
	reply      *http1.Reply
	head       bool
	connection http1.Connection
	held       bool // serve stopped at a request answered off the ring
}

// serve parses the requests at the start of in and appends their responses
// to dst. It returns out, dst with the responses appended; n, how many bytes
// of in it is done with; closing, whether the connection closes after out;
// and served, how many requests it answered.
func (c *conn) serve(dst, in, date []byte, draining bool) (out []byte, n int, closing bool, served int) {
	out = dst
	for {
		inBody := c.p.InBody()
		k, ev := c.p.Parse(in[n:])
		n += k
		if inBody {
			c.body += int64(k)
		}
		switch ev {
		case http1.More:
			if c.body > maxBody {
				return c.tooLarge(out, n, date, served)
			}
			return out, n, false, served
		case http1.Header:
			r := &c.p.Req
			c.reply, c.head = http1.Route(r.Method, r.Path)
			if c.reply == http1.NotFound {
				c.reply, c.head = jsonreply.Route(r.Method, r.Path)
			}
			switch {
			case !r.KeepAlive || (draining && n == len(in)):
				// Draining, the last request that has arrived says
				// close; those pipelined before it are answered.
				c.connection = http1.ConnClose
			case r.Minor == 0:
				c.connection = http1.ConnKeepAlive
			default:
				c.connection = http1.ConnNone
			}
			// Ask for the body only if none of it has come yet; a client
			// that sent it anyway does not wait.
			c.body = 0
			if r.Length > maxBody {
				return c.tooLarge(out, n, date, served)
			}
			if r.Continue && n == len(in) {
				out = append(out, http1.Continue...)
			}
		case http1.Done:
			if work.On() && c.reply == http1.OK {
				if work.Wait > 0 {
					// Answered off the ring (work.go); what follows
					// this request is parsed once that answer is out.
					c.held = true
					return out, n, false, served
				}
				work.Do()
			}
			if c.reply == jsonreply.Reply {
				out = jsonreply.Append(out, serverName, c.head, c.connection, date)
			} else {
				out = http1.AppendResponse(out, serverName, c.reply, c.head, c.connection, date)
			}
			served++
			if c.connection == http1.ConnClose {
				return out, n, true, served
			}
			if len(out) >= pauseAt {
				return out, n, false, served // the rest once these are sent
			}
		case http1.Fail:
			out = http1.AppendResponse(out, serverName, http1.ErrorReply(c.p.Status), false, http1.ConnClose, date)
			return out, n, true, served
		}
	}
}

// tooLarge answers a request whose body passes maxBody with 413, and
// closes: the rest of the body is not read.
func (c *conn) tooLarge(out []byte, n int, date []byte, served int) ([]byte, int, bool, int) {
	c.p.Status = 413
	out = http1.AppendResponse(out, serverName, http1.ErrorReply(413), false, http1.ConnClose, date)
	return out, n, true, served
}

// input takes bytes received on c.
func (l *loop) input(c *conn, data []byte) {
	switch {
	case c.phase >= phaseFlush: // past the last request: dropped
		c.clean = false
		return
	case c.phase == phaseWait || c.paused:
		// Kept unparsed until the answer is out (work.go), or the
		// answers before it are sent, within bounds.
		if c.in == nil {
			c.in = l.buf()
		}
		c.in = append(c.in, data...)
		l.account(c)
		if len(c.in) > pauseAt {
			l.pause(c)
		}
		if len(c.in) > maxPending || l.held > maxHeld {
			l.close(c)
		}
		return
	}
	in := data
	if len(c.in) > 0 {
		c.in = append(c.in, data...)
		in = c.in
	}
	l.serve(c, in)
}

// serve answers what in completes on c, keeps what it leaves for the next
// bytes, and moves c to the phase that follows.
func (l *loop) serve(c *conn, in []byte) {
	if c.out == nil {
		c.out = l.buf()
	}
	out, n, closing, served := c.serve(c.out, in, l.clock.date[:], l.s.draining.Load())
	c.out = out
	rest := in[n:]
	if closing {
		c.clean = len(rest) == 0 && c.p.Status == 0
		rest = nil // whatever follows the last request is dropped
	}
	switch {
	case len(rest) == 0:
		l.put(c.in)
		c.in = nil
	case len(c.in) > 0 && &rest[len(rest)-1] == &c.in[len(c.in)-1]:
		c.in = c.in[:copy(c.in, rest)]
	default: // rest is in a receive buffer, which goes back to the ring
		if c.in == nil {
			c.in = l.buf()
		}
		c.in = append(c.in[:0], rest...)
	}
	if len(c.out) > 0 {
		l.markDirty(c)
	}
	l.account(c)
	switch {
	case c.unsent() >= pauseAt:
		l.pause(c) // a client that sends and does not read
	case l.held > maxHeld && c.unsent() >= resumeAt && !c.starved:
		// Until the loop's connections hold less (flush). Only those
		// holding more than a few answers: a client that reads its
		// answers is not paused for those that do not.
		l.pause(c)
		c.starved = true
		l.starved = append(l.starved, c)
	}
	if c.held {
		c.held = false
		c.phase = phaseWait
		l.disarm(c) // no timeout: the answer is the server's to give
		l.s.pool.Submit(job{l: l, slot: c.slot, gen: c.gen, head: c.head, connection: c.connection}.run)
		return
	}
	switch {
	case closing:
		c.phase = phaseFlush
		l.arm(c, &l.idle) // for a client that does not read
	case c.p.Idle() && (len(rest) == 0 || c.paused):
		c.used = true
		c.phase = phaseIdle
		l.arm(c, &l.idle)
	default:
		// A request's clock starts with its first byte and runs until
		// it is read whole, body included: a body dripped slowly does
		// not renew it.
		if (c.phase != phaseRequest && c.phase != phaseBody) || served > 0 {
			l.arm(c, &l.request)
		}
		c.phase = phaseRequest
		if c.p.InBody() {
			c.phase = phaseBody
		}
	}
	if len(c.in)+c.unsent() > maxPending {
		l.close(c)
	}
}

// unsent is how many bytes of answers c has not sent.
func (c *conn) unsent() int { return len(c.out) + len(c.wire) }

// markDirty queues c's answers for the send after this batch of
// completions: a client's pipelined requests, however many receives they
// came in, leave in one send.
func (l *loop) markDirty(c *conn) {
	if !c.dirty {
		c.dirty = true
		l.dirty = append(l.dirty, c)
	}
}

// sent takes the completion of c's send of res bytes.
func (l *loop) sent(c *conn, res int32) {
	c.sending = false
	if res < 0 {
		l.close(c) // the client has gone
		return
	}
	if int(res) < len(c.wire) { // a short send: the rest goes first
		c.wire = c.wire[:copy(c.wire, c.wire[res:])]
		l.account(c)
		l.sendWire(c)
		return
	}
	l.put(c.wire)
	c.wire = nil
	l.account(c)
	if c.paused && !c.starved && c.phase != phaseWait && c.unsent() < resumeAt {
		l.resume(c)
	}
	switch {
	case len(c.out) > 0:
		l.send(c)
	case c.phase == phaseFlush:
		l.finish(c)
	case c.eof && c.phase != phaseWait:
		l.close(c) // answered all the client sent before it shut its side
	}
}

// finish ends a connection whose last response has left. A request read
// whole with nothing after it: the client has nothing more to send, so
// closing now cannot reset the connection under the response. Otherwise
// the write side is shut and the connection lingers: the client reads the
// response and EOF, and closing later does not reset data it has not read.
func (l *loop) finish(c *conn) {
	if c.clean || c.eof {
		l.close(c)
		return
	}
	_ = unix.Shutdown(c.fd, unix.SHUT_WR)
	c.phase = phaseLinger
	l.arm(c, &l.linger)
}

// ended takes the end of c's input: 0 bytes (the client shut its side) or
// an error (reset). What it sent before is still answered.
func (l *loop) ended(c *conn) {
	c.eof = true
	if c.phase == phaseWait || c.sending || len(c.out) > 0 {
		return // closed once the answers have left (sent)
	}
	l.close(c)
}

// quiet reports whether c can be closed while draining: between requests,
// its responses sent, no byte unread in the socket (closing with unread
// input would reset the connection), and, if it never sent a request,
// open for freshGrace.
func (l *loop) quiet(c *conn) bool {
	if c.phase != phaseIdle || c.sending || len(c.out) > 0 || len(c.in) > 0 {
		return false
	}
	if !c.used && l.now-c.opened < freshGrace {
		return false
	}
	n, err := unix.IoctlGetInt(c.fd, unix.SIOCINQ)
	return err == nil && n == 0
}
