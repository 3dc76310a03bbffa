package robust

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"hellobench/internal/proc"
	"hellobench/internal/targets"
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
	at, open, ok := t.waitFiles(pid, 15*time.Second, func(c int) bool { return c >= base+n })
	if !ok {
		t.Fatalf("the server holds %d of the %d connections 15 s after they began; slowhttptest says:\n%s", open-base, n, client.Output())
	}
	t.alive(in, "holding them")
	t.row.add(t, "held", "%d connections", n)
	return at
}

// TestSlowloris holds connections that send a header line every second and
// never end the header section: the header timeout must close each within
// the timeout plus 1 s, while a normal client beside them is served.
func TestSlowloris(t *testing.T) {
	n, timeout := size().slowloris, size().headerTimeout
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
