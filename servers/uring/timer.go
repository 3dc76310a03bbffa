//go:build linux

package main

import "time"

// A tlist holds the connections under one timeout class, in the order
// their clocks started. Every class has one duration, so that order is
// their deadlines' order: a renewal moves a connection to the tail, and the
// expired ones are at the head. The loop sleeps until the earliest head.
type tlist struct {
	d          time.Duration
	head, tail *conn
}

// arm starts c's clock on t, now, taking c off any list it was on.
func (l *loop) arm(c *conn, t *tlist) {
	l.disarm(c)
	c.deadline = l.now + t.d
	c.tl, c.prev = t, t.tail
	if t.tail != nil {
		t.tail.next = c
	} else {
		t.head = c
	}
	t.tail = c
}

// disarm stops c's clock: no timeout until it is armed again.
func (l *loop) disarm(c *conn) {
	t := c.tl
	if t == nil {
		return
	}
	if c.prev != nil {
		c.prev.next = c.next
	} else {
		t.head = c.next
	}
	if c.next != nil {
		c.next.prev = c.prev
	} else {
		t.tail = c.prev
	}
	c.tl, c.prev, c.next = nil, nil, nil
}

// expire closes the connections past their deadline.
func (l *loop) expire() {
	for _, t := range l.lists() {
		for t.head != nil && t.head.deadline <= l.now {
			l.close(t.head)
		}
	}
}

func (l *loop) lists() [3]*tlist { return [3]*tlist{&l.request, &l.idle, &l.linger} }

// wakeAt returns when the loop must next wake with nothing to reap: the
// earliest deadline, the next probe of stalled requests, the accept's
// retry, the next report of refused connections, the drain's next step.
func (l *loop) wakeAt() time.Duration {
	at := l.now + time.Hour
	for _, t := range l.lists() {
		if t.head != nil {
			at = min(at, t.head.deadline)
		}
	}
	if l.request.head != nil {
		at = min(at, l.probeAt)
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
	if len(l.backlog) > 0 {
		at = min(at, l.now+time.Millisecond)
	}
	return at
}
