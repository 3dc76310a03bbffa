package robust

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"hellobench/internal/targets"
)

// TestPipelineNoRead writes requests back to back on one connection and
// reads nothing until the server stops taking them. The server's memory
// must stay under the bound; then, read, the backlog drains or the server
// closes the connection, and either way it still serves.
func TestPipelineNoRead(t *testing.T) {
	n := size().pipelined
	forEach(t, "pipelined, never read", fmt.Sprintf("%d requests on one connection", n), true, func(t *test, tg targets.Target) {
		in := t.start(tg, targets.Env{})
		c, err := net.Dial("tcp", in.Addr)
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		defer c.Close()
		w := &writer{c: c, n: n, done: make(chan struct{})}
		go w.run()
		sent := w.wait(time.Second, 20*time.Second)
		// Let the server work through what it took before measuring.
		time.Sleep(500 * time.Millisecond)
		t.alive(in, "with the responses unread")
		peak := t.usage(in).Peak
		t.row.add(t, "sent unread", "%d requests", sent)
		t.row.add(t, "peak RSS", "%s", mib(peak))
		if peak > rssBound {
			t.Errorf("peak RSS %s with %d requests unread, over the bound of %s", mib(peak), sent, mib(rssBound))
		}
		got, err := drain(c, n)
		switch {
		case err == nil:
			t.row.add(t, "then", "drained, all %d answered", got)
		case closed(err):
			t.row.add(t, "then", "closed by the server after %d responses", got)
		default:
			t.Errorf("reading the backlog after %d responses: %v", got, err)
		}
		t.serves(in, 5*time.Second, "after the pipelined connection")
	})
}

// A writer sends n pipelined requests in batches, counting those sent.
type writer struct {
	c    net.Conn
	n    int
	sent atomic.Int64 // requests written whole
	done chan struct{}
}

func (w *writer) run() {
	defer close(w.done)
	const batch = 1000
	buf := bytes.Repeat([]byte(request), batch)
	for left := w.n; left > 0; {
		k := min(batch, left)
		if _, err := w.c.Write(buf[:k*len(request)]); err != nil {
			return // the server closed the connection; the reader sees why
		}
		w.sent.Add(int64(k))
		left -= k
	}
}

// wait returns the requests sent once the writer is done or has sent
// nothing for quiet (the server no longer reads), after max at most.
func (w *writer) wait(quiet, max time.Duration) int64 {
	last, since := w.sent.Load(), time.Now()
	for deadline := time.Now().Add(max); time.Now().Before(deadline); {
		select {
		case <-w.done:
			return w.sent.Load()
		case <-time.After(50 * time.Millisecond):
		}
		if s := w.sent.Load(); s != last {
			last, since = s, time.Now()
		} else if time.Since(since) >= quiet {
			break
		}
	}
	return last
}

// drain reads responses until n have come, and fails on a wrong one, on
// the end of the connection, or when none comes for 5 s.
func drain(c net.Conn, n int) (int, error) {
	br := bufio.NewReaderSize(c, 64<<10)
	for got := 0; got < n; got++ {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if err := readPage(br); err != nil {
			return got, err
		}
	}
	return n, nil
}

// closed reports whether err is the peer's close or reset of the
// connection.
func closed(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
