//go:build linux

package main

import (
	"errors"
	"fmt"
	"log"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"hellobench/internal/uring"
)

const (
	// maxSlots is how many connections a loop can name: the slot index
	// has 24 bits of an operation's user data.
	maxSlots = 1 << 24
	// probeEvery is how long a connection mid-request may go without a
	// byte before it is asked whether its client is still there
	// (stalledDead).
	probeEvery = time.Second
)

// ringSize is the submission queue's length; the completion queue is twice
// it, and the kernel keeps completions beyond that (NODROP). A variable
// so that a test can make the queue fill.
var ringSize = 4096

// loop is one ring on one thread, with its listening socket and its
// connections.
type loop struct {
	s     *server
	r     *uring.Ring
	br    *uring.BufRing
	lfd   int
	wake  int    // eventfd: answers from the pool, and the drain
	woke  []byte // its read's 8 bytes, on the heap, which the kernel writes
	now   time.Duration
	clock clock
	gen   uint32 // the last connection's generation, and a count of them

	// parking: the loop waits for its eventfd in the Go scheduler, not in
	// the ring, and the ring signals the eventfd too (park); wakeFile is
	// the eventfd through the netpoller.
	parking  bool
	wakeFile *os.File

	conns   []*conn   // by slot; a conn keeps its slot for good
	free    []*conn   // slots not in use
	live    []*conn   // open, for the drain
	dirty   []ref     // with answers to send after this batch (flush)
	starved []ref     // paused for the loop's budget (maxHeld), not their own
	hungry  []ref     // waiting for a receive to be armed (feed)
	closing int       // closing: their last operation not yet completed
	held    int       // bytes the connections hold: input kept, answers unsent
	bufs    [][]byte  // free input and output buffers, lent while in use
	backlog []pending // operations the submission queue could not take
	delayed int       // operations that went to the backlog, in all

	request, idle, linger tlist // the timeout classes (timer.go)
	stalled               tlist // mid-request, for the probe (stalledDead)

	accepting bool          // the multishot accept is armed
	listening bool          // the listening socket is open
	acceptAt  time.Duration // when to arm the accept again after an error
	backoff   time.Duration // the wait before that, doubled per error
	acceptErr unix.Errno    // the accept error last logged
	acceptLog time.Duration // when
	drainFrom time.Duration // when the drain began; -1: not draining

	mu      sync.Mutex
	answers []job // from the pool, for woken
}

func newLoop(s *server, lfd int) *loop {
	l := &loop{s: s, lfd: lfd, listening: true, drainFrom: -1}
	l.request.d, l.idle.d, l.linger.d = s.headerTimeout, s.idleTimeout, linger
	l.stalled.d, l.stalled.probe = probeEvery, true
	return l
}

// setup makes the wake-up eventfd, the ring and its buffers, on the thread
// that will run the loop.
//
// With handler waits (work.go) the pool's goroutines and the timers that
// end the waits need the P whenever the loop has nothing to do, at once:
// the loop parks in the Go scheduler (park). A wait in the ring would
// keep the P until the runtime's monitor retook it, up to 10 ms on. The
// minimum wait is the ring's own, so -min-wait keeps the ring's wait.
func (l *loop) setup() error {
	l.parking = work.Wait > 0 && l.s.minWait == 0
	flags := unix.EFD_CLOEXEC
	if l.parking {
		flags |= unix.EFD_NONBLOCK // read through the netpoller, not by the ring
	}
	var err error
	if l.wake, err = unix.Eventfd(0, flags); err != nil {
		return fmt.Errorf("eventfd: %w", err)
	}
	if l.parking {
		l.r, err = uring.NewEventfd(ringSize, l.wake)
	} else {
		l.r, err = uring.New(ringSize)
	}
	if err != nil {
		unix.Close(l.wake)
		return err
	}
	if l.s.minWait > 0 && !l.r.MinWait() {
		l.r.Close()
		unix.Close(l.wake)
		return fmt.Errorf("-min-wait %v: this kernel has no minimum wait for io_uring (6.12 or later has)", l.s.minWait)
	}
	// Raw waits while completions keep coming; a wait that finds none
	// hands the P back, when the runtime's monitor next looks.
	l.r.Adaptive = true
	if l.br, err = uring.NewBufRing(l.r, bufCount, bufSize); err != nil {
		l.r.Close()
		unix.Close(l.wake)
		return err
	}
	if l.parking {
		l.wakeFile = os.NewFile(uintptr(l.wake), "eventfd")
	}
	l.woke = make([]byte, 8)
	l.setClock(time.Now())
	return nil
}

