package bench

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"
)

// An IdleResult is a server holding connections that each sent one request
// and then went quiet.
type IdleResult struct {
	Conns int // connections opened
	Held  int // answered, and still open after the quiet period
	// PerConn is the growth of the server's resident memory over the
	// connections, in bytes per connection held.
	PerConn float64
	// IdleCPU is the server's CPU time over the quiet period, in ms per s:
	// what its timers and sweeps cost while nothing happens.
	IdleCPU float64
	// Err is why connections were lost (the first error), if any were.
	Err error
}

// dialers bounds the connections being opened at once, below the accept
// backlog of every server here.
const dialers = 64

// Idle opens n connections to s, sends one request on each and reads its
// response, leaves them open and quiet for quiet, and checks that each is
// still open. The client is this process: it needs n open files.
func Idle(s *Server, n int, quiet time.Duration) (IdleResult, error) {
	return holdIdle(s, n, quiet, func(addr string) (idleConn, error) {
		c, err := oneRequest(addr)
		if err != nil {
			return nil, err
		}
		return tcpIdle{c}, nil
	})
}

// holdIdle is Idle with dial opening each connection and asking its one
// request.
func holdIdle(s *Server, n int, quiet time.Duration, dial func(addr string) (idleConn, error)) (IdleResult, error) {
	r := IdleResult{Conns: n}
	before, err := s.Usage()
	if err != nil {
		return r, err
	}
	conns := make([]idleConn, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, dialers)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			conns[i], errs[i] = dial(s.Addr)
		}()
	}
	wg.Wait()
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	}()
	start, err := s.Usage()
	if err != nil {
		return r, err
	}
	time.Sleep(quiet)
	end, err := s.Usage()
	if err != nil {
		return r, err
	}
	for i, c := range conns {
		if c == nil {
			continue
		}
		if errs[i] = c.open(); errs[i] == nil {
			r.Held++
		}
	}
	r.Err = errors.Join(firstError(errs))
	if r.Held > 0 {
		r.PerConn = float64(end.RSS-before.RSS) / float64(r.Held)
	}
	r.IdleCPU = float64(end.CPU-start.CPU) / float64(time.Millisecond) / quiet.Seconds()
	return r, nil
}

// oneRequest opens a connection and asks one request on it (askOnce).
func oneRequest(addr string) (net.Conn, error) {
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return nil, err
	}
	if err := askOnce(c); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// askOnce sends one keep-alive request on c and reads the whole response.
func askOnce(c net.Conn) error {
	c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(c, "GET /hello/world HTTP/1.1\r\nHost: hellobench\r\n\r\n"); err != nil {
		return err
	}
	// The reader's buffer holds no more than the response: nothing else
	// is sent until the connection is checked.
	resp, err := http.ReadResponse(bufio.NewReaderSize(c, 1024), nil)
	if err == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err == nil && resp.StatusCode != 200 {
			err = fmt.Errorf("status %d", resp.StatusCode)
		}
	}
	if err != nil {
		return err
	}
	return c.SetDeadline(time.Time{})
}

// stillOpen reports, as nil, that the server has neither closed c nor
// sent anything on it.
func stillOpen(c net.Conn) error {
	c.SetReadDeadline(time.Now().Add(time.Millisecond))
	var b [1]byte
	_, err := c.Read(b[:])
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return nil
	}
	if err == nil {
		return errors.New("the server sent bytes on an idle connection")
	}
	return err
}

func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
