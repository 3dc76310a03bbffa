//go:build linux

package loadgen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"hellobench/internal/uring"
)

// stallServer takes connections with a small receive buffer, reads nothing
// for stall, then reads everything, checks that the bytes are whole
// requests, each exactly want, and answers each.
type stallServer struct {
	ln     net.Listener
	want   []byte
	stall  time.Duration
	whole  atomic.Int64 // requests read whole
	broken atomic.Int64 // requests that were not
	first  atomic.Pointer[string]
	done   chan struct{} // closed when the test ends: stall no more
	wg     sync.WaitGroup
}

func newStallServer(t *testing.T, stall time.Duration) *stallServer {
	lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		// Set on the listener, so that accepted sockets start with it
		// and advertise a small window.
		return c.Control(func(fd uintptr) {
			syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
		})
	}}
	ln, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &stallServer{ln: ln, stall: stall, done: make(chan struct{})}
	var conns []net.Conn
	var mu sync.Mutex
	s.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			s.wg.Go(func() { s.handle(c) })
		}
	})
	t.Cleanup(func() {
		close(s.done)
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		s.wg.Wait()
	})
	return s
}

func (s *stallServer) url() string { return "http://" + s.ln.Addr().String() + "/hello/world" }

func (s *stallServer) handle(c net.Conn) {
	defer c.Close()
	select {
	case <-time.After(s.stall):
	case <-s.done:
		return
	}
	resp := []byte("HTTP/1.1 200 OK\r\nServer: stall\r\nContent-Length: 2\r\n\r\nok")
	var buf []byte
	tmp := make([]byte, 64<<10)
	for {
		n, err := c.Read(tmp)
		if err != nil {
			return
		}
		buf = append(buf, tmp[:n]...)
		for {
			i := bytes.Index(buf, []byte("\r\n\r\n"))
			if i < 0 {
				break
			}
			req := buf[:i+4]
			if !bytes.Equal(req, s.want) {
				s.broken.Add(1)
				msg := string(req[:min(len(req), 200)])
				s.first.CompareAndSwap(nil, &msg)
				return
			}
			s.whole.Add(1)
			buf = buf[i+4:]
			if _, err := c.Write(resp); err != nil {
				return
			}
		}
	}
}

// Large requests, due faster than a stalled server takes them, each batch of
// the requests due sent as it falls due (-rate with -pipeline): every
// request must reach the server whole and in order. Under io_uring, two
// sends in flight on one socket are not ordered (each waits for room on its
// own and goes when it gets some), so their bytes can interleave; a
// connection therefore has one send in flight and the next waits for it.
func TestSendOrder(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		s := newStallServer(t, 300*time.Millisecond)
		// 8 requests of 1 MiB in flight: more than the socket buffers
		// take (a few MiB on loopback), so sends wait for room.
		const n = 16
		cfg := Config{
			URL: s.url(), Requests: n, Concurrency: 1, KeepAlive: true, Pipeline: 8,
			Rate: 2000, Headers: []string{"X-Pad: " + strings.Repeat("p", 1<<20)},
		}
		tg, _ := parseURL(cfg.URL)
		c := cfg.withDefaults()
		s.want, _ = buildRequest(&c, tg)
		r := run(t, engine, cfg)
		checkCounts(t, r, n)
		if b := s.broken.Load(); b > 0 {
			t.Errorf("server read %d broken requests (after %d whole); the first begins %q", b, s.whole.Load(), *s.first.Load())
		}
		if r.Complete != n || s.whole.Load() != n {
			t.Errorf("complete %d, server read %d whole requests, want %d; failures %+v", r.Complete, s.whole.Load(), n, r.Failures)
		}
	})
}

// A submission queue far smaller than what a loop queues at once: get
// submits the queued entries to make room, and no entry is lost or
// overwritten, so every request is counted once.
func TestSmallRing(t *testing.T) {
	needURing(t)
	for _, ka := range []bool{true, false} {
		s := newTestServer(t, nil)
		n := 2000
		if !ka {
			n = 300
		}
		r := run(t, EngineURing, Config{URL: s.url(), Requests: n, Concurrency: 50, KeepAlive: ka, Loops: 1, ringSize: 4})
		checkCounts(t, r, n)
		if r.Complete != int64(n) || s.received.Load() != int64(n) {
			t.Errorf("keep-alive %v: complete %d, server received %d, want %d; %+v", ka, r.Complete, s.received.Load(), n, r.Failures)
		}
	}
}

