//go:build linux

package main

import (
	"math"
	"time"

	"github.com/panjf2000/gnet/v2"

	"hellobench/page"
	"hellobench/servers/internal/http1"
)

// Handler work (-work-cpu, -work-wait: page.Work) on an event loop, which
// must never block: one loop serves every connection it owns, so a handler
// that waits on it makes them all wait.
//
//   - CPU work alone is burnt on the loop (serve): on one core it is CPU
//     time wherever it runs, and a goroutine would only add a hand-off.
//   - A wait, with the CPU work before it, runs off the loop on a bounded
//     pool of goroutines, which hands the answer back with gnet's
//     AsyncWrite, the pattern gnet documents for blocking work: the write
//     and its callback run on the connection's loop.
//   - -work-wait-inline waits on the loop instead: the naive handler, kept
//     to show what blocking the loop costs.
//
// A connection whose answer is being worked on reads no further request
// until that answer is written: what the client pipelines meanwhile stays
// in gnet's inbound buffer, so answers leave in the order of the requests.
// gnet closes a connection as soon as it reads EOF, so a client that shuts
// its side while it waits loses the answer, which net/http would still send.
var (
	work       page.Work
	waitInline bool
	poolSize   = 4096
)

// workOnLoop does the work of one request on the loop, CPU alone or all of
// it with -work-wait-inline, and reports true; or reports false for a wait
// to be done off the loop.
func (cs *conn) workOnLoop() bool {
	if work.Wait > 0 && !waitInline {
		return false
	}
	work.Do()
	if work.Wait > 0 {
		// The loop slept: its clock, and so Date and the deadlines, are
		// behind.
		cs.loop.setClock(time.Now())
	}
	return true
}

// job is one request answered off the loop.
type job struct {
	s          *server
	cs         *conn
	head       bool
	connection http1.Connection
}

// run does the work and hands the answer to the connection's loop.
func (j *job) run() {
	work.Do()
	var ck clock // the loop's clock is the loop's: Date is formatted here
	ck.update(time.Now())
	b := http1.AppendResponse(make([]byte, 0, 512), serverName, http1.OK, j.head, j.connection, ck.date[:])
	// An error means the engine has stopped; the callback will not run.
	_ = j.cs.c.AsyncWrite(b, func(gnet.Conn, error) error {
		j.s.answered(j.cs)
		return nil
	})
}

// hold sends cs's request to the pool, to be answered off the loop; cs
// reads nothing more, and has no deadline, until the answer is written.
func (s *server) hold(cs *conn) {
	cs.held = false
	cs.phase = phaseWait
	cs.deadline = math.MaxInt64
	s.pool.Submit((&job{s: s, cs: cs, head: cs.head, connection: cs.connection}).run)
}

// answered runs on cs's loop once the answer from the pool is written, or
// has failed to be because the connection is closed.
func (s *server) answered(cs *conn) {
	if cs.closed { // by the client while it waited, or by gnet on a failed write
		return
	}
	c, l := cs.c, cs.loop
	if cs.connection == http1.ConnClose {
		// As OnTraffic after a last answer: what came after it is dropped.
		rest := c.InboundBuffered()
		_, _ = c.Discard(-1)
		if s.finish(cs, rest) == gnet.Close {
			_ = l.el.Close(c)
		}
		return
	}
	s.setIdle(cs)
	// Requests that came while it waited: gnet will not call OnTraffic for
	// them until more bytes arrive.
	if c.InboundBuffered() > 0 && s.OnTraffic(c) == gnet.Close {
		_ = l.el.Close(c)
	}
}