// run handles completions until the drain ends. Each turn waits for at
// least one, or the next deadline, handles every one ready, then sends
// what they answered: one io_uring_enter per batch submits the sends and
// waits for the next.
func (l *loop) run() error {
	l.accept()
	if !l.parking {
		l.readWake()
	}
	for {
		if err := l.wait(); err != nil &&
			!errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EBUSY) {
			return err // EAGAIN, EBUSY: nothing taken for now; reap, then again
		}
		l.setClock(time.Now())
		head, tail := l.r.Ready()
		for ; head != tail; head++ {
			q := *l.r.Completion(head)
			l.r.Done(head + 1) // its slot is free: handling it may submit
			l.complete(q)
		}
		if l.parking {
			l.answer() // the eventfd, not a completion, said so
		}
		l.endBatch()
		l.timers()
		if l.s.draining.Load() && l.drain() {
			l.exit()
			return nil
		}
	}
}

// endBatch is what follows a batch of completions: the receive buffers
// handed back to the kernel, the backlog queued again, receives armed,
// answers sent.
func (l *loop) endBatch() {
	l.br.Publish()
	l.retry()
	l.feed()
	l.flush()
}

// wait submits what is queued and waits for a completion, a wake-up or the
// next deadline.
func (l *loop) wait() error {
	d := max(l.wakeAt()-l.now, time.Microsecond)
	if l.parking {
		return l.park(d)
	}
	want := 1
	if l.s.minWait > 0 {
		want = l.r.CQSize() // as many as come within the minimum wait
	}
	return l.r.Enter(want, l.s.minWait, d)
}

// park submits what is queued and, when there is nothing to reap, parks
// the loop's goroutine on the wake-up eventfd through the netpoller, so
// the P runs the pool's goroutines and timers, until the ring posts a
// completion, the pool answers, the drain begins or d passes. The ring
// posts completions, and signals the eventfd, whenever the loop's thread
// leaves the kernel or wakes (uring.NewEventfd). A signal after the look
// at the completion queue stays in the eventfd's counter, and the read
// returns at once: no wake-up is lost. A signal for completions already
// reaped (a send that completed as it was submitted) only costs a look.
func (l *loop) park(d time.Duration) error {
	until := time.Now().Add(d)
	for {
		if err := l.r.Enter(0, 0, 0); err != nil {
			return err
		}
		if head, tail := l.r.Ready(); head != tail || l.waiting() {
			return nil
		}
		if err := l.wakeFile.SetReadDeadline(until); err != nil {
			return err
		}
		if _, err := l.wakeFile.Read(l.woke); err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return nil
			}
			return err
		}
	}
}

// waiting reports whether answers from the pool, or the drain's start,
// wait for the loop. (Once begun, the drain sets wakeAt.)
func (l *loop) waiting() bool {
	if l.drainFrom < 0 && l.s.draining.Load() {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.answers) > 0
}

// timers closes the connections past their deadline, probes those
// stalled mid-request, and arms the accept again after an error.
func (l *loop) timers() {
	l.expire()
	l.probe()
	if !l.accepting && l.listening && l.now >= l.acceptAt {
		l.accept()
	}
	l.s.limit.Report(l.s.start.Add(l.now))
}

// exit logs the connections whose operations had not all completed when
// the drain ended: their slots were never released.
func (l *loop) exit() {
	if n := l.slotsHeld(); n > 0 {
		log.Printf("uring: exiting with %d connection slots held (%d closing)", n, l.closing)
	}
}

// slotsHeld is how many slots are in use: open or closing connections.
func (l *loop) slotsHeld() int { return len(l.conns) - len(l.free) }

func (l *loop) setClock(now time.Time) {
	l.now = now.Sub(l.s.start)
	l.clock.update(now)
}
