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

// minBystanderRate is the least a bystander beside the pipeliners must be
// answered, requests a second on its two connections: far below what a
// server gives one even beside the rest of make test (fcgi's lighttpd: some
// 90 a second), far above a starved one's (uring before its fix: 2 in 10 s).
const minBystanderRate = 10

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

// The many pipeliners' sizes. Each asks for the MSS of an Ethernet path
// and small socket buffers, as a hostile client picks: on loopback's
// 64 KiB MSS, or with a receive window that lets the congestion window
// grow, the server's kernel would take megabytes of answers per
// connection itself, where for a remote client that does not read it
// takes about 100 KB. Each then sends up to pipelinedEach requests
// (880 KB), more than the kernel buffers of both ends take (about
// 270 KB): a server that stops reading when its answers back up stalls
// the writer; one that does not would keep every answer (8 MB).
const (
	pipelinedEach = 20_000
	pipelinerMSS  = 1460
	pipelinerRcv  = 4 << 10
	pipelinerSnd  = 64 << 10
)

// pipelinersBound is the bound on a server's peak RSS against n
// pipeliners: the bound against one client that does not read, and
// 64 KiB per pipeliner (about 160 unsent answers, or a goroutine's stack
// and buffers); 126.5 MiB for a thousand.
func pipelinersBound(n int) int64 { return rssBound + int64(n)*64<<10 }

// TestManyPipeliners opens many connections at once, each writing
// requests back to back and reading nothing. The server's peak RSS must
// stay under pipelinersBound while a normal client beside them is served
// with no failure; once they close, the server's descriptors return to
// where they were and it serves a new connection. One server at a time:
// the pipeliners keep a core busy until the server stops reading them.
func TestManyPipeliners(t *testing.T) {
	n, hold := size().pipeliners, size().pipelinersHold
	bound := pipelinersBound(n)
	forEach(t, "many pipeliners, never read", fmt.Sprintf("%d connections of %d requests, RSS bound %s", n, pipelinedEach, mib(bound)), false, func(t *test, tg targets.Target) {
		in := t.start(tg, targets.Env{NoFile: 20_000})
		t.serves(in, 5*time.Second, "before the pipeliners")
		pid := t.httpPID(in)
		base := t.files(pid)
		ws, err := pipeliners(in.Addr, n)
		defer closeWriters(ws)
		if err != nil {
			t.Fatalf("%v", err)
		}
		by := bystander(in.URL(), hold)
		for _, w := range ws {
			go w.run()
		}
		sent, stalled, over := t.waitWriters(in, ws, bound, time.Second, 30*time.Second)
		r := <-by
		t.check(r)
		// Served is not enough: a server that pauses every client to bound
		// its memory answers the bystander a handful of times.
		if least := int64(minBystanderRate * hold.Seconds()); r.err == nil && r.Complete < least {
			t.Errorf("bystander starved: %d requests in %v, want at least %d (%d a second)", r.Complete, hold, least, minBystanderRate)
		}
		t.alive(in, "with the answers unread")
		peak := t.usage(in).Peak
		t.row.add(t, "sent unread", "%d requests, %d of %d connections stalled", sent, stalled, n)
		if over {
			t.row.add(t, "stopped", "RSS passed the bound with the requests still going in: the pipeliners closed")
		}
		t.row.add(t, "peak RSS", "%s", mib(peak))
		if why, ok := tg.Lenient["many pipeliners, never read"]; ok {
			t.lenient(why, func() bool { return peak > bound })
		} else if peak > bound {
			t.Errorf("peak RSS %s with %d connections not reading, over the bound of %s", mib(peak), n, mib(bound))
		}
		closeWriters(ws)
		if _, open, ok := t.waitFiles(pid, 5*time.Second, func(c int) bool { return c <= base }); !ok {
			t.Errorf("%d connections still open 5 s after the pipeliners closed", open-base)
		}
		t.serves(in, 5*time.Second, "after the pipeliners closed")
	})
}

// pipeliners dials n connections to addr with small buffers, each
// with a writer of pipelinedEach requests, not yet running.
func pipeliners(addr string, n int) ([]*writer, error) {
	d := net.Dialer{Timeout: 5 * time.Second, Control: func(_, _ string, c syscall.RawConn) error {
		var err error
		c.Control(func(fd uintptr) {
			err = errors.Join(
				syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, pipelinerRcv),
				syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_SNDBUF, pipelinerSnd),
				syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_MAXSEG, pipelinerMSS))
		})
		return err
	}}
	ws := make([]*writer, 0, n)
	for range n {
		c, err := d.Dial("tcp", addr)
		if err != nil {
			return ws, fmt.Errorf("dial pipeliner %d of %d: %w", len(ws)+1, n, err)
		}
		ws = append(ws, &writer{c: c, n: pipelinedEach, done: make(chan struct{})})
	}
	return ws, nil
}

// waitWriters waits until every writer is done or has sent nothing for
// quiet, max at most, or until the instance's RSS passes bound: then it
// closes them, as a server that keeps every answer would take gigabytes.
// It returns the requests sent, the writers that stalled (the server
// stopped reading them) and whether RSS passed the bound.
func (t *test) waitWriters(in *targets.Instance, ws []*writer, bound int64, quiet, max time.Duration) (sent int64, stalled int, over bool) {
	t.Helper()
	last := make([]int64, len(ws))
	since := make([]time.Time, len(ws))
	for deadline := time.Now().Add(max); ; time.Sleep(50 * time.Millisecond) {
		sent, stalled = 0, 0
		busy := false
		for i, w := range ws {
			s := w.sent.Load()
			sent += s
			select {
			case <-w.done:
				continue
			default:
			}
			if s != last[i] || since[i].IsZero() {
				last[i], since[i] = s, time.Now()
			}
			if time.Since(since[i]) < quiet {
				busy = true
			} else {
				stalled++
			}
		}
		if t.usage(in).RSS > bound {
			closeWriters(ws)
			return sent, stalled, true
		}
		if !busy || time.Now().After(deadline) {
			return sent, stalled, false
		}
	}
}

// closeWriters closes the writers' connections, which ends their writes.
func closeWriters(ws []*writer) {
	for _, w := range ws {
		w.c.Close()
	}
}
