//go:build linux

// Package loadgen is an HTTP/1.x load generator that reports like ab
// (ApacheBench) and costs less CPU per request than wrk.
//
// Run checks a Config (Config.Validate), builds one event loop per
// GOMAXPROCS, each on its own OS thread with Config.Concurrency/loops
// connections, runs them, and merges what each recorded into one Result.
// The request is built once and sent whole (a pipeline batch in one send);
// responses are parsed incrementally as they come and counted; a request
// allocates nothing. A loop does its socket I/O through an engine (see
// EngineURing): under load an io_uring ring, where one system call submits
// every send due and reaps a batch of completions, each connection's
// receive staying armed (multishot) with buffers the kernel takes as bytes
// come, so a request costs a small share of a system call; otherwise an
// epoll set over non-blocking sockets, where a request costs a write, a read
// and a share of an epoll_wait. A connection has at most one send in flight,
// so requests reach the server whole and in order. A closed loop pipelining
// sets each socket's SO_RCVLOWAT to the least its batch's answers can
// amount to, so that it is woken and reads once per batch rather than once
// per response (lowat.go).
//
// # TLS
//
// With an https:// URL each loop speaks TLS 1.3 (TLS_AES_128_GCM_SHA256
// over X25519) through a small client of its own, between the loop and its
// engine (tls.go, handshake.go), rather than crypto/tls, whose connections
// need a goroutine each. A connection counts as established, for ab's
// Connect time as for the counts, when its handshake ends, and the
// client's Finished goes with its first requests. Each new connection makes
// a full handshake, or with Resume offers the session (ticket) the last
// connection in its place got. The client reuses one key share per loop
// and does not authenticate the server, so that a handshake costs it less
// than the server (handshake.go says why that changes nothing for the
// server). TLS 1.2 is not spoken: a server that offers nothing newer ends
// the run with the server's alert.
//
// # Counting
//
// Requests are HTTP/1.0 as ab sends them; with KeepAlive they add
// "Connection: Keep-Alive", so the server sees the same bytes as from ab and
// ab -k. A request is counted once: Complete when its whole response has
// been read (and, unless AnyLength, its body has the first response's
// length, as ab requires), or Failed. When a keep-alive connection that had
// already answered closes or resets before any byte of a response (a
// server's keep-alive request limit), the requests it still held are sent
// again on a new connection, up to three sends in all, and counted once;
// requests after one whose response said "Connection: close" are re-sent
// likewise. With a Requests limit, exactly that many requests are counted,
// unless the run is stopped (the context, or StopOnReceiveError); with a
// Duration, requests still in flight when the time is up are not counted,
// as with wrk.
//
// # Latency
//
// Latency runs from a request's start to the last byte of its response. The
// start is the send, or the opening of the connection for the request that
// opened it (ab's Total = Connect + Processing), or, with Rate, the time the
// schedule meant it to be sent, as wrk2 measures: a stalled server then
// shows in the latency of every request it delayed (no coordinated
// omission). The last byte's time is when the loop handles it: an io_uring
// loop awaiting 16 or more responses may wait up to 20 µs to handle them in
// a batch, and that wait is in their latency. Likewise, at a rate of more
// than one request per 20 µs a loop, the requests due within 20 µs are sent
// together, up to 20 µs after their intended times, which their latencies
// include. A pipelined request's last byte is handled with its batch's
// (the socket wakes the loop once the batch's answers can all be there).
//
// Each loop records into its own HDR histograms (1 ns to 1 h, 3 significant
// digits) and counters; they are merged when the run ends.
//
// # Send lateness
//
// With Rate, a loop also measures itself: for each request sent, how late
// it went (Result.SendLateness), so that a run can tell whether the tail of
// its latencies was the server's or the client's own (Result.ClientLimited).
// A request's lateness is the time the system call that sends it was issued
// (epoll: its write; io_uring: the io_uring_enter that submits its send),
// less the time it could first have gone: its due time, or, when no
// connection could take it then (each had Pipeline requests unanswered, or
// was connecting), the time the loop gave it to the first connection to
// free, taken when the loop learned of it (the wake-up that read the answer
// or the completed connect). Requests written in one send each count their
// own: the send's time less each one's own. A request sent again on a new
// connection counts once, at its first send.
//
// So lateness counts the loop waking after the due time (the timer, the
// host's scheduler, a thread that did not get a CPU or, in a Go program
// sharing the loop's process, a P), the loop's work before the send
// (handling other connections' events), the deliberate gather of the sends
// due within 20 µs, and, with Pipeline above 1, a request waiting for its
// connection's send in flight. It does not count the wait for a server to
// answer and free a connection, a connect's handshake, the time from an
// answer's arrival to the loop's handling it, nor anything after the system
// call is issued: the kernel's work, room in the socket's buffer, the
// network. (An io_uring submission queue that fills is submitted early, and
// its sends are timed at the next enter: the queue is sized not to fill.)
// Each request's latency, counted from its due time, includes its lateness.
//
// # HTTP/3
//
// With H3 and an https:// URL, a run speaks HTTP/3 through quic-go's client
// (h3.go) instead of the engines above: each of Concurrency connections is
// a QUIC connection (TLS 1.3 inside QUIC, ALPN "h3"), a UDP socket of its
// own, with Streams requests in flight at a time, each on its own stream.
// quic-go needs goroutines, so there are no event loops: a goroutine per
// stream takes a request, sends it, reads its response and counts it, on
// the threads GOMAXPROCS allows, and the run's stats are shared by
// min(GOMAXPROCS, Concurrency) locked shards. Loops, Engine, Pipeline and
// Spin do not apply. A request is GET or HEAD (or Method) with the default
// headers above and Headers, but Connection, which HTTP/3 has no place for;
// Host is its :authority. Counting, the Result and the report are the
// TCP engines', and so is Rate's schedule (a request's latency counts from
// its due time; its lateness, from then to the client's send of it).
// What differs:
//
//   - The CPU a request costs is quic-go's (its goroutines and timers, a
//     UDP system call per packet, its allocations), not loadgen's own
//     client's: an HTTP/3 run's client cost, and a server's rate where the
//     client limits it, are not comparable with an HTTP/1.x run's.
//   - A request is sent when its goroutine calls the HTTP/3 client, and its
//     last byte is when the goroutine reads it: the Go scheduler's delays
//     are in its times, and there is no batching.
//   - The TLS is crypto/tls's, offering X25519 alone, as loadgen's own
//     client; it does not authenticate the server either. Without
//     KeepAlive each request opens a new connection: a full handshake, or
//     with Resume one that resumes the session the connection's slot last
//     got (a session cache per slot). With EarlyData too, the connection
//     is opened for 0-RTT, and a GET or HEAD goes in 0-RTT data when the
//     session allows early data and its goroutine sends it before the
//     handshake is over (one that runs late sends it after); if the
//     server rejects the early data, the request goes again on a new
//     connection opened without 0-RTT (quic-go's HTTP/3 client cannot go
//     on with the first), and is counted once.
//   - A connection is established, for Connect time and the counts, when
//     quic-go can send on it: once the handshake is over, or at once when
//     it can carry 0-RTT data.
//   - Result.Engine is EngineQUIC; Result.Pipeline holds Streams (the
//     requests in flight per connection); Result.TLS names what the first
//     handshake negotiated "over QUIC (h3)" and, with EarlyData, how many
//     requests went in 0-RTT data the server accepted; Handshakes and
//     Resumed count the QUIC connections' handshakes.
//   - Total transferred counts each response's header as HTTP/1.1 would
//     write it (the fields decoded): the QPACK bytes it came in are not
//     the client's to see.
//   - UDP has no refused connect: a server that is down shows as silence,
//     and the first connect fails after Timeout (at most 5 s) without a
//     packet from the server.
//   - With KeepAlive, a request that gets no response on a connection that
//     had answered before (the server closed it, or refused the stream)
//     goes again on a new connection, up to three sends, as over TCP.
//     Timeout fails a request whose response has not all come within it.
//
// With H2 instead, the same goroutines and pacer speak HTTP/2 over TLS on
// TCP through net/http's HTTP/2 client (ALPN h2, a TCP connection a
// slot, Streams requests in flight on it; Result.Engine is EngineH2 and
// its TLS line says "over TCP (h2)"), so that a bench sets HTTP/2 and
// HTTP/3 side by side with the client driving both alike; EarlyData does
// not apply.
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
	URL         string        // http://host[:port]/path or https://
	Requests    int           // requests to count (ab -n); 0: until Duration
	Concurrency int           // connections (ab -c); 0 means 1
	KeepAlive   bool          // reuse connections (ab -k); else one per request
	Pipeline    int           // requests in flight per connection, written together (needs KeepAlive); 0 means 1
	PerConn     int           // requests a connection carries before the client closes it and opens another (needs KeepAlive); 0: no limit
	Duration    time.Duration // stop when this is up (ab -t, wrk -d); 0: no limit
	Timeout     time.Duration // a request fails when its connection is silent this long (ab -s); 0: none
	Rate        float64       // requests per second in total, open loop; 0: closed loop
	Method      string        // default GET
	Headers     []string      // "Name: value"; replaces a default header of that name
	Loops       int           // event loops; 0 means min(GOMAXPROCS, Concurrency)
	Engine      string        // EngineURing, EngineEpoll, or "": io_uring for 16 connections a loop or more, when the kernel has it

	// AnyLength counts a response of any body length as complete (ab -l);
	// otherwise a body whose length differs from the first response's is a
	// Length failure, as in ab.
	AnyLength bool

	// Resume, with an https:// URL, offers each new connection the TLS
	// session its last one got (a ticket), so that its handshake resumes
	// it; otherwise every handshake is a full one.
	Resume bool

	// H3 speaks HTTP/3 over QUIC, through quic-go's client, instead of
	// HTTP/1.x over TCP (see the package doc's "HTTP/3"). It needs an
	// https:// URL.
	H3 bool

	// H2 speaks HTTP/2 over TLS on TCP through net/http's HTTP/2
	// client, on the HTTP/3 engine's goroutines and pacer (h3.go): so that
	// HTTP/2 and HTTP/3 are driven alike, a stream a goroutine, the same
	// schedule. It needs an https:// URL; Streams and Resume apply to it
	// as to H3, EarlyData does not.
	H2 bool

	// Streams, with H3 (or H2) and KeepAlive, is how many requests each connection
	// has in flight at a time, each on its own stream; 0 means 1.
	Streams int

	// EarlyData, with H3 and Resume, opens each new connection for 0-RTT:
	// a GET or HEAD goes with the handshake's first flight when the
	// resumed session allows early data, and the server accepts it or not.
	EarlyData bool

	// StopOnReceiveError ends the run at the first request that fails with
	// a socket error (a reset, a refused send), as ab does without -r; the
	// Result says so in Aborted. Otherwise the request is counted as a
	// Receive failure and the run goes on.
	StopOnReceiveError bool

	// Solo says the process does nothing but the run, as the loadgen
	// command: a loop with nothing to read may then sleep in epoll_wait
	// holding its P, which costs less CPU per request, but other goroutines
	// (an in-process server) wait meanwhile.
	Solo bool

	// Spin, with a Rate, keeps the loop polling instead of sleeping until
	// the next request is due: a core that goes idle wakes late now and
	// then (on a virtual machine, by milliseconds), and every request due
	// meanwhile goes late. It costs the whole client core.
	Spin bool

	// Progress, if set, is called about every 100 ms from another goroutine
	// with the number of requests counted so far.
	Progress func(done int64)

	// StartAt, if set, is when the run starts, so that runs on several
	// hosts start together: Run resolves the target and prepares its loops,
	// then waits until StartAt before it opens a connection. A time past
	// starts at once.
	StartAt time.Time

	// ringSize, if set, is the io_uring submission queue's size, and
	// sndBuf each socket's send buffer (SO_SNDBUF), for tests that need
	// the one full or sends to wait for room in the other.
	ringSize, sndBuf int
}

