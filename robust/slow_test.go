package robust

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"hellobench/internal/proc"
	"hellobench/internal/targets"
	"hellobench/page"
)

// rssBound is the bound on a server's resident memory against a
// client that does not read.
const rssBound = 64 << 20

// slowhttptest starts slowhttptest with args in the background, opening n
// connections at once against in, and kills it when the test ends.
func (t *test) slowhttptest(in *targets.Instance, n int, args ...string) *proc.Process {
	t.Helper()
	path := t.tool("slowhttptest")
	c := strconv.Itoa(n)
	p, err := proc.Start(proc.Spec{
		Name: "slowhttptest", Path: path,
		Args: append(args, "-c", c, "-r", c, "-u", in.URL()),
	})
	if err != nil {
		t.Fatalf("%v", err)
	}
	t.Cleanup(func() { p.Kill() })
	return p
}

// holdAll waits until the server holds n connections more than base,
// and returns when it first did.
func (t *test) holdAll(in *targets.Instance, pid, base, n int, client *proc.Process) time.Time {
	t.Helper()
	most := 0
	at, open, ok := t.waitFiles(pid, 15*time.Second, func(c int) bool {
		most = max(most, c)
		return c >= base+n
	})
	if !ok {
		t.Fatalf("the server holds %d of the %d connections 15 s after they began (at most %d at once); slowhttptest says:\n%s", open-base, n, most-base, client.Output())
	}
	t.alive(in, "holding them")
	t.row.add(t, "held", "%d connections", n)
	return at
}

// TestSlowloris holds connections that send a header line every second and
// never end the header section: the header timeout must close each within
// the timeout plus 1 s, while a normal client beside them is served.
func TestSlowloris(t *testing.T) {
	n, timeout := size().slowloris, size().lorisTimeout
	forEach(t, "slowloris", fmt.Sprintf("%d connections, header timeout %v", n, timeout), true, func(t *test, tg targets.Target) {
		in := t.start(tg, targets.Env{HeaderTimeout: timeout, NoFile: 20_000})
		t.serves(in, 5*time.Second, "before the slow connections")
		pid := t.httpPID(in)
		base := t.files(pid)
		// A line every second keeps a per-read idle timeout from firing:
		// only a bound on the whole header section closes them.
		sl := t.slowhttptest(in, n, "-H", "-i", "1", "-l", "600")
		opened := t.holdAll(in, pid, base, n, sl)
		by := bystander(in.URL(), timeout/2)
		limit := timeout + time.Second
		if why, ok := tg.Lenient["slowloris"]; ok {
			t.lenient(why, func() bool {
				time.Sleep(time.Until(opened.Add(limit + time.Second)))
				return t.files(pid) > base
			})
			t.check(<-by)
			return
		}
		closed, open, ok := t.waitFiles(pid, limit+time.Second, func(c int) bool { return c <= base })
		if !ok {
			t.Fatalf("%d connections still open %v after the last opened (header timeout %v)", open-base, closed.Sub(opened).Round(time.Millisecond), timeout)
		}
		took := closed.Sub(opened)
		t.row.add(t, "closed", "all within %s of the last opening", secs(took))
		if took > limit {
			t.Errorf("the last slow connection closed %s after opening, more than the header timeout %v + 1 s", secs(took), timeout)
		}
		t.check(<-by)
		t.row.add(t, "peak RSS", "%s", mib(t.usage(in).Peak))
		t.alive(in, "after the slow connections")
	})
}

// TestSlowRead holds connections that ask for ten pipelined responses each
// and read them a few bytes a second through a tiny window: the server's
// memory stays bounded, and a normal client beside them is served.
func TestSlowRead(t *testing.T) {
	n, d := size().slowRead, size().slowReadFor
	forEach(t, "slow read", fmt.Sprintf("%d connections, bystander for %v", n, d), true, func(t *test, tg targets.Target) {
		in := t.start(tg, targets.Env{NoFile: 20_000})
		t.serves(in, 5*time.Second, "before the slow readers")
		pid := t.httpPID(in)
		base := t.files(pid)
		sl := t.slowhttptest(in, n, "-X", "-k", "10", "-n", "1", "-w", "1", "-y", "64", "-z", "32", "-l", "600")
		t.holdAll(in, pid, base, n, sl)
		t.check(<-bystander(in.URL(), d))
		peak := t.usage(in).Peak
		t.row.add(t, "peak RSS", "%s", mib(peak))
		if peak > rssBound {
			t.Errorf("peak RSS %s, over the bound of %s", mib(peak), mib(rssBound))
		}
		t.alive(in, "after the slow readers")
	})
}

