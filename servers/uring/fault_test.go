//go:build linux

package main

import (
	"bytes"
	"errors"
	"math"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"hellobench/internal/uring"
	"hellobench/internal/uring/uringtest"
	"hellobench/servers/internal/http1"
)

// These tests drive a loop by hand, one batch at a time, on a real ring:
// the test opens the connections (the loop's open, as an accept would),
// over socket pairs whose server end is the connection's descriptor, and
// can hold a completion back to hand it to the dispatch (complete) later,
// in an order the kernel allows but a test run would meet only by chance.

// manualLoop sets up a loop on the calling goroutine's thread, which the
// test must keep (runtime.LockOSThread): the ring takes one issuer.
func manualLoop(t *testing.T, headerTimeout, idleTimeout time.Duration) *loop {
	t.Helper()
	if r, err := uring.New(8); err != nil {
		t.Skipf("%v", err)
	} else {
		r.Close()
	}
	l := newLoop(newServer(headerTimeout, idleTimeout), -1)
	l.listening = false
	if err := l.setup(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		l.br.Close()
		l.r.Close()
		unix.Close(l.wake)
	})
	return l
}

// turn submits what is queued, waits up to d for a completion, and runs
// one batch as the loop does, but for the completions hold picks: those it
// returns, not handled.
func turn(t *testing.T, l *loop, d time.Duration, hold func(uring.CQE) bool) []uring.CQE {
	t.Helper()
	if err := l.r.Enter(1, 0, d); err != nil && !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EBUSY) {
		t.Fatal(err)
	}
	var held []uring.CQE
	head, tail := l.r.Ready()
	for ; head != tail; head++ {
		q := *l.r.Completion(head)
		l.r.Done(head + 1)
		if hold != nil && hold(q) {
			held = append(held, q)
			continue
		}
		l.complete(q)
	}
	l.endBatch()
	return held
}

// pair returns a connected pair of stream sockets: the server's end, to
// open, and the client's, non-blocking.
func pair(t *testing.T) (srv, cli int) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.SetNonblock(fds[1], true); err != nil {
		t.Fatal(err)
	}
	return fds[0], fds[1]
}

// openConn opens fd on l and returns its connection.
func openConn(t *testing.T, l *loop, fd int) *conn {
	t.Helper()
	if !l.s.limit.Acquire() { // as accepted does
		t.Fatal("the open-file limit refused a connection")
	}
	l.open(fd)
	for _, c := range l.live {
		if c.fd == fd {
			return c
		}
	}
	t.Fatalf("descriptor %d: no open connection", fd)
	return nil
}

// clientRead turns l until cli has read want bytes, or EOF if eof, and
// returns what it read, failing at more than want.
func clientRead(t *testing.T, l *loop, cli, want int, eof bool) []byte {
	t.Helper()
	var got []byte
	buf := make([]byte, 64<<10)
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); {
		n, err := unix.Read(cli, buf)
		switch {
		case n > 0:
			got = append(got, buf[:n]...)
			continue
		case n == 0 && err == nil: // EOF
			return got
		case err != unix.EAGAIN:
			t.Fatalf("client read: %v after %q", err, got)
		}
		if len(got) >= want && !eof {
			return got
		}
		turn(t, l, time.Millisecond, nil)
	}
	t.Fatalf("client read %d bytes in 5 s, want %d (eof %v): %q", len(got), want, eof, got)
	return nil
}

func write(t *testing.T, fd int, b []byte) {
	t.Helper()
	if n, err := unix.Write(fd, b); err != nil || n != len(b) {
		t.Fatalf("write: %d of %d bytes: %v", n, len(b), err)
	}
}

