package main

import (
	"strings"
	"testing"
	"time"

	"hellobench/bench/memconn"
)

// There is no in-memory benchmark of the server loop here, as the other
// servers have: netpoll serves a listener only through its file
// descriptor (netpoll.ConvertListener takes a *net.TCPListener or a
// *net.UnixListener), and reads each connection's socket itself, so
// memconn's connections, which have none, cannot be served.

func BenchmarkServeKeepAlive(b *testing.B) {
	b.Skip("netpoll serves only a listener with a file descriptor: no in-memory listener (see TestNoInMemoryListener)")
}

func BenchmarkServeJSON(b *testing.B) {
	b.Skip("netpoll serves only a listener with a file descriptor: no in-memory listener (see TestNoInMemoryListener)")
}

// TestNoInMemoryListener keeps the note above true: hertz on netpoll
// refuses memconn's listener.
func TestNoInMemoryListener(t *testing.T) {
	quietLogs()
	l := memconn.NewListener()
	defer l.Close()
	defer func() {
		r := recover()
		if s, ok := r.(string); !ok || !strings.Contains(s, "netpoll") {
			t.Fatalf("hertz served an in-memory listener (recovered %v): add the benchmark", r)
		}
	}()
	newHertz(l, 10*time.Second, 60*time.Second, false, nil).Run()
}
