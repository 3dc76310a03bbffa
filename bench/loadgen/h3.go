//go:build linux

package loadgen

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// EngineQUIC is Result.Engine for an HTTP/3 run: quic-go's client, not
// one of loadgen's own engines.
const EngineQUIC = "quic-go"

// maxStreams bounds Config.Streams.
const maxStreams = 1024

// maxDialWait caps how long a QUIC connect may hear nothing from the
// server: UDP has no refusal, so a server that is down shows as silence.
const maxDialWait = 5 * time.Second

// h3Forbidden are the connection-specific header fields HTTP/3 forbids
// (RFC 9114, section 4.2), which quic-go's client would drop unsaid.
var h3Forbidden = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Transfer-Encoding", "Upgrade"}

// checkH3 reports what in c goes with H3 only, or not with it. t is c's
// URL. It is part of Validate.
func (c *Config) checkH3(t *target) error {
	switch {
	case c.Streams < 0 || c.Streams > maxStreams:
		return fmt.Errorf("invalid number of streams %d (1 to %d)", c.Streams, maxStreams)
	case c.H3 && c.H2:
		return errors.New("HTTP/3 or HTTP/2: give one")
	case !c.H3 && !c.H2 && c.Streams > 1:
		return errors.New("streams are HTTP/2's and HTTP/3's: an HTTP/1.1 connection pipelines instead")
	case !c.H3 && c.EarlyData:
		return errors.New("0-RTT needs HTTP/3")
	case !c.H3 && !c.H2:
		return nil
	case !t.tls:
		return errors.New("HTTP/2 and HTTP/3 here need an https:// URL")
	case c.Pipeline > 1:
		return errors.New("HTTP/3 does not pipeline: a connection carries Streams requests at a time")
	case c.Engine != "":
		return fmt.Errorf("HTTP/3 runs on quic-go, not on the %s engine", c.Engine)
	case c.Loops != 0:
		return errors.New("HTTP/3 runs no event loops: give no Loops")
	case c.Spin:
		return errors.New("HTTP/3 does not spin: its goroutines sleep until a request is due")
	case c.Streams > 1 && !c.KeepAlive:
		return errors.New("streams need keep-alive: without it a connection carries one request")
	case c.EarlyData && !c.Resume:
		return errors.New("0-RTT needs Resume: only a resumed TLS session carries early data")
	}
	for _, h := range c.Headers {
		name, _, _ := strings.Cut(h, ":")
		for _, f := range h3Forbidden {
			if strings.EqualFold(strings.TrimSpace(name), f) {
				return fmt.Errorf("header %s has no place in HTTP/3 (RFC 9114, section 4.2)", f)
			}
		}
	}
	return nil
}

// h3Run is one HTTP/3 run: Concurrency connection slots, each with Streams
// goroutines that take requests, send them on the slot's connection and
// record them into a shard of the run's stats.
type h3Run struct {
	cfg     *Config
	t       *target
	sh      *shared
	streams int
	ctx     context.Context // done when the run is
	cancel  context.CancelFunc
	tr      http3.Transport // makes each connection's ClientConn
	qconf   *quic.Config
	req     *http.Request // the request, to be given a context
	method0 string        // the method to send in 0-RTT (quic-go's name for it)
	slots   []h3Slot
	shards  []h3Shard
	left    atomic.Int64 // requests not yet taken; -1: no limit

	paceMu sync.Mutex
	pace   *pacer // the schedule, with a rate; nil: closed loop

	done   atomic.Int64 // requests counted, for progress
	early  atomic.Int64 // requests the server took in 0-RTT
	proto  atomic.Pointer[string]
	stopAt atomic.Int64 // when the run was stopped, from its start; -1: not stopped
	errMu  sync.Mutex
	err    error
}

// h3Slot is one of Concurrency connections: with KeepAlive the one its
// goroutines share, and its TLS configuration, with its own session cache.
type h3Slot struct {
	mu   sync.Mutex
	conn *h3Conn
	old  []*h3Conn // connections set aside while still open, closed at the end
	tls  *tls.Config
}