// The I/O engines. io_uring submits a batch of sends and receives and reaps
// a batch of completions in one system call, and under load its loop sleeps
// until several are ready; epoll costs a system call per send and per
// receive and a wake-up per readiness. io_uring needs Linux 6.3 or later.
const (
	EngineURing = "io_uring"
	EngineEpoll = "epoll"
)

// maxPipeline bounds Config.Pipeline; maxConns bounds Config.Concurrency.
const (
	maxPipeline = 1024
	maxConns    = 1 << 20
)

// withDefaults returns c with its zero values replaced by their meaning.
func (c Config) withDefaults() Config {
	if c.Concurrency == 0 {
		c.Concurrency = 1
	}
	if c.Pipeline == 0 {
		c.Pipeline = 1
	}
	if c.Method == "" {
		c.Method = "GET"
	}
	return c
}

// Validate reports what is wrong with c, if anything, as Run would before
// it starts. It is the one place a Config is checked; it resolves no name
// and opens no socket.
func (c Config) Validate() error {
	c = c.withDefaults()
	switch {
	case c.Requests < 0:
		return fmt.Errorf("invalid number of requests %d", c.Requests)
	case c.Requests == 0 && c.Duration == 0:
		return errors.New("neither a number of requests nor a duration")
	case c.Concurrency < 0 || c.Concurrency > maxConns:
		return fmt.Errorf("invalid concurrency %d (1 to %d)", c.Concurrency, maxConns)
	case c.Requests > 0 && c.Concurrency > c.Requests:
		return fmt.Errorf("cannot use concurrency level %d greater than total number of requests %d",
			c.Concurrency, c.Requests)
	case c.Pipeline < 0 || c.Pipeline > maxPipeline:
		return fmt.Errorf("invalid pipeline depth %d (1 to %d)", c.Pipeline, maxPipeline)
	case c.Pipeline > 1 && !c.KeepAlive:
		return errors.New("pipelining needs keep-alive: without it a connection carries one request")
	case c.PerConn < 0:
		return fmt.Errorf("invalid requests per connection %d", c.PerConn)
	case c.PerConn > 0 && !c.KeepAlive:
		return errors.New("requests per connection need keep-alive: without it a connection carries one request")
	case c.PerConn > 0 && (c.H3 || c.H2):
		return errors.New("requests per connection apply to HTTP/1.x only")
	case c.Duration < 0:
		return fmt.Errorf("invalid duration %v", c.Duration)
	case c.Timeout < 0:
		return fmt.Errorf("invalid timeout %v", c.Timeout)
	case c.Rate < 0 || math.IsNaN(c.Rate) || math.IsInf(c.Rate, 0):
		return fmt.Errorf("invalid rate %v", c.Rate)
	case c.Loops < 0:
		return fmt.Errorf("invalid number of loops %d", c.Loops)
	case c.Engine != "" && c.Engine != EngineURing && c.Engine != EngineEpoll:
		return fmt.Errorf("invalid engine %q (%s or %s)", c.Engine, EngineURing, EngineEpoll)
	}
	t, err := parseURL(c.URL)
	if err != nil {
		return err
	}
	if err := c.checkH3(t); err != nil {
		return err
	}
	if c.Resume && !t.tls {
		return errors.New("resuming TLS sessions needs an https:// URL")
	}
	_, err = buildRequest(&c, &target{host: "h", port: 80, path: "/"})
	return err
}

