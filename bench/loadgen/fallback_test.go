//go:build linux

package loadgen

import (
	"context"
	"errors"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"hellobench/internal/uring"
	"hellobench/internal/uring/uringtest"
)

// A kernel or container that refuses io_uring (Docker's default seccomp
// profile does) must leave the loadgen working on epoll, or, when io_uring
// was asked for by name, failing with a clear error. The test runs itself
// again in a child process that forbids io_uring_setup with a seccomp
// filter, as such a container would.
func TestURingRefused(t *testing.T) {
	if uringtest.InChild(t, "LOADGEN_FORBID_URING") {
		forbiddenURing(t)
	}
}

func forbiddenURing(t *testing.T) {
	if err := uringtest.Forbid(unix.SYS_IO_URING_SETUP, unix.EPERM); err != nil {
		t.Skipf("cannot install a seccomp filter: %v", err)
	}
	if _, err := uring.New(64); !errors.Is(err, uring.ErrUnavailable) || !errors.Is(err, unix.EPERM) {
		t.Fatalf("uring.New under the filter: %v, want %v and EPERM", err, uring.ErrUnavailable)
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
	if !errors.Is(err, uring.ErrUnavailable) {
		t.Errorf("Run with io_uring asked for: %v, want %v", err, uring.ErrUnavailable)
	}
}
