//go:build linux

package loadgen

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A kernel or container that refuses io_uring (Docker's default seccomp
// profile does) must leave the loadgen working on epoll, or, when io_uring
// was asked for by name, failing with a clear error. The test runs itself
// again in a child process that forbids io_uring_setup with a seccomp
// filter, as such a container would.
func TestURingRefused(t *testing.T) {
	if inChild(t, "LOADGEN_FORBID_URING") {
		forbiddenURing(t)
	}
}

// inChild reports whether this process is the child running t, as env set
// to 1 says. If not, it runs t in a child with env set and checks that it
// passed.
func inChild(t *testing.T, env string) bool {
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

func forbiddenURing(t *testing.T) {
	if err := forbid(unix.SYS_IO_URING_SETUP, unix.EPERM); err != nil {
		t.Skipf("cannot install a seccomp filter: %v", err)
	}
	if _, err := newRing(64); !errors.Is(err, errNoURing) || !errors.Is(err, unix.EPERM) {
		t.Fatalf("newRing under the filter: %v, want %v and EPERM", err, errNoURing)
	}
	s := newTestServer(t, nil)
	const n = 500
	r, err := Run(context.Background(), Config{URL: s.url(), Requests: n, Concurrency: 32, KeepAlive: true, Loops: 1, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("Run, engine left to choose: %v", err)
	}
	checkCounts(t, r, n)
	if r.Engine != EngineEpoll || r.Complete != n {
		t.Errorf("engine %s, complete %d; want epoll and %d", r.Engine, r.Complete, n)
	}
	_, err = Run(context.Background(), Config{URL: s.url(), Requests: n, Concurrency: 32, KeepAlive: true, Engine: EngineURing})
	if !errors.Is(err, errNoURing) {
		t.Errorf("Run with io_uring asked for: %v, want %v", err, errNoURing)
	}
}

// forbid makes syscall nr fail with errno in every thread of the process,
// from now on.
func forbid(nr uintptr, errno unix.Errno) error {
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
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	if _, _, errno := unix.Syscall(unix.SYS_SECCOMP, setMode, tsync, uintptr(unsafe.Pointer(&prog))); errno != 0 {
		return errno
	}
	return nil
}