// h3Shard is stats that a share of the slots record into.
type h3Shard struct {
	mu sync.Mutex
	s  *stats
}

// h3Req is one request, times from the run's start.
type h3Req struct {
	start   time.Duration // taken, connection start, or due time with a rate
	connect time.Duration // establishment of the connection it opened, or 0
	ready   time.Duration // with a rate, when it could first go; -1 once sent or without a rate
}

// runH3 performs an HTTP/3 run of cfg, checked and with its defaults.
func runH3(ctx context.Context, cfg Config) (*Result, error) {
	t, err := parseURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	if err := t.resolve(); err != nil {
		return nil, err
	}
	h, err := newH3(&cfg, t)
	if err != nil {
		return nil, err
	}
	if err := waitUntil(ctx, cfg.StartAt); err != nil {
		return nil, err
	}
	return h.run(ctx)
}

// newH3 prepares a run: its request, its TLS and QUIC configurations, its
// slots and shards.
func newH3(cfg *Config, t *target) (*h3Run, error) {
	req, err := h3Request(cfg, t)
	if err != nil {
		return nil, err
	}
	h := &h3Run{
		cfg:     cfg,
		t:       t,
		sh:      &shared{},
		streams: max(cfg.Streams, 1),
		req:     req,
		method0: cfg.Method,
		slots:   make([]h3Slot, cfg.Concurrency),
		shards:  make([]h3Shard, min(runtime.GOMAXPROCS(0), cfg.Concurrency)),
	}
	h.sh.docLen.Store(-1)
	h.stopAt.Store(-1)
	// The request as loadgen's own: no gzip asked for or decoded.
	h.tr.DisableCompression = true
	switch cfg.Method {
	case http.MethodGet:
		h.method0 = http3.MethodGet0RTT
	case http.MethodHead:
		h.method0 = http3.MethodHead0RTT
	}
	h.left.Store(-1)
	if cfg.Requests > 0 {
		h.left.Store(int64(cfg.Requests))
	}
	if cfg.Rate > 0 {
		h.pace = newPacer(cfg.Rate, 0)
	}
	wait := maxDialWait
	if cfg.Timeout > 0 {
		wait = min(wait, cfg.Timeout)
	}
	h.qconf = &quic.Config{
		HandshakeIdleTimeout: wait,
		MaxIncomingStreams:   -1, // the server opens no request streams
	}
	if cfg.KeepAlive {
		// As quic-go's own HTTP/3 client: a connection idle between
		// scheduled requests stays open.
		h.qconf.KeepAlivePeriod = 10 * time.Second
	}
	next := []string{http3.NextProtoH3}
	if cfg.H2 {
		// http/1.1 too, so that a server without HTTP/2 answers the
		// handshake and the run can say what it negotiated.
		next = []string{"h2", "http/1.1"}
	}
	base := &tls.Config{
		NextProtos: next,
		MinVersion: tls.VersionTLS13,
		// As loadgen's TLS client: X25519 alone, and the server not
		// authenticated, so that a handshake costs the client little.
		CurvePreferences:   []tls.CurveID{tls.X25519},
		InsecureSkipVerify: true,
	}
	if net.ParseIP(t.host) == nil {
		base.ServerName = t.host
	}
	for i := range h.slots {
		c := base.Clone()
		if cfg.Resume {
			c.ClientSessionCache = tls.NewLRUClientSessionCache(1)
		}
		h.slots[i].tls = c
	}
	for i := range h.shards {
		h.shards[i].s = newStats(h.pace != nil)
	}
	return h, nil
}

// h3Request returns the request as loadgen sends it over TCP, as far as
// HTTP/3 allows: Host becomes :authority, and there is no Connection.
func h3Request(cfg *Config, t *target) (*http.Request, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("invalid URL %q", cfg.URL)
	}
	host := t.host
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if t.port != t.defaultPort() {
		host += ":" + strconv.Itoa(t.port)
	}
	hdr := http.Header{"User-Agent": {"loadgen"}, "Accept": {"*/*"}}
	given := map[string]bool{}
	for _, h := range cfg.Headers {
		name, value, _ := strings.Cut(h, ":")
		name, value = http.CanonicalHeaderKey(strings.TrimSpace(name)), strings.TrimSpace(value)
		if name == "Host" {
			host = value
			continue
		}
		if !given[name] {
			hdr.Del(name) // a default of that name
			given[name] = true
		}
		hdr.Add(name, value)
	}
	return &http.Request{Method: cfg.Method, URL: u, Host: host, Header: hdr}, nil
}