// TestSlowBody holds connections that POST a form body of 4096 bytes and
// drip it a few bytes a second (slowhttptest -B, R-U-Dead-Yet). A server
// may answer before the body comes or wait for it, but it must close every
// one within the header timeout plus 1 s of the last one opening, while a
// normal client beside them is served. One server at a time: at full size,
// 1 000 connections to each of every server at once on two cores left
// deadlines seconds late for want of CPU, not for want of a deadline.
func TestSlowBody(t *testing.T) {
	n, timeout := size().slowBody, size().headerTimeout
	limit := timeout + time.Second
	forEach(t, "slow body", fmt.Sprintf("%d connections, header timeout %v", n, timeout), false, func(t *test, tg targets.Target) {
		in := t.start(tg, targets.Env{HeaderTimeout: timeout, NoFile: 20_000})
		t.serves(in, 5*time.Second, "before the slow bodies")
		pid := t.httpPID(in)
		base := t.files(pid)
		began := time.Now()
		// At most 6 bytes a second ("&xx=xx") keeps a per-read idle timeout
		// from firing and the body from ending: only a bound on the whole
		// request closes them. -v 4 logs each request sent.
		sl := t.slowhttptest(in, n, "-B", "-s", "4096", "-i", "1", "-x", "2", "-l", "600", "-v", "4")
		// slowhttptest opens them in its first second or so (-r n).
		w := t.watchClose(pid, base, n, bystander(in.URL(), timeout), began.Add(limit+3*time.Second))
		t.row.add(t, "most held at once", "%d connections", w.most)
		if why, ok := tg.Lenient["slow body"]; ok {
			t.lenient(why, func() bool { return w.open > 0 })
			t.check(w.by)
			return
		}
		t.check(w.by)
		peak := t.usage(in).Peak
		t.row.add(t, "peak RSS", "%s", mib(peak))
		if peak > rssBound {
			t.Errorf("peak RSS %s, over the bound of %s", mib(peak), mib(rssBound))
		}
		if w.open > 0 {
			t.Fatalf("%d connections still open %s after slowhttptest began (header timeout %v): a body dripped a few bytes a second holds its connection", w.open, secs(w.closed.Sub(began)), timeout)
		}
		// The last opened when the server held them all, or, if it never
		// did (it answers before the body), when slowhttptest began.
		opened, from := w.full, "the last opening"
		if opened.IsZero() {
			opened, from = began, "slowhttptest's start"
		}
		took := w.closed.Sub(opened)
		t.row.add(t, "closed", "all within %s of %s", secs(took), from)
		if took > limit {
			t.Errorf("the last slow body closed %s after the last opened, more than the header timeout %v + 1 s", secs(took), timeout)
		}
		t.closedAll(sl, n)
		t.alive(in, "after the slow bodies")
	})
}

// TestSlowKeepAliveBody sends, on connections answered once and kept
// alive, a POST of the page whose 4096-byte body comes a byte every 500
// ms. slowhttptest -B asks Connection: close, which lets a server answer
// and close without reading the body; a request that keeps the
// connection makes the server read the body before the next request. The
// server may answer before the body, but it must close every connection
// within the header timeout plus 1 s of the request's first byte, while a
// normal client beside them is served.
func TestSlowKeepAliveBody(t *testing.T) {
	n, timeout := size().keepAliveBody, size().headerTimeout
	limit := timeout + time.Second
	forEach(t, "slow keep-alive body", fmt.Sprintf("%d connections, header timeout %v", n, timeout), true, func(t *test, tg targets.Target) {
		in := t.start(tg, targets.Env{HeaderTimeout: timeout})
		t.serves(in, 5*time.Second, "before the slow bodies")
		by := bystander(in.URL(), limit)
		// Past the limit by 2 s, a connection is open for good.
		giveUp := limit + 2*time.Second
		held := make(chan drip, n)
		for range n {
			go func() { held <- dripBody(in.Addr, giveUp) }()
		}
		var longest time.Duration
		open := 0
		for range n {
			d := <-held
			if d.err != nil {
				t.Fatalf("%v", d.err)
			}
			if !d.closed {
				open++
			}
			longest = max(longest, d.held)
		}
		if why, ok := tg.Lenient["slow keep-alive body"]; ok {
			t.lenient(why, func() bool { return open > 0 })
			t.check(<-by)
			return
		}
		t.check(<-by)
		if open > 0 {
			t.Fatalf("%d of %d connections still open %v after their request's first byte (header timeout %v): a body dripped on a kept connection holds it", open, n, giveUp, timeout)
		}
		t.row.add(t, "closed", "all within %s of the request's first byte", secs(longest))
		if longest > limit {
			t.Errorf("a slow body's connection closed %s after the request began, more than the header timeout %v + 1 s", secs(longest), timeout)
		}
		t.alive(in, "after the slow bodies")
	})
}

