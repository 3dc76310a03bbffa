package main

import (
	"net"
	"testing"
	"time"

	"hellobench/bench/memconn"
	"hellobench/servers/internal/nethttpguard"
)

// The server loop without a network: gin's engine on http.Server.Serve,
// over in-memory connections that replay a request, as fasthttp's
// server_timing_test.go, through the framing guard as main serves.

func serveMem(l net.Listener) error {
	return newServer("", 10*time.Second, 60*time.Second, false).Serve(nethttpguard.Listener{Listener: l})
}

func BenchmarkServeKeepAlive(b *testing.B) {
	memconn.Bench(b, serveMem, []byte("GET /hello/world HTTP/1.1\r\nHost: bench\r\n\r\n"), true)
}

// BenchmarkServeJSON is BenchmarkServeKeepAlive's loop on /json: a Message
// built and encoded for each request.
func BenchmarkServeJSON(b *testing.B) {
	memconn.Bench(b, serveMem, []byte("GET /json HTTP/1.1\r\nHost: bench\r\n\r\n"), true)
}

func BenchmarkServeClose(b *testing.B) {
	memconn.Bench(b, serveMem, []byte("GET /hello/world HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n"), false)
}

// BenchmarkGuard is what the framing guard costs on a plain GET: the same
// keep-alive loop with the guard (as main serves) and without it (-bare).
func BenchmarkGuard(b *testing.B) {
	memconn.Guard(b, func(l net.Listener, guarded bool) error {
		if guarded {
			l = nethttpguard.Listener{Listener: l}
		}
		return newServer("", 10*time.Second, 60*time.Second, !guarded).Serve(l)
	}, []byte("GET /hello/world HTTP/1.1\r\nHost: bench\r\n\r\n"))
}
