//go:build linux

package loadgen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"testing"

	"golang.org/x/sys/unix"

	"hellobench/internal/uring"
)

// trivialServer answers every request on a keep-alive connection with a
// canned 257-byte page, as cheaply as a goroutine per connection can.
func trivialServer(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	resp := []byte("HTTP/1.1 200 OK\r\nServer: trivial\r\nContent-Type: text/html; charset=utf-8\r\nConnection: keep-alive\r\nContent-Length: 257\r\n\r\n")
	resp = append(resp, bytes.Repeat([]byte("x"), 257)...)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				in := make([]byte, 64<<10)
				var out []byte
				var tail uint32 // last bytes read, to find "\r\n\r\n" across reads
				for {
					n, err := c.Read(in)
					if err != nil {
						return
					}
					out = out[:0]
					for _, ch := range in[:n] {
						tail = tail<<8 | uint32(ch)
						if tail == 0x0d0a0d0a {
							out = append(out, resp...)
						}
					}
					if _, err := c.Write(out); err != nil {
						return
					}
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String() + "/hello/world"
}

// BenchmarkLoop drives b.N keep-alive requests through each I/O engine on
// 50 connections. ns/op and cpu-ns/op (the process's user+sys time) include
// the in-process server, unpinned on the same cores: the client's own cost
// is what bench/cmd/clients measures, pinned, against a real server.
// allocs/op, the client's steady state, should be 0.
func BenchmarkLoop(b *testing.B) {
	for _, engine := range []string{EngineEpoll, EngineURing} {
		for _, pipeline := range []int{1, 16} {
			b.Run(fmt.Sprintf("engine=%s/pipeline=%d", engine, pipeline), func(b *testing.B) {
				url := trivialServer(b)
				cfg := Config{URL: url, Requests: max(b.N, 50), Concurrency: 50, KeepAlive: true, Pipeline: pipeline, Loops: 1, Engine: engine}
				b.ReportAllocs()
				var before, after unix.Rusage
				unix.Getrusage(unix.RUSAGE_SELF, &before)
				b.ResetTimer()
				r, err := Run(context.Background(), cfg)
				b.StopTimer()
				unix.Getrusage(unix.RUSAGE_SELF, &after)
				if errors.Is(err, uring.ErrUnavailable) {
					b.Skip(err)
				}
				if err != nil {
					b.Fatal(err)
				}
				if r.Complete != int64(cfg.Requests) {
					b.Fatalf("complete %d of %d: %+v", r.Complete, cfg.Requests, r.Failures)
				}
				cpu := after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano()
				b.ReportMetric(float64(cpu)/float64(cfg.Requests), "cpu-ns/op")
			})
		}
	}
}
