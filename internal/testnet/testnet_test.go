package testnet

import (
	"context"
	"errors"
	"net"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// reusePort listens on addr with SO_REUSEPORT, as gnet's event loops and
// fasthttp's prefork children do.
func reusePort(addr string) (net.Listener, error) {
	lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		var err error
		c.Control(func(fd uintptr) {
			err = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_REUSEPORT, 1)
		})
		return err
	}}
	return lc.Listen(context.Background(), "tcp", addr)
}

// refused fails t unless a connect to addr is refused.
func refused(t *testing.T, addr string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err == nil {
		c.Close()
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("dial %s: %v, want ECONNREFUSED", addr, err)
	}
}

// taken fails t unless binding addr, with listen or on its own, fails
// with EADDRINUSE.
func taken(t *testing.T, addr string, listen func(string) (net.Listener, error), how string) {
	t.Helper()
	ln, err := listen(addr)
	if err == nil {
		ln.Close()
	}
	if !errors.Is(err, syscall.EADDRINUSE) {
		t.Errorf("%s on %s while held: %v, want EADDRINUSE", how, addr, err)
	}
}

// released fails t unless addr can be listened on again.
func released(t *testing.T, addr string) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen on %s after the test that held it: %v", addr, err)
	}
	ln.Close()
}

func plain(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }

// TestRefusing holds a port: connects are refused, no bind takes it, with
// SO_REUSEADDR (as Go's listeners set it) or SO_REUSEPORT; a child started
// meanwhile does not inherit it, and it is free once the test has ended.
func TestRefusing(t *testing.T) {
	var addr string
	sleep := exec.Command("sleep", "30")
	t.Run("held", func(t *testing.T) {
		addr = Refusing(t)
		refused(t, addr)
		taken(t, addr, plain, "listen")
		taken(t, addr, reusePort, "listen with SO_REUSEPORT")
		refused(t, addr) // still, after the failed binds
		if err := sleep.Start(); err != nil {
			t.Fatal(err)
		}
	})
	defer func() {
		sleep.Process.Kill()
		sleep.Wait()
	}()
	released(t, addr)
}

// TestReusePort holds a port with SO_REUSEPORT: a listener with the option
// too serves on it, a plain one cannot take it, and connects are refused
// before and after that listener.
func TestReusePort(t *testing.T) {
	var addr string
	t.Run("held", func(t *testing.T) {
		addr = ReusePort(t)
		refused(t, addr)
		taken(t, addr, plain, "listen")
		ln, err := reusePort(addr)
		if err != nil {
			t.Fatalf("listen with SO_REUSEPORT beside the held port: %v", err)
		}
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			ln.Close()
			t.Fatalf("dial the listener beside the held port: %v", err)
		}
		c.Close()
		s, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		ln.Close()
		refused(t, addr)
		taken(t, addr, plain, "listen, after the listener closed,")
	})
	released(t, addr)
}
