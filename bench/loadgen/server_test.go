//go:build linux

package loadgen

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// testServer is a raw TCP HTTP/1.x server that counts the requests it
// received and answered, and misbehaves as configured.
type testServer struct {
	ln       net.Listener
	body     []byte
	received atomic.Int64 // complete requests read
	answered atomic.Int64 // responses written in full
	conns    atomic.Int64

	closeAfter int           // answer this many on a connection, the last with Connection: close, then close
	resetAfter int           // answer this many, then reset on the next request without answering
	dropAll    atomic.Bool   // close every connection at once, answering nothing
	chunked    bool          // chunked bodies
	http10     bool          // HTTP/1.0 responses without Content-Length, then close
	longEvery  int           // every longEvery-th response has one more body byte
	holdEvery  int           // every holdEvery-th request is never answered
	delay      time.Duration // before each response
	answerOnly []int         // connection i (from 0) answers answerOnly[i] requests, then closes without a word
	resetAll   bool          // reset every connection once a request is in, answering nothing
	padUntil   int64         // responses to the first padUntil requests carry a padding field

	mu       sync.Mutex
	finished []int // requests each connection answered, once it closed

	wg sync.WaitGroup
}

// carried returns the requests each connection answered, once every
// connection is closed (after the server stops).
func (s *testServer) carried(t testing.TB) []int {
	t.Helper()
	s.ln.Close()
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.finished
}

func newTestServer(t testing.TB, setup func(*testServer)) *testServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &testServer{ln: ln, body: bytes.Repeat([]byte("x"), 257)}
	if setup != nil {
		setup(s)
	}
	s.wg.Add(1)
	go s.serve()
	t.Cleanup(func() {
		ln.Close()
		s.wg.Wait()
	})
	return s
}

func (s *testServer) url() string { return "http://" + s.ln.Addr().String() + "/hello/world" }

func (s *testServer) serve() {
	defer s.wg.Done()
	var conns sync.WaitGroup
	var mu sync.Mutex
	open := map[net.Conn]bool{}
	for {
		c, err := s.ln.Accept()
		if err != nil {
			mu.Lock()
			for c := range open {
				c.Close()
			}
			mu.Unlock()
			conns.Wait()
			return
		}
		n := s.conns.Add(1)
		mu.Lock()
		open[c] = true
		mu.Unlock()
		conns.Add(1)
		go func() {
			defer conns.Done()
			s.handle(c.(*net.TCPConn), int(n-1))
			mu.Lock()
			delete(open, c)
			mu.Unlock()
		}()
	}
}

func (s *testServer) handle(c *net.TCPConn, conn int) {
	defer c.Close()
	if s.dropAll.Load() {
		return
	}
	quota := -1
	if conn < len(s.answerOnly) {
		quota = s.answerOnly[conn]
		if quota == 0 {
			drain(c)
			return
		}
	}
	buf := make([]byte, 0, 64<<10)
	tmp := make([]byte, 32<<10)
	served := 0
	defer func() {
		s.mu.Lock()
		s.finished = append(s.finished, served)
		s.mu.Unlock()
	}()
	var out []byte
	for {
		// Answer every complete request in buf, in one write, as a
		// pipelining server does.
		out = out[:0]
		closeNow := false
		for {
			i := bytes.Index(buf, []byte("\r\n\r\n"))
			if i < 0 {
				break
			}
			req := buf[:i+4]
			buf = buf[:copy(buf, buf[i+4:])]
			n := s.received.Add(1)
			if s.resetAll {
				c.SetLinger(0)
				return
			}
			if s.resetAfter > 0 && served == s.resetAfter {
				s.answered.Add(int64(bytes.Count(out, []byte("HTTP/1."))))
				c.Write(out)
				c.SetLinger(0)
				return
			}
			if s.holdEvery > 0 && n%int64(s.holdEvery) == 0 {
				// Never answered: wait until the client gives up.
				s.answered.Add(int64(bytes.Count(out, []byte("HTTP/1."))))
				c.Write(out)
				c.Read(tmp)
				return
			}
			served++
			if served == quota {
				// Answered, then closed without saying so.
				out = s.response(out, n, true)
				closeNow = true
				break
			}
			last := s.closeAfter > 0 && served == s.closeAfter
			keep := bytes.Contains(bytes.ToLower(req), []byte("connection: keep-alive"))
			out = s.response(out, n, keep && !last && !s.http10)
			if last || !keep || s.http10 {
				closeNow = true
				break
			}
		}
		if len(out) > 0 {
			if s.delay > 0 {
				time.Sleep(s.delay)
			}
			// Counted before the write: the client may finish as soon as
			// it has read the bytes.
			s.answered.Add(int64(bytes.Count(out, []byte("HTTP/1."))))
			if _, err := c.Write(out); err != nil {
				return
			}
		}
		if closeNow {
			if served == quota {
				drain(c)
			}
			return
		}
		n, err := c.Read(tmp)
		if err != nil {
			return
		}
		buf = append(buf, tmp[:n]...)
	}
}

// drain closes c's sending side and reads what comes until the client
// closes: a close with unread bytes would be a reset, not a plain close.
func drain(c *net.TCPConn) {
	c.CloseWrite()
	io.Copy(io.Discard, c)
}

// response appends the n-th response.
func (s *testServer) response(out []byte, n int64, keep bool) []byte {
	body := s.body
	if s.longEvery > 0 && n%int64(s.longEvery) == 0 {
		body = append(body[:len(body):len(body)], 'y')
	}
	if s.http10 {
		out = append(out, "HTTP/1.0 200 OK\r\nServer: test\r\nContent-Type: text/html\r\n\r\n"...)
		return append(out, body...)
	}
	out = append(out, "HTTP/1.1 200 OK\r\nServer: test\r\n"...)
	if n <= s.padUntil {
		out = append(out, "X-Pad: 0123456789abcdef\r\n"...)
	}
	if keep {
		out = append(out, "Connection: keep-alive\r\n"...)
	} else {
		out = append(out, "Connection: close\r\n"...)
	}
	if s.chunked {
		out = append(out, "Transfer-Encoding: chunked\r\n\r\n"...)
		half := len(body) / 2
		out = fmt.Appendf(out, "%x\r\n%s\r\n%x;ext=1\r\n%s\r\n0\r\nX-Trailer: 1\r\n\r\n",
			half, body[:half], len(body)-half, body[half:])
		return out
	}
	out = append(out, "Content-Length: "...)
	out = strconv.AppendInt(out, int64(len(body)), 10)
	out = append(out, "\r\n\r\n"...)
	return append(out, body...)
}
