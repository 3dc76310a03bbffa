//go:build linux

package uring

import (
	"errors"
	"os"
	"runtime"
	"testing"
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
