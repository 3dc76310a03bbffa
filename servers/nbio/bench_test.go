package main

import (
	"testing"

	"github.com/lesismal/nbio"

	"hellobench/bench/memconn"
)

// There is no in-memory benchmark of the server loop here, as most servers
// have: nbio's poller reads each connection's socket itself, through its
// file descriptor (nbio.NBConn takes a *net.TCPConn, *net.UnixConn or
// *net.UDPConn), so memconn's connections, which have none, cannot be
// served.

func BenchmarkServeKeepAlive(b *testing.B) {
	b.Skip("nbio's poller reads only connections with a file descriptor: no in-memory connection (see TestNoInMemoryConn)")
}

func BenchmarkServeJSON(b *testing.B) {
	b.Skip("nbio's poller reads only connections with a file descriptor: no in-memory connection (see TestNoInMemoryConn)")
}

// TestNoInMemoryConn keeps the note above true: nbio refuses memconn's
// connection.
func TestNoInMemoryConn(t *testing.T) {
	c := memconn.NewConn([]byte("GET /hello/world HTTP/1.1\r\nHost: h\r\n\r\n"), 1)
	if _, err := nbio.NBConn(c); err == nil {
		t.Fatal("nbio took an in-memory connection: add the benchmark")
	}
}
