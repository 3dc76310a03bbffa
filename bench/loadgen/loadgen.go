// Package loadgen is an HTTP/1.x load generator that reports like ab
// (ApacheBench) and costs less CPU per request than wrk.
//
// Run drives Config.Concurrency connections from event loops, by default one
// per GOMAXPROCS, each on its own OS thread. The request is built once and
// sent whole (a pipeline batch in one send); responses are parsed
// incrementally as they come and counted; a request allocates nothing. A
// loop does its I/O through one of two engines (see EngineURing): under
// load, an io_uring ring, where one system call submits every send and
// receive due and reaps a batch of completions, so a request costs a small
// share of a system call; otherwise a Linux epoll set over non-blocking
// sockets, where a request costs a write, a read and a share of an
// epoll_wait.
//
// Requests are HTTP/1.0 as ab sends them; with KeepAlive they add
// "Connection: Keep-Alive", so the server sees the same bytes as from ab and
// ab -k. A request is counted once: Complete when its whole response has
// been read (and its body has the first response's length, as ab requires),
// or Failed. When a reused keep-alive connection closes or resets before any
// byte of a response (a server's keep-alive request limit), the requests it
// still held are sent again on a new connection and counted once; requests
// after one whose response said "Connection: close" are re-sent likewise.
// With a Requests limit, exactly that many requests are counted; with a
// Duration, requests still in flight when the time is up are not counted, as
// with wrk.
//
// Latency runs from a request's start to the last byte of its response. The
// start is the send, or the opening of the connection for the request that
// opened it (ab's Total = Connect + Processing), or, with Rate, the time the
// schedule meant it to be sent, as wrk2 measures: a stalled server then shows
// in the latency of every request it delayed (no coordinated omission).
// The last byte's time is when the loop handles it: an io_uring loop
// awaiting 16 or more responses may wait up to 20 µs to handle them in a
// batch, and that wait is in their latency. Likewise, at a rate of more
// than one request per 20 µs a loop, the requests due within 20 µs are sent
// together, up to 20 µs after their intended times, which their latencies
// include.
//
// Each loop records into its own HDR histograms (1 ns to 1 h, 3 significant
// digits) and counters; they are merged when the run ends.
package loadgen

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"golang.org/x/sys/unix"
)

// Config describes one run.
type Config struct {
	URL         string        // http://host[:port]/path
	Requests    int           // requests to count (ab -n); 0: until Duration
	Concurrency int           // connections (ab -c); 0 means 1
	KeepAlive   bool          // reuse connections (ab -k); else one per request
	Pipeline    int           // requests in flight per connection, written together; 0 means 1
	Duration    time.Duration // stop when this is up (ab -t, wrk -d); 0: no limit
	Timeout     time.Duration // a request fails when its connection is silent this long (ab -s); 0: none
	Rate        float64       // requests per second in total, open loop; 0: closed loop
	Method      string        // default GET
	Headers     []string      // "Name: value"; replaces a default header of that name
	Loops       int           // event loops; 0 means min(GOMAXPROCS, Concurrency)
	Engine      string        // EngineURing, EngineEpoll, or "": io_uring for 16 connections a loop or more, when the kernel has it

	// Solo says the process does nothing but the run, as the loadgen
	// command: a loop with nothing to read may then sleep in epoll_wait
	// holding its P, which costs less CPU per request, but other goroutines
	// (an in-process server) wait meanwhile.
	Solo bool

	// Progress, if set, is called about every 100 ms from another goroutine
	// with the number of requests counted so far.
	Progress func(done int64)
}

// The I/O engines. io_uring submits a batch of sends and receives and reaps
// a batch of completions in one system call, and under load its loop sleeps
// until several are ready; epoll costs a system call per send and per
// receive and a wake-up per readiness. io_uring needs Linux 6.1 or later.
const (
	EngineURing = "io_uring"
	EngineEpoll = "epoll"
)

// Result is what a run measured. Times in the histograms are nanoseconds.
type Result struct {
	URL            string
	Host           string
	Port           int
	Path           string
	ServerSoftware string
	DocumentLength int64 // body length of the first response
	Concurrency    int
	KeepAlive      bool
	Pipeline       int
	Rate           float64
	Requests       int           // requested; 0 when run by duration
	Engine         string        // the I/O engine the loops used
	Elapsed        time.Duration // time taken for the measured requests

	Complete          int64
	Failed            int64
	Failures          Failures
	Non2xx            int64
	Status            map[int]int64 // by status code; 0 for an out-of-range code
	KeepAliveRequests int64
	Connections       int64 // connections opened
	TotalBytes        int64 // response bytes, headers included
	HTMLBytes         int64 // response body bytes

	// Total, Connect, Processing and Waiting times of complete requests, as
	// in ab's Connection Times table.
	Latency, Connect, Processing, Waiting *hdrhistogram.Histogram
}