// A send that fails after some of its bytes went completes with their
// count, a positive res, not an error: shown here on a real socket (the
// peer resets while a large send waits for room), and read as a failure,
// not as an errno.
func TestSendProgressFails(t *testing.T) {
	if err := sendResult(100, 100); err != nil {
		t.Errorf("all sent: %v", err)
	}
	if err := sendResult(-int32(unix.ECONNRESET), 100); !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("ECONNRESET: %v", err)
	}

	needURing(t)
	runtime.LockOSThread() // the ring takes submissions from its maker's thread only
	defer runtime.UnlockOSThread()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if err := unix.Connect(fd, &unix.SockaddrInet4{Port: ln.Addr().(*net.TCPAddr).Port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	peer, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	r, err := uring.New(8)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b := make([]byte, 64<<20) // far more than the socket buffers hold
	s, _ := r.Get()
	s.Opcode, s.Fd, s.UserData = uring.OpSend, int32(fd), 1
	s.Addr, s.Len = uint64(uintptr(unsafe.Pointer(&b[0]))), uint32(len(b))
	s.OpFlags = unix.MSG_WAITALL | unix.MSG_NOSIGNAL
	if err := r.Enter(0, 0, 0); err != nil {
		t.Fatal(err)
	}
	peer.(*net.TCPConn).SetLinger(0)
	peer.Close() // a reset: the send cannot finish
	if err := r.Enter(1, 0, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	head, tail := r.Ready()
	if head == tail {
		t.Fatal("no completion for the send")
	}
	res := r.Completion(head).Res
	r.Done(head + 1)
	if res <= 0 || int(res) >= len(b) {
		t.Skipf("send completed with %d: no partial progress to read", res)
	}
	err = sendResult(res, len(b))
	var errno unix.Errno
	if err == nil || errors.As(err, &errno) {
		t.Errorf("a send that failed after %d of %d bytes read as %v (%#v)", res, len(b), err, err)
	}
	t.Logf("the kernel's completion: res %d of %d bytes; read as %q", res, len(b), err)
}

// When a run ends while sends wait in the kernel (a stalled server, time
// up), the engine does not close its ring until every operation the kernel
// held, sends included, has completed: none is left holding a buffer. A
// closed loop's sends post no completion of their own (their linked
// receives stand for them); with a rate, sends post theirs.
func TestShutdownDrains(t *testing.T) {
	needURing(t)
	for _, rate := range []float64{0, 100000} {
		t.Run(fmt.Sprintf("rate=%v", rate), func(t *testing.T) {
			s := newStallServer(t, 3*time.Second)
			cfg := Config{
				URL: s.url(), Duration: 200 * time.Millisecond, Concurrency: 64, KeepAlive: true, Pipeline: 8, Rate: rate,
				Headers: []string{"X-Pad: " + strings.Repeat("p", 64<<10)}, Engine: EngineURing, Loops: 1,
				sndBuf: 4096, // sends wait for room
			}
			p, err := build(cfg.withDefaults())
			if err != nil {
				t.Fatal(err)
			}
			if err := p.run(context.Background()); err != nil {
				t.Fatal(err)
			}
			// A connection given more bytes to send than its socket's
			// buffer and the stalled server's hold had a send waiting
			// when the run ended.
			l := p.loops[0]
			waiting := 0
			for i := range l.conns {
				if c := &l.conns[i]; (c.inflight-c.unsent)*len(l.req) > 64<<10 {
					waiting++
				}
			}
			if waiting == 0 {
				t.Fatal("no send was waiting when the run ended: the test tests nothing")
			}
			u := l.eng.(*uringEngine)
			if u.ops != 0 {
				t.Errorf("%d operations left in the kernel after shutdown (%d connections had a send waiting)", u.ops, waiting)
			}
			kept.Lock()
			defer kept.Unlock()
			for _, k := range kept.engines {
				if k == u {
					t.Error("the engine's memory was kept: the kernel did not finish in time")
				}
			}
		})
	}
}