// neverReads opens a connection whose client has pipelined far more than
// the answers' pause bound and never reads: the server's end of the socket
// is full before the first answer, so that answer's send blocks. It
// returns the connection once its send is in flight.
func neverReads(t *testing.T, l *loop) (c *conn, cli int) {
	t.Helper()
	srv, cli := pair(t)
	unix.SetNonblock(srv, true)
	for {
		if _, err := unix.Write(srv, make([]byte, 64<<10)); err == unix.EAGAIN {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	c = openConn(t, l, srv)
	write(t, cli, bytes.Repeat([]byte(get), 100))
	for end := time.Now().Add(5 * time.Second); c.wire == nil; {
		if time.Now().After(end) {
			t.Fatal("no send in flight after 5 s")
		}
		turn(t, l, time.Millisecond, nil)
	}
	return c, cli
}

// timeOut closes c at its idle timeout, with its send in flight, and turns
// l until c's descriptor is closed, holding back the send's completion.
func timeOut(t *testing.T, l *loop, c *conn) uring.CQE {
	t.Helper()
	fd := c.fd
	send := userData(opSend, c.slot, c.gen)
	l.now += l.s.idleTimeout + l.s.headerTimeout
	l.expire()
	var held []uring.CQE
	for end := time.Now().Add(5 * time.Second); ; {
		held = append(held, turn(t, l, time.Millisecond, func(q uring.CQE) bool { return q.UserData == send })...)
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == unix.EBADF && len(held) == 1 {
			return held[0]
		}
		if time.Now().After(end) {
			t.Fatalf("after 5 s: descriptor %d still open, or %d sends completed, want 1", fd, len(held))
		}
	}
}

// TestClosedSendStaysItsOwn: a client that never reads has its answers'
// send blocked when the idle timeout closes its connection; its descriptor
// closes, and a new client gets the same descriptor number. Only then
// does the blocked send complete, short, as a cancelled send with
// MSG_WAITALL reports what it had sent. The new client must receive the
// answers to its own requests, byte for byte, and nothing else: the rest
// of the closed connection's answers must not be sent on the descriptor
// it once had.
func TestClosedSendStaysItsOwn(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	l := manualLoop(t, 10*time.Second, 60*time.Second)
	date := l.clock.date[:]
	keep := http1.AppendResponse(nil, serverName, http1.OK, false, http1.ConnNone, date)
	last := http1.AppendResponse(nil, serverName, http1.OK, false, http1.ConnClose, date)
	for i := range 50 {
		a, acli := neverReads(t, l)
		fd := a.fd
		q := timeOut(t, l, a)
		if q.Res <= 0 || int(q.Res) >= len(a.wire) {
			q.Res = 1000 // short: what the send had sent before its cancel
		}

		srv, cli := pair(t)
		if srv != fd {
			t.Fatalf("round %d: the new client has descriptor %d, want %d, the closed one's", i, srv, fd)
		}
		b := openConn(t, l, srv)
		write(t, cli, []byte(get))
		got := clientRead(t, l, cli, len(keep), false)
		l.complete(q) // the closed connection's send completes now
		for range 3 {
			turn(t, l, time.Millisecond, nil)
		}
		write(t, cli, []byte("GET /hello/world HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"))
		got = append(got, clientRead(t, l, cli, len(keep)+len(last), true)...)
		if want := append(append([]byte(nil), keep...), last...); !bytes.Equal(got, want) {
			t.Fatalf("round %d: the new client (slot %d) received %d bytes, want its own %d; from byte %d: %.200q", i, b.slot, len(got), len(want), len(keep), got[min(len(keep), len(got)):])
		}
		unix.Close(cli)
		unix.Close(acli)
	}
	for end := time.Now().Add(5 * time.Second); l.slotsHeld() > 0 && time.Now().Before(end); {
		turn(t, l, time.Millisecond, nil)
	}
	if n := l.slotsHeld(); n != 0 {
		t.Errorf("%d slots held once every connection closed", n)
	}
}

// TestExpireAfterClosedSend: the same closed connection's send completes
// whole instead, with its client's next requests waiting while it was
// paused. The completion must not serve them, nor put the closed
// connection back on a timeout list, where expire, which closes the head
// of each list until none is due, would find it every time.
func TestExpireAfterClosedSend(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	l := manualLoop(t, 10*time.Second, 60*time.Second)
	a, acli := neverReads(t, l)
	defer unix.Close(acli)
	n := len(a.wire)
	q := timeOut(t, l, a)
	q.Res = int32(n)
	l.complete(q)
	l.now += l.s.idleTimeout + l.s.headerTimeout
	done := make(chan struct{})
	go func() {
		l.expire()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("expire still running after 2 s: a closed connection is on a timeout list")
	}
	for end := time.Now().Add(5 * time.Second); l.slotsHeld() > 0 && time.Now().Before(end); {
		turn(t, l, time.Millisecond, nil)
	}
	if h := l.slotsHeld(); h != 0 {
		t.Errorf("%d slots held after the closed connection's last completion", h)
	}
}

// TestGenerationWraps starts the generation counter two short of its
// maximum: the connections opened across the wrap get generations other
// than 0, the mark of a free slot, and are served.
func TestGenerationWraps(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	l := manualLoop(t, 10*time.Second, 60*time.Second)
	l.gen = math.MaxUint32 - 1
	want := http1.AppendResponse(nil, serverName, http1.OK, false, http1.ConnClose, l.clock.date[:])
	seen := map[uint32]bool{}
	for i := range 4 {
		srv, cli := pair(t)
		c := openConn(t, l, srv)
		if c.gen == 0 || seen[c.gen] {
			t.Fatalf("connection %d: generation %d, after %v", i, c.gen, seen)
		}
		seen[c.gen] = true
		write(t, cli, []byte("GET /hello/world HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"))
		if got := clientRead(t, l, cli, len(want), true); !bytes.Equal(got, want) {
			t.Fatalf("connection %d (generation %d): %q, want %q", i, c.gen, got, want)
		}
		unix.Close(cli)
	}
	for end := time.Now().Add(5 * time.Second); l.slotsHeld() > 0 && time.Now().Before(end); {
		turn(t, l, time.Millisecond, nil)
	}
	if h := l.slotsHeld(); h != 0 {
		t.Errorf("%d slots held once every connection closed", h)
	}
}

// TestNoBuffersManyConns runs 192 connections on 8 receive buffers and a
// submission queue of 64, in a child process where an io_uring_enter that
// only submits (a full queue making room) fails with EAGAIN, so that a
// batch needing more entries than the queue holds shows as operations
// sent to the backlog. Each client sends a request at once, three times
// over: all but a few of the receives end with ENOBUFS. Every client gets
// its answers byte for byte, and no batch overflows the queue: the loop
// arms receives again at most as many a batch as there are buffers.
func TestNoBuffersManyConns(t *testing.T) {
	if r, err := uring.New(8); err != nil {
		t.Skipf("%v", err)
	} else {
		r.Close()
	}
	if !uringtest.InChild(t, "URING_NOBUFS_CHILD") {
		return
	}
	if err := uringtest.ForbidWhen(unix.SYS_IO_URING_ENTER, 2, 0, unix.EAGAIN); err != nil {
		t.Skipf("no seccomp filter here: %v", err)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	savedRing, savedBufs := ringSize, bufCount
	ringSize, bufCount = 64, 8
	defer func() { ringSize, bufCount = savedRing, savedBufs }()
	l := manualLoop(t, 10*time.Second, 60*time.Second)
	const conns = 192 // a multiple of 16, opened 16 a batch
	var clients []int
	for len(clients) < conns {
		for range 16 {
			srv, cli := pair(t)
			openConn(t, l, srv)
			clients = append(clients, cli)
		}
		turn(t, l, time.Millisecond, nil)
	}
	for range 20 {
		turn(t, l, time.Millisecond, nil)
	}
	delayed := l.delayed
	want := http1.AppendResponse(nil, serverName, http1.OK, false, http1.ConnNone, l.clock.date[:])
	for round := range 3 {
		for _, cli := range clients {
			write(t, cli, []byte(get))
		}
		got := make([][]byte, conns)
		buf := make([]byte, 4<<10)
		for end, done := time.Now().Add(10*time.Second), 0; done < conns; {
			if time.Now().After(end) {
				t.Fatalf("round %d: %d of %d clients answered in 10 s", round, done, conns)
			}
			turn(t, l, time.Millisecond, nil)
			done = 0
			for i, cli := range clients {
				if n, _ := unix.Read(cli, buf); n > 0 {
					got[i] = append(got[i], buf[:n]...)
				}
				if len(got[i]) >= len(want) {
					done++
				}
			}
		}
		for i := range clients {
			if !bytes.Equal(got[i], want) {
				t.Fatalf("round %d, client %d: %q, want %q", round, i, got[i], want)
			}
		}
	}
	if d := l.delayed - delayed; d > 0 {
		t.Errorf("%d operations went to the backlog: a batch took more entries than the queue's %d", d, ringSize)
	}
	for _, cli := range clients {
		unix.Close(cli)
	}
}

// TestLimitCountsClosing: the open-file limit counts a connection until
// its close has completed, not until it was asked for: a descriptor is
// held until then.
func TestLimitCountsClosing(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	l := manualLoop(t, 10*time.Second, 60*time.Second)
	srv, cli := pair(t)
	defer unix.Close(cli)
	c := openConn(t, l, srv)
	turn(t, l, time.Millisecond, nil)
	l.close(c)
	if n := l.s.limit.Open(); n != 1 {
		t.Fatalf("%d connections counted once the close was asked for, want 1 until it completes", n)
	}
	for end := time.Now().Add(5 * time.Second); l.slotsHeld() > 0 && time.Now().Before(end); {
		turn(t, l, time.Millisecond, nil)
	}
	if _, err := unix.FcntlInt(uintptr(srv), unix.F_GETFD, 0); err != unix.EBADF {
		t.Fatalf("descriptor %d still open after the close completed: %v", srv, err)
	}
	if n := l.s.limit.Open(); n != 0 {
		t.Errorf("%d connections counted once the close completed, want 0", n)
	}
}
