// Package testnet holds loopback ports for tests. A port found free by
// listening on port 0 and closing the listener is free only until the next
// bind of port 0, by any test of any package running beside it, which the
// kernel may give that very port: a test then meant to be refused is
// answered by another test's server, and that server counts requests it
// was never sent. A held port stays the test's until the test ends.
//
// A held port is a socket bound to it and never listening: a connect to it
// is refused (ECONNREFUSED), and a bind of it, or of port 0, elsewhere
// cannot take it.
package testnet

import (
	"net"
	"strconv"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// Refusing returns the address, 127.0.0.1:port, of a loopback port held
// until t and its subtests have ended: every connect to it is refused.
func Refusing(t testing.TB) string {
	t.Helper()
	return hold(t, false)
}

// ReusePort returns the address of a loopback port held as Refusing holds
// it, but with SO_REUSEPORT, for a server the test starts on it that binds
// with SO_REUSEPORT too (gnet's event loops, fasthttp's prefork children):
// such a server of the same user binds and listens beside the held socket,
// while a bind without the option, which any bind of port 0 is, cannot
// take the port. Before the server listens and once it has closed its
// listeners, a connect is refused.
func ReusePort(t testing.TB) string {
	t.Helper()
	return hold(t, true)
}

func hold(t testing.TB, reusePort bool) string {
	t.Helper()
	// Close-on-exec, set under ForkLock: a server the test starts must
	// not inherit the port and keep it held after the test.
	syscall.ForkLock.RLock()
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	if err == nil {
		unix.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		t.Fatalf("testnet: socket: %v", err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	// No SO_REUSEADDR: with it, a bind of the port by a socket that sets it
	// too, as Go's listeners do, would succeed beside the held one.
	if reusePort {
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEPORT, 1); err != nil {
			t.Fatalf("testnet: SO_REUSEPORT: %v", err)
		}
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatalf("testnet: bind 127.0.0.1:0: %v", err)
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		t.Fatalf("testnet: getsockname: %v", err)
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(sa.(*unix.SockaddrInet4).Port))
}