// target is the parsed URL.
type target struct {
	host, path string
	port       int
	addr       string // ip:port, for messages
	sa         unix.Sockaddr
	domain     int
	tls        bool // https://
}

// defaultPort is the port of t's scheme.
func (t *target) defaultPort() int {
	if t.tls {
		return 443
	}
	return 80
}

// parseURL reads raw without resolving its host.
func parseURL(raw string) (*target, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("invalid URL %q", raw)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("invalid URL %q: want http://host[:port]/path or https://", raw)
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("invalid URL %q: no host", raw)
	}
	t := &target{host: u.Hostname(), path: u.EscapedPath(), tls: u.Scheme == "https"}
	t.port = t.defaultPort()
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
	return t, nil
}

// resolve finds t's address, preferring IPv4.
func (t *target) resolve() error {
	ips, err := net.LookupIP(t.host)
	if err != nil || len(ips) == 0 {
		return fmt.Errorf("cannot resolve %s: %w", t.host, err)
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
	return nil
}

// buildRequest returns the request's bytes, ab's own with a different
// User-Agent.
func buildRequest(cfg *Config, t *target) ([]byte, error) {
	for _, c := range cfg.Method {
		if c <= ' ' || c >= 0x7f {
			return nil, fmt.Errorf("invalid method %q", cfg.Method)
		}
	}
	host := t.host
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if t.port != t.defaultPort() {
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
	b.WriteString(cfg.Method + " " + t.path + " HTTP/1.0\r\n")
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
	abort     atomic.Pointer[error]
}

// Run performs one run and returns its result. Only an invalid Config (as
// Validate reports it), a setup error, or a failure to connect before any
// connection succeeded is an error; request failures are counted in the
// Result.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.H3 || cfg.H2 {
		return runH3(ctx, cfg.withDefaults())
	}
	p, err := build(cfg.withDefaults())
	if err != nil {
		return nil, err
	}
	if err := waitUntil(ctx, cfg.StartAt); err != nil {
		return nil, err
	}
	if err := p.run(ctx); err != nil {
		return nil, err
	}
	return p.merge(), nil
}

