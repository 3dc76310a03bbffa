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

// The loop's queues a connection can be on (conn.queued).
const (
	inDirty   = 1 << iota // loop.dirty: its answers go in this batch's sends
	inStarved             // loop.starved: paused for the loop's budget
	inHungry              // loop.hungry: waiting for its receive to be armed
)

// conn is the state of one connection, touched only by its loop. A closed
// conn is reused for a later connection; gen tells their operations apart.
// Its lifetime (state, ops, the timeout lists) is lifecycle.go's.
type conn struct {
	fd     int
	slot   int    // in loop.conns, for good
	gen    uint32 // 0 while the slot is free
	state  state
	ops    opSet // in flight, the backlog's included: the slot is freed at none once closing
	queued uint8 // the loop's queues c is on: inDirty, inStarved, inHungry
	idx    int   // in loop.live
	timer  link  // on a timeout list (timer.go)
	probe  link  // on loop.stalled, mid-request
	p      http1.Parser
	opened time.Duration // loop time of the accept
	body   int64         // bytes of the current request's body read
	holds  int           // bytes counted in loop.held

	in   []byte // received, not yet parsed: a partial request, or those behind a held one
	out  []byte // answers for the next send
	wire []byte // answers in the send in flight

	paused bool // its receive cancelled until its answers drain (pauseAt)
	eof    bool // the client has shut its side
	clean  bool // closing after a request read whole, nothing after it
	used   bool // a request has been answered

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
	case c.state == stateFlush || c.state == stateLinger: // past the last request: dropped
		c.clean = false
		return
	case c.state == stateWait || c.paused:
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
// bytes, and moves c to the state that follows.
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
	case l.held > maxHeld && c.unsent() >= resumeAt && c.queued&inStarved == 0:
		// Until the loop's connections hold less (flush). Only those
		// holding more than a few answers: a client that reads its
		// answers is not paused for those that do not.
		l.pause(c)
		c.queued |= inStarved
		l.starved = append(l.starved, ref{c, c.gen})
	}
	if c.held {
		c.held = false
		c.state = stateWait
		l.disarm(c) // no timeout: the answer is the server's to give
		unlink(c, &c.probe)
		l.s.pool.Submit(job{l: l, slot: c.slot, gen: c.gen, head: c.head, connection: c.connection}.run)
		return
	}
	switch {
	case closing:
		c.state = stateFlush
		l.arm(c, &l.idle) // for a client that does not read
		unlink(c, &c.probe)
	case c.p.Idle() && (len(rest) == 0 || c.paused):
		c.used = true
		c.state = stateIdle
		l.arm(c, &l.idle)
		unlink(c, &c.probe)
	default:
		// A request's clock starts with its first byte and runs until
		// it is read whole, body included: a body dripped slowly does
		// not renew it. The probe's does: it asks once a request has
		// stalled for probeEvery.
		if (c.state != stateRequest && c.state != stateBody) || served > 0 {
			l.arm(c, &l.request)
		}
		c.state = stateRequest
		if c.p.InBody() {
			c.state = stateBody
		}
		l.arm(c, &l.stalled)
	}
	if len(c.in)+c.unsent() > maxPending {
		l.close(c)
	}
}

// unsent is how many bytes of answers c has not sent.
func (c *conn) unsent() int { return len(c.out) + len(c.wire) }

// ended takes the end of c's input: 0 bytes (the client shut its side) or
// an error (reset). What it sent before is still answered.
func (l *loop) ended(c *conn) {
	c.eof = true
	if c.state == stateWait || c.ops.has(opSend) || len(c.out) > 0 {
		return // closed once the answers have left (sent)
	}
	l.close(c)
}

// quiet reports whether c can be closed while draining: between requests,
// its responses sent, no byte unread in the socket (closing with unread
// input would reset the connection), and, if it never sent a request,
// open for freshGrace.
func (l *loop) quiet(c *conn) bool {
	if c.state != stateIdle || c.ops.has(opSend) || len(c.out) > 0 || len(c.in) > 0 {
		return false
	}
	if !c.used && l.now-c.opened < freshGrace {
		return false
	}
	n, err := unix.IoctlGetInt(c.fd, unix.SIOCINQ)
	return err == nil && n == 0
}
