//go:build linux

package main

import "time"

// A tlist holds the connections under one timeout class, in the order
// their clocks started. Every class has one duration, so that order is
// their deadlines' order: a renewal moves a connection to the tail, and the
// expired ones are at the head. The loop sleeps until the earliest head.
// A connection is on one timeout list at most, through conn.timer, and on
// the stalled-request probe's list or not, through conn.probe.
type tlist struct {
	d          time.Duration
	probe      bool // links through conn.probe, not conn.timer
	head, tail *conn
}

// link is a connection's place on a tlist.
type link struct {
	tl         *tlist // nil: on none
	prev, next *conn
	deadline   time.Duration // loop time
}

func (t *tlist) link(c *conn) *link {
	if t.probe {
		return &c.probe
	}
	return &c.timer
}

// arm starts c's clock on t, now, taking c off any list of t's kind. A
// closing connection is on none: close has taken it off, and only settle
// frees it.
func (l *loop) arm(c *conn, t *tlist) {
	if c.state == stateClosing || c.state == stateFree {
		return
	}
	k := t.link(c)
	unlink(c, k)
	k.tl, k.prev, k.deadline = t, t.tail, l.now+t.d
	if t.tail != nil {
		t.link(t.tail).next = c
	} else {
		t.head = c
	}
	t.tail = c
}

// unlink takes c off the list k places it on, if any.
func unlink(c *conn, k *link) {
	t := k.tl
	if t == nil {
		return
	}
	if k.prev != nil {
		t.link(k.prev).next = k.next
	} else {
		t.head = k.next
	}
	if k.next != nil {
		t.link(k.next).prev = k.prev
	} else {
		t.tail = k.prev
	}
	*k = link{}
}

// disarm stops c's clock: no timeout until it is armed again.
func (l *loop) disarm(c *conn) { unlink(c, &c.timer) }

// expire closes the connections past their deadline. close takes each
// off its list, so the head moves on.
func (l *loop) expire() {
	for _, t := range l.lists() {
		for t.head != nil && t.head.timer.deadline <= l.now {
			l.close(t.head)
		}
	}
}

func (l *loop) lists() [3]*tlist { return [3]*tlist{&l.request, &l.idle, &l.linger} }

// wakeAt returns when the loop must next wake with nothing to reap: the
// earliest deadline, the next probe of a stalled request, the accept's
// retry, the next report of refused connections, the drain's next step.
func (l *loop) wakeAt() time.Duration {
	at := l.now + time.Hour
	for _, t := range l.lists() {
		if t.head != nil {
			at = min(at, t.head.timer.deadline)
		}
	}
	if l.stalled.head != nil {
		at = min(at, l.stalled.head.probe.deadline)
	}
	if !l.accepting && l.listening {
		at = min(at, l.acceptAt)
	}
	if l.s.limit.Refused() > 0 {
		at = min(at, l.now+time.Second)
	}
	if l.drainFrom >= 0 {
		at = min(at, l.now+10*time.Millisecond)
	}
	if len(l.backlog) > 0 || len(l.hungry) > 0 {
		at = min(at, l.now+time.Millisecond)
	}
	return at
}