// RequestsPerSec is complete requests per second of Elapsed.
func (r *Result) RequestsPerSec() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Complete) / r.Elapsed.Seconds()
}

// target is the parsed URL.
type target struct {
	host, path string
	port       int
	addr       string // ip:port, for messages
	sa         unix.Sockaddr
	domain     int
}

func parseTarget(raw string) (*target, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("invalid URL %q", raw)
	}
	if u.Scheme != "http" {
		if u.Scheme == "https" {
			return nil, fmt.Errorf("invalid URL %q: https is not supported", raw)
		}
		return nil, fmt.Errorf("invalid URL %q: want http://host[:port]/path", raw)
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("invalid URL %q: no host", raw)
	}
	t := &target{host: u.Hostname(), path: u.EscapedPath(), port: 80}
	if t.path == "" {
		t.path = "/"
	}
	if u.RawQuery != "" {
		t.path += "?" + u.RawQuery
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("invalid URL %q: bad port %q", raw, p)
		}
		t.port = n
	}
	ips, err := net.LookupIP(t.host)
	if err != nil || len(ips) == 0 {
		return nil, fmt.Errorf("cannot resolve %s: %v", t.host, err)
	}
	ip := ips[0]
	for _, a := range ips {
		if a.To4() != nil {
			ip = a
			break
		}
	}
	if ip4 := ip.To4(); ip4 != nil {
		sa := &unix.SockaddrInet4{Port: t.port}
		copy(sa.Addr[:], ip4)
		t.sa, t.domain = sa, unix.AF_INET
	} else {
		sa := &unix.SockaddrInet6{Port: t.port}
		copy(sa.Addr[:], ip.To16())
		t.sa, t.domain = sa, unix.AF_INET6
	}
	t.addr = net.JoinHostPort(ip.String(), strconv.Itoa(t.port))
	return t, nil
}

