//go:build linux

package uring

import (
	"errors"
	"net"
	"runtime"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"hellobench/internal/uring/uringtest"
)

// ring returns a real ring for t, closed when it ends, on t's thread: the
// ring takes submissions from one thread only.
func ring(t *testing.T) *Ring {
	t.Helper()
	need(t)
	runtime.LockOSThread()
	t.Cleanup(runtime.UnlockOSThread)
	r, err := New(16)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// reap waits until n completions are ready and returns them.
func reap(t *testing.T, r *Ring, n int) []CQE {
	t.Helper()
	var got []CQE
	deadline := time.Now().Add(5 * time.Second)
	for len(got) < n && time.Now().Before(deadline) {
		if err := r.Enter(1, 0, 100*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		head, tail := r.Ready()
		for ; head != tail; head++ {
			got = append(got, *r.Completion(head))
		}
		r.Done(tail)
	}
	if len(got) < n {
		t.Fatalf("%d completions, want %d: %+v", len(got), n, got)
	}
	return got
}

func socketpair(t *testing.T) (a, b int) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fds[0]); unix.Close(fds[1]) })
	return fds[0], fds[1]
}

func get(t *testing.T, r *Ring) *SQE {
	t.Helper()
	s, err := r.Get()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPrepAcceptMultishot: one armed accept completes once per connection,
// with a descriptor, the caller's user data, and CQEMore.
func TestPrepAcceptMultishot(t *testing.T) {
	r := ring(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	f, err := ln.(*net.TCPListener).File()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := get(t, r)
	s.UserData = 42
	s.PrepAcceptMultishot(int(f.Fd()), unix.SOCK_CLOEXEC)
	for range 2 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	for i, q := range reap(t, r, 2) {
		if q.UserData != 42 || q.Res < 0 || q.Flags&CQEMore == 0 {
			t.Errorf("completion %d: %+v, want user data 42, a descriptor, CQEMore", i, q)
		}
		if q.Res >= 0 {
			flags, err := unix.FcntlInt(uintptr(q.Res), unix.F_GETFD, 0)
			if err != nil || flags&unix.FD_CLOEXEC == 0 {
				t.Errorf("accepted descriptor %d: flags %#x, %v; want FD_CLOEXEC", q.Res, flags, err)
			}
			unix.Close(int(q.Res))
		}
	}
}

// TestPrepRecvSend: a send's bytes arrive whole in a buffer the multishot
// receive took from the group, which stays armed.
func TestPrepRecvSend(t *testing.T) {
	r := ring(t)
	br, err := NewBufRing(r, 4, 64)
	if err != nil {
		t.Fatal(err)
	}
	defer br.Close()
	a, b := socketpair(t)
	s := get(t, r)
	s.PrepRecvMultishot(b, BufGroup)
	s.UserData = 1
	msg := []byte("hello, ring")
	s = get(t, r)
	s.UserData = 2
	s.PrepSend(a, msg, unix.MSG_NOSIGNAL)
	var recv, sent bool
	for _, q := range reap(t, r, 2) {
		switch q.UserData {
		case 1:
			recv = true
			if q.Flags&CQEBuffer == 0 || q.Flags&CQEMore == 0 || int(q.Res) != len(msg) {
				t.Fatalf("receive: %+v, want %d bytes in a buffer, CQEMore", q, len(msg))
			}
			if got := string(br.Buf(uint16(q.Flags >> CQEBufferShift))[:q.Res]); got != string(msg) {
				t.Errorf("received %q, want %q", got, msg)
			}
		case 2:
			sent = true
			if int(q.Res) != len(msg) {
				t.Errorf("send: result %d, want %d", q.Res, len(msg))
			}
		}
	}
	if !recv || !sent {
		t.Errorf("receive completed %v, send %v", recv, sent)
	}
}

// TestPrepCancel: a cancel by user data stops that operation (ECANCELED)
// and says so (0); one for none says ENOENT.
func TestPrepCancel(t *testing.T) {
	r := ring(t)
	br, err := NewBufRing(r, 4, 64)
	if err != nil {
		t.Fatal(err)
	}
	defer br.Close()
	_, b := socketpair(t)
	s := get(t, r)
	s.PrepRecvMultishot(b, BufGroup)
	s.UserData = 7
	if err := r.Enter(0, 0, 0); err != nil {
		t.Fatal(err)
	}
	s = get(t, r)
	s.PrepCancel(7)
	s.UserData = 8
	s = get(t, r)
	s.UserData = 9
	s.PrepCancel(1234)
	want := map[uint64]int32{7: -int32(unix.ECANCELED), 8: 0, 9: -int32(unix.ENOENT)}
	for _, q := range reap(t, r, 3) {
		if w, ok := want[q.UserData]; !ok || q.Res != w {
			t.Errorf("completion %+v, want result %d", q, w)
		}
		delete(want, q.UserData)
	}
}

// TestCancelAndClose: every operation on the descriptor is cancelled, then
// the descriptor closed, each completion with the user data given.
func TestCancelAndClose(t *testing.T) {
	r := ring(t)
	br, err := NewBufRing(r, 4, 64)
	if err != nil {
		t.Fatal(err)
	}
	defer br.Close()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[0])
	s := get(t, r)
	s.PrepRecvMultishot(fds[1], BufGroup)
	s.UserData = 1
	if err := r.Enter(0, 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := r.CancelAndClose(fds[1], 2, 3); err != nil {
		t.Fatal(err)
	}
	want := map[uint64]int32{1: -int32(unix.ECANCELED), 2: 1, 3: 0}
	for _, q := range reap(t, r, 3) {
		if w, ok := want[q.UserData]; !ok || q.Res != w {
			t.Errorf("completion %+v, want result %d", q, w)
		}
		delete(want, q.UserData)
	}
	if _, err := unix.FcntlInt(uintptr(fds[1]), unix.F_GETFD, 0); !errors.Is(err, unix.EBADF) {
		t.Errorf("descriptor after the close: %v, want EBADF", err)
	}
}

// TestCancelAndCloseFull: when the SQ cannot take the pair, CancelAndClose
// queues nothing and returns the kernel's EAGAIN.
func TestCancelAndCloseFull(t *testing.T) {
	need(t)
	if !uringtest.InChild(t, "URING_CANCEL_CLOSE_FULL") {
		return
	}
	runtime.LockOSThread()
	r, err := New(4)
	if err != nil {
		t.Fatal(err)
	}
	for range len(r.sqes) - 1 {
		get(t, r).UserData = 100 // NOPs
	}
	if err := uringtest.Forbid(unix.SYS_IO_URING_ENTER, unix.EAGAIN); err != nil {
		t.Skipf("cannot install a seccomp filter: %v", err)
	}
	tail := r.tail
	if err := r.CancelAndClose(5, 1, 2); !errors.Is(err, unix.EAGAIN) {
		t.Fatalf("CancelAndClose on a full SQ: %v, want EAGAIN", err)
	}
	if r.tail != tail {
		t.Errorf("%d entries queued by a failed CancelAndClose, want 0", r.tail-tail)
	}
}

// TestAdaptiveWait: a ring waiting adaptively with nothing to reap hands
// its P back: at GOMAXPROCS=1 a goroutine's 1 ms timer fires on time while
// the ring waits, at the median of 20 waits (one may meet a busy machine).
// A raw wait holds the P until the runtime preempts the thread, 10-20 ms.
func TestAdaptiveWait(t *testing.T) {
	r := ring(t)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	r.Adaptive = true
	var late []time.Duration
	for range 20 {
		r.busy = true // as after a busy turn: the wait begins raw
		fired := make(chan time.Duration, 1)
		start := time.Now()
		time.AfterFunc(time.Millisecond, func() { fired <- time.Since(start) })
		if err := r.Enter(1, 0, 50*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		select {
		case d := <-fired:
			late = append(late, d)
		default:
			late = append(late, time.Since(start)) // not yet: as late as the wait
		}
		if r.busy {
			t.Fatal("busy after a wait that found nothing")
		}
		<-time.After(time.Millisecond)
	}
	slices.Sort(late)
	if med := late[len(late)/2]; med > 5*time.Millisecond {
		t.Errorf("a 1 ms timer fired after %v at the median while the ring waited (%v)", med, late)
	}
}