// now is the time since the run's start.
func (h *h3Run) now() time.Duration { return time.Since(h.sh.start) }

// stopped reports whether the run is over: what ends then is not counted.
func (h *h3Run) stopped() bool { return h.sh.stop.Load() }

// halt stops the run at time at (from its start), the first time.
func (h *h3Run) halt(at time.Duration) {
	h.stopAt.CompareAndSwap(-1, int64(at))
	h.sh.stop.Store(true)
	h.cancel()
}

// fatal ends the run with err.
func (h *h3Run) fatal(err error) {
	h.errMu.Lock()
	if h.err == nil {
		h.err = err
	}
	h.errMu.Unlock()
	h.halt(h.now())
}

// run runs the slots' goroutines to the end, reporting progress, and
// returns the result or the run's error.
func (h *h3Run) run(ctx context.Context) (*Result, error) {
	h.ctx, h.cancel = context.WithCancel(ctx)
	defer h.cancel()
	h.sh.start = time.Now()
	var wg sync.WaitGroup
	for i := range h.slots {
		for range h.streams {
			wg.Go(func() { newH3Worker(h, i).run() })
		}
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()

	var end <-chan time.Time
	if d := h.cfg.Duration; d > 0 {
		timer := time.NewTimer(d)
		defer timer.Stop()
		end = timer.C
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	interrupt := ctx.Done()
	for {
		select {
		case <-finished:
			h.closeAll()
			if h.err != nil {
				return nil, h.err
			}
			return h.merge(), nil
		case <-interrupt:
			h.halt(h.now())
			interrupt = nil
		case <-end:
			h.halt(h.cfg.Duration)
		case <-tick.C:
			if h.cfg.Progress != nil {
				h.cfg.Progress(h.done.Load())
			}
		}
	}
}

// closeAll closes the connections still open.
func (h *h3Run) closeAll() {
	for i := range h.slots {
		s := &h.slots[i]
		if s.conn != nil {
			s.old = append(s.old, s.conn)
			s.conn = nil
		}
		for _, c := range s.old {
			c.close()
		}
		s.old = nil
	}
}

// merge adds up the shards into a Result, as the TCP engines' loops are.
func (h *h3Run) merge() *Result {
	if at := time.Duration(h.stopAt.Load()); at >= 0 {
		// Stopped (time up, interrupted, aborted): the run lasted until
		// then, and no longer than its Duration.
		s := h.shards[0].s
		s.last = max(s.last, at)
		if d := h.cfg.Duration; d > 0 {
			s.last = min(s.last, d)
		}
	}
	p := &plan{cfg: *h.cfg, t: h.t, sh: h.sh, loops: make([]*loop, len(h.shards))}
	for i := range h.shards {
		p.loops[i] = &loop{engine: h.engine(), s: h.shards[i].s}
	}
	r := p.merge()
	r.Pipeline = h.streams
	r.TLS = "TLSv1.3 " + h.over() // no handshake completed
	if proto := h.proto.Load(); proto != nil {
		r.TLS = *proto
	}
	r.EarlyData = h.early.Load()
	return r
}

// take takes the next request for w: at once in a closed loop; with a rate,
// the next one due, once it is. ok is false when the run is over for w.
func (h *h3Run) take(w *h3Worker) (q h3Req, ok bool) {
	d := h.cfg.Duration
	if h.stopped() {
		return q, false
	}
	if d > 0 && h.now() >= d {
		// Time is up, though the run's timer may not have said so yet.
		h.halt(d)
		return q, false
	}
	if h.pace == nil {
		if !h.takeOne() {
			return q, false
		}
		return h3Req{start: h.now(), ready: -1}, true
	}
	h.paceMu.Lock()
	if !h.takeOne() {
		h.paceMu.Unlock()
		return q, false
	}
	due := h.pace.take()
	h.paceMu.Unlock()
	if d > 0 && due >= d {
		// The schedule is past the end: wait for it, and end the run.
		if w.sleep(d - h.now()) {
			h.halt(d)
		}
		return q, false
	}
	q = h3Req{start: due, ready: due}
	if now := h.now(); now > due {
		// Overdue: it waited for a goroutine to free, which is the
		// server's doing, not the client's lateness.
		q.ready = now
	} else if !w.sleep(due - now) {
		return q, false
	}
	return q, true
}

// takeOne takes one of the requests left, if any are.
func (h *h3Run) takeOne() bool {
	for {
		n := h.left.Load()
		switch {
		case n < 0:
			return true
		case n == 0:
			return false
		case h.left.CompareAndSwap(n, n-1):
			return true
		}
	}
}

// h3Worker is the goroutine of one stream of a slot.
type h3Worker struct {
	h     *h3Run
	slot  *h3Slot
	shard *h3Shard
	buf   []byte
	timer *time.Timer
}

func newH3Worker(h *h3Run, i int) *h3Worker {
	return &h3Worker{h: h, slot: &h.slots[i], shard: &h.shards[i%len(h.shards)], buf: make([]byte, 16<<10)}
}

func (w *h3Worker) run() {
	for {
		q, ok := w.h.take(w)
		if !ok {
			return
		}
		w.do(&q)
	}
}

// sleep waits d, or until the run ends, which it reports as false.
func (w *h3Worker) sleep(d time.Duration) bool {
	if w.timer == nil {
		w.timer = time.NewTimer(d)
	} else {
		w.timer.Reset(d)
	}
	select {
	case <-w.timer.C:
		return true
	case <-w.h.ctx.Done():
		w.timer.Stop()
		return false
	}
}

// do sends q and counts it once: complete, failed, or not at all when the
// run ends first. A request that gets no response on a connection that had
// answered before goes again on a new one, up to maxTries sends, as over
// TCP; so does one whose 0-RTT data the server rejected, on a connection
// opened without 0-RTT (quic-go's HTTP/3 client cannot go on with a
// connection after a rejection: its streams start again from the first).
func (w *h3Worker) do(q *h3Req) {
	h := w.h
	var hc *h3Conn
	zeroRTT := h.cfg.EarlyData
	for tries := 1; ; tries++ {
		if h.stopped() {
			return // the run ended before it went: not counted
		}
		if hc == nil {
			c, err := w.conn(q, tries == 1, zeroRTT)
			if err != nil {
				w.connectFailed(err)
				return
			}
			hc = c
		}
		sent := h.now()
		if q.ready >= 0 {
			w.record(func(s *stats) { record(s.late, int64(sent-q.ready)) })
			q.ready = -1
		}
		early := hc.early && !isDone(hc.handshakeComplete())
		rctx, cancel := h.ctx, context.CancelFunc(func() {})
		if h.cfg.Timeout > 0 {
			rctx, cancel = context.WithTimeout(h.ctx, h.cfg.Timeout)
		}
		rq := h.req.WithContext(rctx)
		if hc.early {
			// Sent at once, in 0-RTT while the handshake goes on.
			rq.Method = h.method0
		}
		resp, err := hc.roundTrip(rq)
		first := h.now()
		var body int64
		if err == nil {
			body, err = w.read(resp.Body)
		}
		now := h.now()
		timedOut := rctx.Err() == context.DeadlineExceeded
		cancel()
		rejected := err != nil && hc.early && (errors.Is(err, quic.Err0RTTRejected) ||
			early && isDone(hc.handshakeComplete()) && !hc.used0RTT())
		// Rejected, the handshake is over or about to be.
		w.handshake(hc, err == nil || rejected)
		switch {
		case err == nil:
			hc.served.Add(1)
			if early && hc.used0RTT() {
				h.early.Add(1)
			}
			w.complete(q, resp, body, sent, first, now)
			w.release(hc)
			return
		case h.stopped():
			w.release(hc)
			return // cut short by the run's end: not counted
		case rejected && tries < maxTries:
			w.release(hc)
			w.setAside(hc)
			hc, zeroRTT = nil, false
			continue
		case timedOut:
			w.fail(&w.shard.s.failures.Timeout)
			w.release(hc)
			return
		case resp == nil && h.cfg.KeepAlive && hc.served.Load() > 0 && tries < maxTries:
			w.setAside(hc)
			hc = nil
			continue
		}
		w.fail(&w.shard.s.failures.Receive)
		w.release(hc)
		if h.cfg.StopOnReceiveError {
			h.sh.abort.CompareAndSwap(nil, &err)
			h.halt(h.now())
		}
		return
	}
}

// conn returns the connection to send q on: with KeepAlive the slot's,
// opened if it has none alive, else a new one. With a rate, q's lateness
// counts from when it has one.
func (w *h3Worker) conn(q *h3Req, first, zeroRTT bool) (*h3Conn, error) {
	s := w.slot
	if !w.h.cfg.KeepAlive {
		return w.dial(q, first, zeroRTT)
	}
	waited := !s.mu.TryLock()
	if waited {
		s.mu.Lock()
	}
	defer s.mu.Unlock()
	if c := s.conn; c != nil && c.alive() {
		if waited && q.ready >= 0 {
			q.ready = max(q.ready, w.h.now())
		}
		return c, nil
	}
	if s.conn != nil {
		s.old = append(s.old, s.conn)
		s.conn = nil
	}
	c, err := w.dial(q, first, zeroRTT)
	if err == nil {
		s.conn = c
	}
	return c, err
}

// dial opens a QUIC connection for q, for 0-RTT if asked, and on it an
// HTTP/3 client. In a closed loop, the request that opened a connection,
// at its first send, takes its establishment as Connect time, as ab counts
// it.
func (w *h3Worker) dial(q *h3Req, first, zeroRTT bool) (*h3Conn, error) {
	h := w.h
	begin := h.now()
	w.record(func(s *stats) { s.conns++ })
	dial := quic.DialAddr
	if zeroRTT {
		// Returns as soon as the connection can carry 0-RTT data, when the
		// session allows it; else once the handshake is over.
		dial = quic.DialAddrEarly
	}
	var c *h3Conn
	if h.cfg.H2 {
		var err error
		if c, err = w.dialH2(); err != nil {
			return nil, err
		}
	} else {
		qc, err := dial(h.ctx, h.t.addr, w.slot.tls, h.qconf)
		if err != nil {
			return nil, err
		}
		c = &h3Conn{qc: qc, cc: h.tr.NewClientConn(qc), early: zeroRTT}
	}
	now := h.now()
	h.sh.connected.Store(true)
	if h.pace == nil && first {
		q.start, q.connect = begin, now-begin
	}
	if q.ready >= 0 {
		q.ready = max(q.ready, now)
	}
	return c, nil
}

// connectFailed counts a failed connect. Before any connection of the run
// succeeded it ends the run: the target is not there.
func (w *h3Worker) connectFailed(err error) {
	h := w.h
	if h.stopped() {
		return // the run's end cut it short
	}
	if !h.sh.connected.Load() {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() && !h.cfg.H2 {
			err = fmt.Errorf("no answer over QUIC within %v: is an HTTP/3 server listening on UDP port %d? (%w)",
				h.qconf.HandshakeIdleTimeout, h.t.port, err)
		}
		h.fatal(fmt.Errorf("connect %s: %w", h.t.addr, err))
		return
	}
	w.fail(&w.shard.s.failures.Connect)
}

// handshake counts hc's handshake once it is over, the first time; with
// wait, it waits for its end (a response came: it is over, or about to be
// for a request sent in 0-RTT).
func (w *h3Worker) handshake(hc *h3Conn, wait bool) {
	if hc.counted.Load() || !wait && !isDone(hc.handshakeComplete()) {
		return
	}
	select {
	case <-hc.handshakeComplete():
	case <-hc.gone():
		if !isDone(hc.handshakeComplete()) {
			return
		}
	case <-w.h.ctx.Done():
		return
	}
	if !hc.counted.CompareAndSwap(false, true) {
		return
	}
	cs := hc.tlsState()
	w.record(func(s *stats) {
		s.handshakes++
		if cs.DidResume {
			s.resumed++
		}
	})
	if w.h.proto.Load() == nil {
		p := fmt.Sprintf("%s,%s,%s %s", tlsVersion(cs.Version), tls.CipherSuiteName(cs.CipherSuite), cs.CurveID, w.h.over())
		w.h.proto.CompareAndSwap(nil, &p)
	}
}

// tlsVersion names v as ab does.
func tlsVersion(v uint16) string {
	if v == tls.VersionTLS13 {
		return "TLSv1.3"
	}
	return tls.VersionName(v)
}

// release is done with hc for one request: without KeepAlive it closes it.
func (w *h3Worker) release(hc *h3Conn) {
	if !w.h.cfg.KeepAlive {
		hc.close()
	}
}

// setAside takes hc from the slot, if it is still the slot's, so that the
// next request opens a new connection; hc closes at the end of the run,
// or sooner if the server closes it.
func (w *h3Worker) setAside(hc *h3Conn) {
	s := w.slot
	s.mu.Lock()
	if s.conn == hc {
		s.conn = nil
		s.old = append(s.old, hc)
	}
	s.mu.Unlock()
}

// read reads a response body to its end and returns its length.
func (w *h3Worker) read(body io.ReadCloser) (int64, error) {
	defer body.Close()
	var n int64
	for {
		k, err := body.Read(w.buf)
		n += int64(k)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// record runs f on w's stats.
func (w *h3Worker) record(f func(s *stats)) {
	w.shard.mu.Lock()
	f(w.shard.s)
	w.shard.mu.Unlock()
}

// fail counts a failed request in the counter f of w's stats.
func (w *h3Worker) fail(f *int64) {
	if w.h.stopped() {
		return
	}
	now := w.h.now()
	w.record(func(s *stats) {
		*f++
		s.last = now
	})
	w.h.done.Add(1)
}

// complete counts a response read whole, as the TCP loop does (loop.complete).
func (w *h3Worker) complete(q *h3Req, resp *http.Response, body int64, sent, first, now time.Duration) {
	h := w.h
	if h.stopped() || h.cfg.Duration > 0 && now > h.cfg.Duration {
		return // after the run's end: not counted
	}
	doc := h.sh.docLen.Load()
	if doc < 0 {
		h.sh.docLen.CompareAndSwap(-1, body)
		doc = h.sh.docLen.Load()
	}
	size := headerSize(resp) + body
	w.record(func(s *stats) {
		if code := resp.StatusCode; code >= 0 && code < len(s.status) {
			s.status[code]++
		} else {
			s.status[0]++
		}
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			s.non2xx++
		}
		if h.cfg.KeepAlive {
			s.keepAlive++
		}
		s.bytes += size
		s.html += body
		if s.server == "" {
			s.server = resp.Header.Get("Server")
		}
		if body != doc && !h.cfg.AnyLength {
			s.failures.Length++
		} else {
			s.complete++
			total := now - q.start
			record(s.total, int64(total))
			record(s.connect, int64(q.connect))
			record(s.processing, int64(total-q.connect))
			record(s.waiting, int64(first-sent))
		}
		s.last = now
	})
	h.done.Add(1)
}

// headerSize is the size of resp's header as HTTP/1.1 would write it: its
// status line, a "Name: value" line a field, and the blank line. The QPACK
// bytes it came in are not the client's to see.
func headerSize(resp *http.Response) int64 {
	n := len("HTTP/3 ") + len(resp.Status) + 2
	for k, vv := range resp.Header {
		if strings.HasPrefix(k, ":") {
			continue
		}
		for _, v := range vv {
			n += len(k) + 2 + len(v) + 2
		}
	}
	return int64(n + 2)
}

// isDone reports whether c is closed.
func isDone(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