// waitUntil waits until t, or until ctx is done, which is an error.
func waitUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("interrupted while waiting to start at %s", t.Format(time.RFC3339Nano))
	}
}

// plan is a run's loops, built and not yet run.
type plan struct {
	cfg   Config
	t     *target
	sh    *shared
	loops []*loop
}

// build resolves the target and makes the loops, spreading connections,
// requests and rate evenly over them.
func build(cfg Config) (*plan, error) {
	t, err := parseURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	if err := t.resolve(); err != nil {
		return nil, err
	}
	req, err := buildRequest(&cfg, t)
	if err != nil {
		return nil, err
	}
	n := cfg.Loops
	if n == 0 {
		n = runtime.GOMAXPROCS(0)
	}
	n = min(n, cfg.Concurrency)

	// Left to choose, io_uring for minGather connections a loop or more,
	// and epoll below: with few connections there is little to batch, and
	// epoll, polling before it sleeps, answered sooner and kept the server
	// busier.
	engine := cfg.Engine
	if engine == "" {
		engine = EngineEpoll
		if cfg.Concurrency/n >= minGather {
			engine = EngineURing
		}
	}
	p := &plan{cfg: cfg, t: t, sh: &shared{}, loops: make([]*loop, n)}
	p.sh.docLen.Store(-1)
	for i := range p.loops {
		conns := share(cfg.Concurrency, n, i)
		left := -1
		if cfg.Requests > 0 {
			left = share(cfg.Requests, n, i)
		}
		var pace *pacer
		if cfg.Rate > 0 {
			// Loop i's schedule starts i sends after loop 0's, so the
			// loops' sends interleave rather than coincide.
			first := time.Duration(float64(i) * float64(time.Second) / cfg.Rate)
			pace = newPacer(cfg.Rate*float64(conns)/float64(cfg.Concurrency), first)
		}
		p.loops[i] = newLoop(&p.cfg, t, req, p.sh, conns, left, pace, engine)
	}
	return p, nil
}

