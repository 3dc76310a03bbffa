//go:build linux

// Package uringtest is what the tests of io_uring's users share: running a
// test again in a child process, and a seccomp filter that makes a system
// call fail there, as a container's profile refuses io_uring (or a kernel
// lacks a newer call, as epoll_pwait2).
package uringtest

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// InChild reports whether this process is the child running t, as env set
// to 1 says. If not, it runs t in a child with env set and checks that it
// passed.
func InChild(t *testing.T, env string) bool {
	t.Helper()
	if os.Getenv(env) == "1" {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v")
	cmd.Env = append(os.Environ(), env+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if bytes.Contains(out, []byte("--- SKIP")) {
		t.Skipf("child skipped:\n%s", out)
	}
	if !bytes.Contains(out, []byte("--- PASS: "+t.Name())) {
		t.Fatalf("child did not pass:\n%s", out)
	}
	return false
}

// Forbid makes system call nr fail with errno in every thread of the
// process, from now on.
func Forbid(nr uintptr, errno unix.Errno) error {
	return ForbidWhen(nr, -1, 0, errno)
}

// ForbidWhen is Forbid for the calls of nr whose argument arg (0 to 5) has
// val in its low 32 bits (on a little-endian machine); arg -1: every call.
func ForbidWhen(nr uintptr, arg int, val uint32, errno unix.Errno) error {
	const (
		ldAbsW  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeqK    = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		retK    = unix.BPF_RET | unix.BPF_K
		retErr  = 0x00050000 // SECCOMP_RET_ERRNO
		retOK   = 0x7fff0000 // SECCOMP_RET_ALLOW
		setMode = 1          // SECCOMP_SET_MODE_FILTER
		tsync   = 1          // SECCOMP_FILTER_FLAG_TSYNC
	)
	filter := []unix.SockFilter{
		{Code: ldAbsW, K: 0}, // seccomp_data.nr
		{Code: jeqK, Jt: 0, Jf: 1, K: uint32(nr)},
		{Code: retK, K: retErr | uint32(errno)},
		{Code: retK, K: retOK},
	}
	if arg >= 0 {
		filter = []unix.SockFilter{
			{Code: ldAbsW, K: 0},
			{Code: jeqK, Jt: 0, Jf: 3, K: uint32(nr)},
			{Code: ldAbsW, K: 16 + 8*uint32(arg)}, // seccomp_data.args[arg]
			{Code: jeqK, Jt: 0, Jf: 1, K: val},
			{Code: retK, K: retErr | uint32(errno)},
			{Code: retK, K: retOK},
		}
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	if _, _, errno := unix.Syscall(unix.SYS_SECCOMP, setMode, tsync, uintptr(unsafe.Pointer(&prog))); errno != 0 {
		return errno
	}
	return nil
}
