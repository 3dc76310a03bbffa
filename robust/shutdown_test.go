package robust

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"hellobench/internal/targets"
)

// stopWithin is the contract's bound from SIGTERM to exit.
const stopWithin = 5 * time.Second

// TestSIGTERMUnderLoad sends SIGTERM while loadgen -k -c 50 runs. The
// server must exit 0 within 5 s, and no response that began may be cut
// short: loadgen counts none of a wrong length, and four checking clients
// see every response that began arrive whole. A request not yet read may
// be refused.
func TestSIGTERMUnderLoad(t *testing.T) {
	d := size().load
	after := (d / 3).Round(10 * time.Millisecond)
	forEach(t, "SIGTERM under load", fmt.Sprintf("loadgen -k -c 50 for %v, SIGTERM after %v", d, after), true, func(t *test, tg targets.Target) {
		in := t.start(tg, targets.Env{})
		lg := make(chan result, 1)
		go func() {
			l, err := loadgen("-k", "-r", "-c", "50", "-d", d.String(), in.URL())
			lg <- result{l, err}
		}()
		obs := observe(in.Addr, 4)
		time.Sleep(after)
		t.alive(in, "under load")
		sent := time.Now()
		if err := in.Proc.Signal(syscall.SIGTERM); err != nil {
			t.Fatalf("SIGTERM: %v", err)
		}
		select {
		case <-in.Proc.Exited():
		case <-time.After(stopWithin):
			t.Fatalf("still running %v after SIGTERM", stopWithin)
		}
		took := time.Since(sent)
		code, err := in.Proc.ExitCode()
		t.row.add(t, "exit", "status %d, %s after SIGTERM", code, secs(took))
		if code != 0 {
			t.Errorf("exit status %d (%v), want 0; its output:\n%s", code, err, in.Proc.Output())
		}
		whole, cut := obs.wait()
		t.row.add(t, "checking clients", "%d responses whole, %d cut short", whole, cut)
		if cut != 0 {
			t.Errorf("%d responses cut short after they began", cut)
		}
		r := <-lg
		if r.err != nil {
			t.Fatalf("loadgen: %v", r.err)
		}
		t.row.add(t, "loadgen", "%d complete, %d failed, %d of a wrong length", r.Complete, r.Failed, r.Failures.Length)
		if r.Complete == 0 || r.Failures.Length != 0 {
			t.Errorf("loadgen: %d complete, %d responses of a wrong length", r.Complete, r.Failures.Length)
		}
	})
}

// An observer is clients that ask for the page on keep-alive connections
// until the server is gone, and count the responses that began but did not
// arrive whole.
type observer struct {
	wg         sync.WaitGroup
	whole, cut atomic.Int64
}

func observe(addr string, clients int) *observer {
	o := &observer{}
	for range clients {
		o.wg.Go(func() {
			for o.session(addr) {
			}
		})
	}
	return o
}

// session asks for the page on one connection until it ends; it reports
// whether the server still accepts connections.
func (o *observer) session(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false // refused: the server is gone
	}
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		c.SetDeadline(time.Now().Add(stopWithin + time.Second))
		if _, err := io.WriteString(c, request); err != nil {
			return true
		}
		if _, err := br.Peek(1); err != nil {
			return true // closed before the answer began: may be refused
		}
		if err := readPage(br); err != nil {
			o.cut.Add(1)
			return true
		}
		o.whole.Add(1)
	}
}

// wait waits for the clients to end and returns what they counted.
func (o *observer) wait() (whole, cut int64) {
	o.wg.Wait()
	return o.whole.Load(), o.cut.Load()
}