// run runs the loops to the end, reporting progress, and returns the first
// loop's error.
func (p *plan) run(ctx context.Context) error {
	p.sh.start = time.Now()
	var wg sync.WaitGroup
	errs := make([]error, len(p.loops))
	for i, l := range p.loops {
		wg.Go(func() {
			if errs[i] = l.run(); errs[i] != nil {
				p.sh.stop.Store(true)
			}
		})
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()

	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-finished:
			for _, err := range errs {
				if err != nil {
					return err
				}
			}
			return nil
		case <-ctx.Done():
			p.sh.stop.Store(true)
		case <-tick.C:
			if p.cfg.Progress != nil {
				var done int64
				for _, l := range p.loops {
					done += l.done.Load()
				}
				p.cfg.Progress(done)
			}
		}
	}
}

// merge adds up what the loops recorded.
func (p *plan) merge() *Result {
	cfg, t := &p.cfg, p.t
	r := &Result{
		URL:            cfg.URL,
		Host:           t.host,
		Port:           t.port,
		Path:           t.path,
		DocumentLength: max(p.sh.docLen.Load(), 0),
		AnyLength:      cfg.AnyLength,
		Concurrency:    cfg.Concurrency,
		KeepAlive:      cfg.KeepAlive,
		Pipeline:       cfg.Pipeline,
		PerConn:        cfg.PerConn,
		Rate:           cfg.Rate,
		Requests:       cfg.Requests,
		Start:          p.sh.start,
		Status:         map[int]int64{},
		Latency:        hdrhistogram.New(histMin, histMax, histSig),
		Connect:        hdrhistogram.New(histMin, histMax, histSig),
		Processing:     hdrhistogram.New(histMin, histMax, histSig),
		Waiting:        hdrhistogram.New(histMin, histMax, histSig),
	}
	if cfg.Rate > 0 {
		r.SendLateness = newHist()
	}
	if e := p.sh.abort.Load(); e != nil {
		r.Aborted = *e
	}
	if t.tls {
		r.TLS = TLSProtocol
	}
	for _, l := range p.loops {
		if r.Engine == "" {
			r.Engine = l.engine
		} else if r.Engine != l.engine {
			r.Engine = EngineURing + "+" + EngineEpoll // a loop fell back
		}
		r.add(l.s)
		r.Elapsed = max(r.Elapsed, l.s.last)
	}
	if cfg.Progress != nil {
		cfg.Progress(r.Complete + r.Failed)
	}
	return r
}

// share is part i of n split into k near-equal parts.
func share(n, k, i int) int {
	s := n / k
	if i < n%k {
		s++
	}
	return s
}
