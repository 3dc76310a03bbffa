package robust

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hellobench/internal/proc"
	"hellobench/internal/targets"
)

// A sample is what the soak reads of a server's counted processes.
type sample struct {
	rss           int64
	threads, fds  int
	requestsSoFar int64
	at            time.Duration // since the soak began
}

// TestSoak keeps churning keep-alive load on every server for -soak, in
// rounds of 10 s (a twelfth of the run, for runs under two minutes), and
// samples the resident memory, threads and open descriptors of its
// processes between rounds, with no client connected. After a warm-up of a
// fifth of the run they must be flat: the highest sample of the second half
// at most 10% (RSS) or 2 (threads, descriptors) over the first half's.
func TestSoak(t *testing.T) {
	d := *soakFor
	if d <= 0 {
		t.Skip("runs with -args -soak DURATION (make soak)")
	}
	every := 10 * time.Second
	if d < 2*time.Minute {
		every = d / 12
	}
	forEach(t, "soak", fmt.Sprintf("%v, sampled every %v", d, every), true, func(t *test, tg targets.Target) {
		in := t.start(tg, targets.Env{NoFile: 20_000})
		t.serves(in, 5*time.Second, "before the soak")
		var (
			samples []sample
			l       soakLoad
		)
		for began := time.Now(); time.Since(began)+every/2 < d; {
			l.round(in, every-quiet)
			time.Sleep(quiet)
			t.alive(in, "during the soak")
			s := t.sample(in)
			s.at, s.requestsSoFar = time.Since(began), l.done.Load()
			samples = append(samples, s)
		}
		if len(l.errors) > 0 {
			t.Errorf("%d failures under the soak load; the first: %s", len(l.errors), l.errors[0])
		}
		t.flat(samples)
	})
}

// quiet is the pause between rounds, for the server to close what the
// round's clients left.
const quiet = 300 * time.Millisecond

// sample reads the RSS, threads and open descriptors of in's counted
// processes.
func (t *test) sample(in *targets.Instance) sample {
	t.Helper()
	s := sample{rss: t.usage(in).RSS}
	for _, p := range proc.Group(in.Proc.PID()) {
		if !slices.Contains(in.Counted, p.Comm) {
			continue
		}
		th, err1 := proc.Threads(p.PID)
		fd, err2 := proc.OpenFiles(p.PID)
		if err1 != nil || err2 != nil {
			t.Fatalf("sampling %s %d: %v %v", p.Comm, p.PID, err1, err2)
		}
		s.threads += th
		s.fds += fd
	}
	return s
}

// flat fails unless the samples after the warm-up are flat.
func (t *test) flat(samples []sample) {
	t.Helper()
	for _, s := range samples {
		t.Logf("at %v: RSS %s, %d threads, %d descriptors, %d requests", s.at.Round(time.Second), mib(s.rss), s.threads, s.fds, s.requestsSoFar)
	}
	after := samples[len(samples)/5:]
	if len(after) < 4 {
		t.Fatalf("%d samples after the warm-up, too few to judge", len(after))
	}
	a, b := after[:len(after)/2], after[len(after)/2:]
	t.row.add(t, "samples", "%d, %d requests in all", len(samples), samples[len(samples)-1].requestsSoFar)
	for _, m := range []struct {
		name  string
		of    func(sample) int64
		slack func(int64) int64
		show  func(int64) string
	}{
		{"RSS", func(s sample) int64 { return s.rss }, func(x int64) int64 { return x / 10 }, mib},
		{"threads", func(s sample) int64 { return int64(s.threads) }, func(int64) int64 { return 2 }, itoa},
		{"descriptors", func(s sample) int64 { return int64(s.fds) }, func(int64) int64 { return 2 }, itoa},
	} {
		x, y := peak(a, m.of), peak(b, m.of)
		t.row.add(t, m.name, "%s, then %s at most", m.show(x), m.show(y))
		if y > x+m.slack(x) {
			t.Errorf("%s grew after the warm-up: %s at most in the first half, %s in the second", m.name, m.show(x), m.show(y))
		}
	}
}

func peak(s []sample, of func(sample) int64) int64 {
	m := int64(0)
	for _, x := range s {
		m = max(m, of(x))
	}
	return m
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// A soakLoad is rounds of loadgen -k -c 20, whose connections churn from
// one round to the next, beside a client that opens a connection for every
// ten requests.
type soakLoad struct {
	done   atomic.Int64 // requests answered
	mu     sync.Mutex
	errors []string
}

// round runs one round of d.
func (l *soakLoad) round(in *targets.Instance, d time.Duration) {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(stop)
		r, err := loadgen("-k", "-c", "20", "-d", d.String(), in.URL())
		if err == nil {
			err = r.served()
		}
		l.done.Add(r.Complete)
		l.fail(err)
	})
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := l.churn(in.Addr); err != nil {
				l.fail(err)
				time.Sleep(100 * time.Millisecond)
			}
		}
	})
	wg.Wait()
}

// churn asks for the page ten times on one new connection.
func (l *soakLoad) churn(addr string) error {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	for range 10 {
		if _, err := io.WriteString(c, request); err != nil {
			return err
		}
		if err := readPage(br); err != nil {
			return err
		}
		l.done.Add(1)
	}
	return nil
}

func (l *soakLoad) fail(err error) {
	if err == nil {
		return
	}
	l.mu.Lock()
	l.errors = append(l.errors, err.Error())
	l.mu.Unlock()
}