// buildRequest returns the request's bytes, ab's own with a different
// User-Agent.
func buildRequest(cfg *Config, t *target) ([]byte, error) {
	method := cfg.Method
	if method == "" {
		method = "GET"
	}
	for _, c := range method {
		if c <= ' ' || c >= 0x7f {
			return nil, fmt.Errorf("invalid method %q", method)
		}
	}
	host := t.host
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if t.port != 80 {
		host += ":" + strconv.Itoa(t.port)
	}
	defaults := [][2]string{{"Host", host}, {"User-Agent", "loadgen"}, {"Accept", "*/*"}}
	var extra strings.Builder
	for _, h := range cfg.Headers {
		name, value, ok := strings.Cut(h, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(h, "\r\n") {
			return nil, fmt.Errorf("invalid header %q: want \"Name: value\"", h)
		}
		for i, d := range defaults {
			if strings.EqualFold(d[0], name) {
				defaults[i][0] = ""
			}
		}
		extra.WriteString(name + ": " + strings.TrimSpace(value) + "\r\n")
	}
	var b strings.Builder
	b.WriteString(method + " " + t.path + " HTTP/1.0\r\n")
	if cfg.KeepAlive {
		b.WriteString("Connection: Keep-Alive\r\n")
	}
	for _, d := range defaults {
		if d[0] != "" {
			b.WriteString(d[0] + ": " + d[1] + "\r\n")
		}
	}
	b.WriteString(extra.String())
	b.WriteString("\r\n")
	return []byte(b.String()), nil
}

// shared is the state the loops of one run share.
type shared struct {
	start     time.Time
	stop      atomic.Bool  // the run is over: time is up, an error, or ctx done
	connected atomic.Bool  // some connection was established
	docLen    atomic.Int64 // body length of the first response, -1 before it
}

// Run performs one run and returns its result. Only a setup error, or a
// failure to connect before any connection succeeded, is an error; request
// failures are counted in the Result.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Concurrency == 0 {
		cfg.Concurrency = 1
	}
	if cfg.Pipeline == 0 {
		cfg.Pipeline = 1
	}
	switch {
	case cfg.Requests < 0:
		return nil, fmt.Errorf("invalid number of requests %d", cfg.Requests)
	case cfg.Concurrency < 0:
		return nil, fmt.Errorf("invalid concurrency %d", cfg.Concurrency)
	case cfg.Pipeline < 0 || cfg.Pipeline > 1024:
		return nil, fmt.Errorf("invalid pipeline depth %d (1 to 1024)", cfg.Pipeline)
	case cfg.Duration < 0 || cfg.Timeout < 0:
		return nil, errors.New("negative duration or timeout")
	case cfg.Rate < 0 || math.IsNaN(cfg.Rate) || math.IsInf(cfg.Rate, 0):
		return nil, fmt.Errorf("invalid rate %v", cfg.Rate)
	case cfg.Engine != "" && cfg.Engine != EngineURing && cfg.Engine != EngineEpoll:
		return nil, fmt.Errorf("invalid engine %q (%s or %s)", cfg.Engine, EngineURing, EngineEpoll)
	case cfg.Requests == 0 && cfg.Duration == 0:
		return nil, errors.New("neither a number of requests nor a duration")
	case cfg.Requests > 0 && cfg.Concurrency > cfg.Requests:
		return nil, fmt.Errorf("cannot use concurrency level %d greater than total number of requests %d",
			cfg.Concurrency, cfg.Requests)
	}
	t, err := parseTarget(cfg.URL)
	if err != nil {
		return nil, err
	}
	req, err := buildRequest(&cfg, t)
	if err != nil {
		return nil, err
	}
	nloops := cfg.Loops
	if nloops <= 0 {
		nloops = runtime.GOMAXPROCS(0)
	}
	nloops = min(nloops, cfg.Concurrency)

	// Left to choose, io_uring for minGather connections a loop or more,
	// and epoll below: with few connections there is little to batch, and
	// epoll, polling before it sleeps, answered sooner and kept the server
	// busier.
	engine := cfg.Engine
	if engine == "" {
		engine = EngineEpoll
		if cfg.Concurrency/nloops >= minGather {
			engine = EngineURing
		}
	}

	sh := &shared{}
	sh.docLen.Store(-1)
	loops := make([]*loop, nloops)
	for i := range loops {
		// Spread connections, requests and rate evenly over the loops.
		conns := share(cfg.Concurrency, nloops, i)
		n := -1
		if cfg.Requests > 0 {
			n = share(cfg.Requests, nloops, i)
		}
		// With a rate, loop i's schedule starts i sends after loop 0's, so
		// the loops' sends interleave rather than coincide.
		var first time.Duration
		if cfg.Rate > 0 {
			first = time.Duration(float64(i) * float64(time.Second) / cfg.Rate)
		}
		loops[i] = newLoop(&cfg, t, req, sh, conns, n, cfg.Rate*float64(conns)/float64(cfg.Concurrency), first)
		loops[i].solo = cfg.Solo
		loops[i].engine = engine
	}

	sh.start = time.Now()
	var wg sync.WaitGroup
	errs := make([]error, nloops)
	for i, l := range loops {
		wg.Go(func() {
			errs[i] = l.run()
			if errs[i] != nil {
				sh.stop.Store(true)
			}
		})
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()

	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
wait:
	for {
		select {
		case <-finished:
			break wait
		case <-ctx.Done():
			sh.stop.Store(true)
		case <-tick.C:
			if cfg.Progress != nil {
				var done int64
				for _, l := range loops {
					done += l.done.Load()
				}
				cfg.Progress(done)
			}
		}
	}
	for _, e := range errs {
		if e != nil {
			return nil, e
		}
	}

	r := &Result{
		URL:            cfg.URL,
		Host:           t.host,
		Port:           t.port,
		Path:           t.path,
		DocumentLength: max(sh.docLen.Load(), 0),
		Concurrency:    cfg.Concurrency,
		KeepAlive:      cfg.KeepAlive,
		Pipeline:       cfg.Pipeline,
		Rate:           cfg.Rate,
		Requests:       cfg.Requests,
		Status:         map[int]int64{},
		Latency:        hdrhistogram.New(histMin, histMax, histSig),
		Connect:        hdrhistogram.New(histMin, histMax, histSig),
		Processing:     hdrhistogram.New(histMin, histMax, histSig),
		Waiting:        hdrhistogram.New(histMin, histMax, histSig),
	}
	for _, l := range loops {
		if r.Engine == "" {
			r.Engine = l.engine
		} else if r.Engine != l.engine {
			r.Engine = EngineURing + "+" + EngineEpoll // a loop fell back
		}
		r.merge(l.s)
		r.Elapsed = max(r.Elapsed, l.s.last)
	}
	if cfg.Progress != nil {
		cfg.Progress(r.Complete + r.Failed)
	}
	return r, nil
}

// share is part i of n split into k near-equal parts.
func share(n, k, i int) int {
	s := n / k
	if i < n%k {
		s++
	}
	return s
}
