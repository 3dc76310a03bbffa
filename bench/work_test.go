package bench

import (
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"
)

var (
	flagWorkCPU  = flag.String("work-cpu", "0,1us,5us,20us,100us", "BenchmarkWork's handler CPU work, each level a ceiling per server")
	flagWait     = flag.String("wait", "1ms,10ms,100ms", "BenchmarkWait's handler waits")
	flagWaitRate = flag.Int("wait-rate", 20000, "BenchmarkWait's Little's-law rate in req/s: each wait runs with rate × wait connections")
	flagWaitFor  = flag.Duration("wait-for", 2*time.Second, "how long each BenchmarkWait run is measured, after a quarter as long of warm-up")
	flagWaitOpen = flag.Float64("wait-open", 0.75, "BenchmarkWait's open-loop run: this share of -wait-rate, on twice the connections (0: none)")
)

// BenchmarkWork measures each server that takes handler work (-work-cpu) at
// its ceiling with its handler burning each -work-cpu level of CPU before
// it answers: keep-alive, 50 connections, raised until the server is
// saturated, as BenchmarkCeiling does. With -block, the levels and the
// servers run in that block's order. Run with -benchtime 1x and -for.
func BenchmarkWork(b *testing.B) {
	cfg, client := setup(b)
	names := workServers(b, false)
	levels := durations(b, "work-cpu", *flagWorkCPU, true)
	if *flagBlock >= 0 {
		names, levels = permute(names, *flagBlock), permute(levels, *flagBlock)
	}
	for _, d := range levels {
		for _, name := range names {
			b.Run(fmt.Sprintf("%s/cpu=%gus", name, us(d)), func(b *testing.B) {
				ceiling(b, cfg, client, name, Work{CPU: d}, Load{Mode: KeepAlive, Connections: *flagConns}, nil)
			})
		}
	}
}

// BenchmarkWait measures each server that takes handler work with its
// handler waiting each -wait, using no CPU, before it answers, at the
// connections Little's law needs for -wait-rate (rate × wait): a server
// that overlaps its waits serves close to that rate; one whose waits
// queue behind each other (gnet with the wait on its event loop,
// "gnet/inline") serves one connection's worth. Each run lasts -wait-for.
func BenchmarkWait(b *testing.B) {
	cfg, client := setup(b)
	names := workServers(b, true)
	waits := durations(b, "wait", *flagWait, false)
	if *flagBlock >= 0 {
		names, waits = permute(names, *flagBlock), permute(waits, *flagBlock)
	}
	for _, w := range waits {
		conns := max(1, int(float64(*flagWaitRate)*w.Seconds()+0.5))
		for _, name := range names {
			b.Run(fmt.Sprintf("%s/wait=%gms/c=%d", name, float64(w)/float64(time.Millisecond), conns), func(b *testing.B) {
				waitRun(b, cfg, client, name, w, conns)
			})
		}
	}
}

// waitRun measures one BenchmarkWait point: a warm-up of a quarter of
// -wait-for, then -wait-for of keep-alive load on conns connections, each
// sending its next request when its answer is in (closed loop), then
// -wait-for at -wait-open of the Little rate (open loop).
func waitRun(b *testing.B, cfg Config, client Client, name string, wait time.Duration, conns int) {
	// A run lasts -wait-for whatever b.N is: the rate, not a count, is the point.
	s := startWith(b, cfg, name, Work{Wait: wait})
	l := Load{URL: s.URL(), Mode: KeepAlive, Connections: conns, Duration: *flagWaitFor / 4}
	if strings.HasSuffix(name, InlineSuffix) {
		// Its loop serves one wait at a time: a full warm-up would leave a
		// backlog of conns × wait that the measured run would only drain.
		l.Connections = 1
	}
	// A server that fails requests here is a result, not a broken run: the
	// report says so in its row, as the sweep's servers that fall over.
	if _, err := client.Run(l); err != nil {
		fellOver(b, fmt.Errorf("warm-up: %v", err))
		return
	}
	l.Connections, l.Duration = conns, *flagWaitFor
	b.ResetTimer()
	r, err := Measure(s, client, l)
	b.StopTimer()
	if err != nil {
		fellOver(b, err)
		return
	}
	little := float64(conns) / wait.Seconds()
	// gnet/inline serves one wait at a time, and its closed-loop backlog
	// outlasts any open-loop run: its collapse is shown above.
	if *flagWaitOpen > 0 && !strings.HasSuffix(name, InlineSuffix) {
		// The same wait at a steady rate below the limit, on connections
		// to spare: what a request costs in latency when the load does not
		// arrive in the closed loop's lockstep.
		o := l
		o.Connections, o.Rate, o.Warmup = 2*conns, *flagWaitOpen*little, *flagWaitFor/4
		open, err := client.Run(o)
		if err != nil {
			fellOver(b, fmt.Errorf("open loop at %.0f req/s: %v", o.Rate, err))
			return
		}
		b.ReportMetric(o.Rate, "open-rate")
		b.ReportMetric(open.ReqPerSec, "open-req/s")
		b.ReportMetric(float64(open.P50)/float64(time.Microsecond), "open-p50-us")
		b.ReportMetric(float64(open.P99)/float64(time.Microsecond), "open-p99-us")
		b.ReportMetric(b2f(open.ClientLimited), "open-client-limited")
	}
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(r.ReqPerSec, "req/s")
	b.ReportMetric(100*r.ReqPerSec/little, "little-%")
	b.ReportMetric(float64(r.P50)/float64(time.Microsecond), "p50-us")
	b.ReportMetric(float64(r.P99)/float64(time.Microsecond), "p99-us")
	b.ReportMetric(r.Busy(), "cpu-%")
	b.ReportMetric(r.ClientBusy(), "client-cpu-%")
	b.ReportMetric(r.CPUPerRequest(), "cpu-us/req")
	r.CPUSplit().report(b)
	b.ReportMetric(float64(r.PeakRSS)/(1<<20), "rss-MB")
}

// workServers are the servers that take handler work, in table order (or
// as -servers says), and with inline gnet's wait-on-the-loop form.
func workServers(b *testing.B, inline bool) []string {
	var names []string
	for _, n := range servers() {
		base := strings.TrimSuffix(n, InlineSuffix)
		t, err := lookup(base)
		if err != nil {
			b.Fatal(err)
		}
		if !t.Work {
			if *flagServers != "" {
				b.Fatalf("-servers: %s takes no handler work", n)
			}
			continue
		}
		names = append(names, n)
		if inline && *flagServers == "" && t.WaitInline {
			names = append(names, n+InlineSuffix)
		}
	}
	return names
}

// durations reads a comma-separated list of durations, zero allowed only
// where zero says.
func durations(b *testing.B, name, list string, zero bool) []time.Duration {
	var ds []time.Duration
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		d, err := time.ParseDuration(f)
		if f == "0" {
			d, err = 0, nil
		}
		if err != nil || d < 0 || d == 0 && !zero {
			b.Fatalf("-%s: bad duration %q", name, f)
		}
		ds = append(ds, d)
	}
	return ds
}

// us is d in microseconds, as the report reads a level from a name.
func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// permute returns v in block k's order (Order).
func permute[T any](v []T, k int) []T {
	out := make([]T, len(v))
	for i, j := range Order(len(v), k) {
		out[i] = v[j]
	}
	return out
}
