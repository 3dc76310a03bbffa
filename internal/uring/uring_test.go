//go:build linux

package uring

import (
	"errors"
	"os"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"hellobench/internal/uring/uringtest"
)

// need skips t on a kernel without io_uring, or fails it when every
// component is required.
func need(t *testing.T) {
	t.Helper()
	r, err := New(8)
	if err == nil {
		r.Close()
		return
	}
	if os.Getenv("HELLOBENCH_REQUIRE_TOOLS") == "1" {
		t.Fatalf("io_uring: %v, but HELLOBENCH_REQUIRE_TOOLS=1", err)
	}
	t.Skipf("io_uring: %v", err)
}

// When the SQ is full and the kernel takes none of it (io_uring_enter
// failing with EAGAIN or EBUSY, made to here by a seccomp filter), get
// fails rather than hand out the slot of an entry not yet submitted.
func TestSQFull(t *testing.T) {
	need(t)
	if !uringtest.InChild(t, "URING_SQ_FULL") {
		return
	}
	runtime.LockOSThread()
	r, err := New(4)
	if err != nil {
		t.Fatal(err)
	}
	for i := range len(r.sqes) {
		s, err := r.Get()
		if err != nil {
			t.Fatal(err)
		}
		s.UserData = uint64(100 + i) // a NOP, opcode 0
	}
	if err := uringtest.Forbid(unix.SYS_IO_URING_ENTER, unix.EAGAIN); err != nil {
		t.Skipf("cannot install a seccomp filter: %v", err)
	}
	s, err := r.Get()
	if err == nil {
		t.Fatalf("get on a full SQ the kernel refused returned slot %d", (uintptr(unsafe.Pointer(s))-uintptr(unsafe.Pointer(&r.sqes[0])))/unsafe.Sizeof(*s))
	}
	if !errors.Is(err, unix.EAGAIN) {
		t.Errorf("error %v, want EAGAIN", err)
	}
	for i := range r.sqes {
		if got := r.sqes[i].UserData; got != uint64(100+i) {
			t.Errorf("entry %d: user data %d, want %d", i, got, 100+i)
		}
	}
	if q := r.tail - *r.sqHead; q != uint32(len(r.sqes)) {
		t.Errorf("%d entries queued, want %d", q, len(r.sqes))
	}
}

// TestEventfd: a NewEventfd ring posts a receive's completion, and signals
// its eventfd, while its thread waits in the Go scheduler, not in the
// ring: the completion is in the queue when the eventfd's read through
// the netpoller returns, with no Enter since the receive was submitted. A
// deferred ring (New) would post it only at its thread's next Enter.
func TestEventfd(t *testing.T) {
	need(t)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		t.Fatal(err)
	}
	f := os.NewFile(uintptr(efd), "eventfd")
	defer f.Close()
	r, err := NewEventfd(8, efd)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	buf := make([]byte, 16)
	s, err := r.Get()
	if err != nil {
		t.Fatal(err)
	}
	s.Opcode, s.Fd, s.Len, s.UserData = OpRecv, int32(fds[0]), uint32(len(buf)), 7
	s.Addr = uint64(uintptr(unsafe.Pointer(&buf[0])))
	if err := r.Enter(0, 0, 0); err != nil {
		t.Fatal(err)
	}
	if head, tail := r.Ready(); head != tail {
		t.Fatalf("%d completions before anything was sent", tail-head)
	}
	go func() {
		time.Sleep(time.Millisecond)
		unix.Write(fds[1], []byte("hello"))
	}()
	f.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := f.Read(make([]byte, 8)); err != nil {
		t.Fatalf("eventfd: %v", err)
	}
	head, tail := r.Ready()
	if tail-head != 1 {
		t.Fatalf("%d completions when the eventfd was signalled, want 1", tail-head)
	}
	if q := *r.Completion(head); q.UserData != 7 || q.Res != 5 || string(buf[:5]) != "hello" {
		t.Errorf("completion %+v, %q received; want user data 7, 5 bytes, hello", q, buf[:5])
	}
	runtime.KeepAlive(buf)
}