// A drip is how one connection of TestSlowKeepAliveBody ended.
type drip struct {
	held   time.Duration // from the slow request's first byte to the close, or giving up
	closed bool          // the server closed it
	err    error         // the connection failed before the slow request
}

// dripBody gets the page on a new connection, then sends a POST whose
// body comes a byte every 500 ms, and reads until the server closes the
// connection or giveUp passes.
func dripBody(addr string, giveUp time.Duration) drip {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return drip{err: err}
	}
	defer c.Close()
	br := bufio.NewReader(c)
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, request); err != nil {
		return drip{err: fmt.Errorf("send the first request: %w", err)}
	}
	if err := readPage(br); err != nil {
		return drip{err: fmt.Errorf("the first request: %w", err)}
	}
	began := time.Now()
	c.SetDeadline(began.Add(giveUp))
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		head := "POST " + page.Path + " HTTP/1.1\r\nHost: robust\r\nContent-Length: 4096\r\n\r\n"
		if _, err := io.WriteString(c, head); err != nil {
			return
		}
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for range 4096 {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			if _, err := c.Write([]byte("a")); err != nil {
				return
			}
		}
	}()
	// Whatever the server answers, read on until it closes.
	_, err = io.Copy(io.Discard, br)
	d := drip{held: time.Since(began), closed: true}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		d.closed = false
	}
	return d
}

// byConns are the connections the bystander holds (loadgen -c 2).
const byConns = 2

// A watch is what watchClose saw of a server's connections.
type watch struct {
	by     result    // the bystander's
	most   int       // the most held beyond the base at once, the bystander's included
	full   time.Time // when the server first held the slow connections all
	open   int       // held beyond the base at the end: 0 when all closed
	closed time.Time // when the last of them closed, or the end
}

// watchClose samples pid's open descriptors every 20 ms while the
// bystander runs, and after it until pid holds no more than base or until
// deadline. The bystander's connections are not counted until 500 ms
// after it reports, the time to close them; slow are the others.
func (t *test) watchClose(pid, base, slow int, by <-chan result, deadline time.Time) watch {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var w watch
	var ended time.Time // when the bystander reported
	for {
		now, n := time.Now(), t.files(pid)
		w.most, w.open = max(w.most, n-base), n-base
		if w.full.IsZero() && n-base >= slow {
			w.full = now
		}
		extra := byConns
		if !ended.IsZero() && now.Sub(ended) > 500*time.Millisecond {
			extra = 0
		}
		if n > base+extra {
			w.closed = time.Time{}
		} else if w.closed.IsZero() {
			w.closed = now
		}
		if !ended.IsZero() && (n <= base || now.After(deadline)) {
			if n > base {
				w.closed = now
			}
			return w
		}
		select {
		case w.by = <-by:
			ended = time.Now()
		case <-tick.C:
		}
	}
}

// closedAll fails unless slowhttptest sent its n requests and ended
// because the server closed every connection: it checks once a second.
func (t *test) closedAll(sl *proc.Process, n int) {
	t.Helper()
	select {
	case <-sl.Exited():
	case <-time.After(3 * time.Second):
		t.Fatalf("slowhttptest still running 3 s after the server closed its connections")
	}
	out := sl.Output().String()
	sent, end := strings.Count(out, "bytes sent on socket"), exitStatus(out)
	if sent != n || end != "No open connections left" {
		t.Errorf("slowhttptest sent %d of %d requests and ended with %q, want every connection closed by the server", sent, n, end)
	}
}

// exitStatus returns why slowhttptest ended, as it says, without its
// colours.
func exitStatus(out string) string {
	_, s, ok := strings.Cut(out, "Exit status:")
	if !ok {
		return "no exit status"
	}
	s, _, _ = strings.Cut(s, "\n")
	return strings.TrimSpace(ansi.ReplaceAllString(s, ""))
}

// ansi matches a terminal's colour sequences.
var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")
