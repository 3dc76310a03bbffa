//go:build linux

package main

import (
	"net"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestListenDualStack: an address with no host listens on IPv6 and IPv4
// alike, as net.Listen("tcp", ":port") does: a client of either family
// connects.
func TestListenDualStack(t *testing.T) {
	if ln, err := net.Listen("tcp6", "[::1]:0"); err != nil {
		t.Skipf("no IPv6 loopback here: %v", err)
	} else {
		ln.Close()
	}
	for _, addr := range []string{":0", "0.0.0.0:0", "[::]:0"} {
		fd, err := listen(addr)
		if err != nil {
			t.Fatalf("listen %s: %v", addr, err)
		}
		sa, err := unix.Getsockname(fd)
		if err != nil {
			t.Fatal(err)
		}
		a, ok := sa.(*unix.SockaddrInet6)
		if !ok {
			t.Fatalf("listen %s: bound to %T, want an IPv6 address", addr, sa)
		}
		port := strconv.Itoa(a.Port)
		for _, to := range []string{"127.0.0.1:" + port, "[::1]:" + port} {
			c, err := net.DialTimeout("tcp", to, 2*time.Second)
			if err != nil {
				t.Errorf("listen %s: dial %s: %v", addr, to, err)
				continue
			}
			c.Close()
		}
		unix.Close(fd)
	}
}
