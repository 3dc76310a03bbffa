//go:build linux

package main

import (
	"hellobench/page"
	"hellobench/servers/internal/http1"
)

// Handler work (-work-cpu, -work-wait: page.Work) on a ring, which must
// never block: one loop serves every connection it owns, so a handler
// that waits on it makes them all wait.
//
//   - CPU work alone is burnt on the loop (serve): on one core it is CPU
//     time wherever it runs, and a goroutine would only add a hand-off.
//   - A wait, with the CPU work before it, runs off the loop on a bounded
//     pool of goroutines (servers/internal/waitpool). The goroutine queues the finished job on its
//     loop and writes the loop's eventfd, which wakes the loop, parked on
//     it in the scheduler (park), which answers (answer, answered).
//
// A connection whose answer is being worked on parses no further request
// until that answer is out: what the client pipelines meanwhile waits in
// its input, so answers leave in the order of the requests.
var (
	work     page.Work
	poolSize = 4096
)

// job is one request answered off the loop, named by its connection's
// slot and generation: the connection may close while it waits.
type job struct {
	l          *loop
	slot       int
	gen        uint32
	head       bool
	connection http1.Connection
}

// run does the work, then queues the job on its loop and wakes the loop,
// which answers (woken, answered).
func (j job) run() {
	work.Do()
	l := j.l
	l.mu.Lock()
	l.answers = append(l.answers, j)
	l.mu.Unlock()
	l.wakeUp()
}

// answered sends the answer to c's held request, on c's loop, and goes on
// with what c sent behind it.
func (l *loop) answered(c *conn, j job) {
	if c.out == nil {
		c.out = l.buf()
	}
	c.out = http1.AppendResponse(c.out, serverName, http1.OK, j.head, j.connection, l.clock.date[:])
	l.markDirty(c)
	if j.connection == http1.ConnClose {
		// As serve after a last answer: what came after it is dropped.
		c.clean = len(c.in) == 0
		l.put(c.in)
		c.in = nil
		c.state = stateFlush
		l.arm(c, &l.idle)
		l.account(c)
		return
	}
	c.used = true
	c.state = stateIdle
	l.arm(c, &l.idle)
	l.account(c)
	switch {
	case !c.paused:
		if len(c.in) > 0 {
			l.serve(c, c.in)
		}
	case c.queued&inStarved == 0 && c.unsent() < resumeAt:
		l.resume(c)
	}
}
