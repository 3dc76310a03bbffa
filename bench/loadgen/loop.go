//go:build linux

package loadgen

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

const (
	// maxTries bounds the sends of a request lost with its connection
	// without a word from the server (a close or reset before any byte of
	// its response), so a server that drops everything cannot loop us.
	maxTries = 3
	// gather is how long a loop may hold completions or sends to handle
	// them in a batch rather than one by one: an io_uring loop awaiting
	// minGather responses or more waits this long for up to maxGather of
	// them (when the kernel can), and with a rate of more than one request
	// per gather, the requests due within it go out together. Batches are
	// what make a request cheap: each wake-up of the loop, and each of the
	// server's sends that has to wake it, costs more than the request's own
	// work. A response's time is taken when it is handled, so it can
	// include up to this much of the client's own wait.
	gather    = 20 * time.Microsecond
	minGather = 16
	maxGather = 64
	// maxWait caps a wait, so an idle loop still sees the stop flag.
	maxWait = 100 * time.Millisecond
	// yieldEvery is how often a solo loop lets other goroutines (progress,
	// signals) run: a yield per wait woke another thread each time.
	yieldEvery = 20 * time.Millisecond
)

// Connection states.
const (
	closed = iota
	connecting
	open
)

// request is one request in flight, times from the run's start.
type request struct {
	start   time.Duration // send, connection start or intended send
	sent    time.Duration // when its bytes went to the engine
	connect time.Duration // establishment of the connection it opened, or 0
	// ready, with a rate, is when the request could first go: its due
	// time, or later when no connection could take it then (lateness.go);
	// -1 once its first send was issued.
	ready time.Duration
	tries int32 // sends lost without a response
}

// conn is one connection and the requests it carries.
type conn struct {
	idx   int32
	fd    int    // the socket, -1 when closed
	gen   uint32 // bumped per connect: names the socket to the engine
	state int
	p     parser

	q        []request // in flight, oldest first, from q[head]
	head     int
	inflight int  // len(q) - head
	reserved int  // requests taken for the connection before it opened
	unsent   int  // requests at q's end not yet given to the engine
	sending  bool // a send is in flight: the next waits for it

	served  int           // responses read on this connection
	given   int           // requests given to this connection, against Config.PerConn
	begin   time.Duration // connection start
	connDur time.Duration // establishment time, not yet given to a request
	active  time.Duration // last send or received byte, for the timeout
	firstRd time.Duration // first byte of the current response
	mark    int           // the socket's SO_RCVLOWAT, when set (lowat.go)
}

// loop drives its connections on one OS thread through one engine. It knows
// connections, counting and timing; the engine knows sockets.
type loop struct {
	cfg    *Config
	t      *target
	sh     *shared
	eng    engine
	engine string // the engine to use: EngineURing is tried first
	req    []byte
	batch  []byte // req repeated Pipeline times
	conns  []conn
	s      *stats
	done   atomic.Int64 // requests counted, for progress

	pace      *pacer          // the schedule, with a rate; nil: closed loop
	starved   bool            // with a rate, requests were due that no connection could take
	freed     time.Duration   // when a connection last took a request after none could
	pend      []time.Duration // ready times of sends given to the engine and not yet issued
	left      int             // requests not yet sent; -1: no limit
	inflight  int             // requests sent (or to send) and not yet counted
	check     time.Duration   // next timeout scan
	revive    []int32         // connections to open again after a failed connect
	marks     bool            // set receive marks (lowat.go)
	minResp   int64           // the smallest whole response seen, bytes
	batchTime time.Duration   // how long batches take, recently
	unstallAt time.Duration   // next check for a stalled mark
	marked    int             // marks set, for tests
	err       error           // the run's end: the target is not there, or the engine failed
}

func newLoop(cfg *Config, t *target, req []byte, sh *shared, conns, left int, pace *pacer, engine string) *loop {
	l := &loop{
		cfg:    cfg,
		t:      t,
		sh:     sh,
		engine: engine,
		req:    req,
		conns:  make([]conn, conns),
		s:      newStats(pace != nil),
		pace:   pace,
		left:   left,
	}
	l.marks = l.marking()
	for range cfg.Pipeline {
		l.batch = append(l.batch, req...)
	}
	for i := range l.conns {
		c := &l.conns[i]
		c.idx = int32(i)
		c.fd = -1
		c.q = make([]request, 0, cfg.Pipeline)
		c.p.head = cfg.Method == "HEAD"
		c.p.wantSrv = i == 0
	}
	return l
}

// now is the time since the run's start, on the monotonic clock.
func (l *loop) now() time.Duration { return time.Since(l.sh.start) }

func (l *loop) run() error {
	// One loop, one thread: its sockets stay on one core's caches, the Go
	// scheduler never moves the loop, and an io_uring ring is used only by
	// the thread that made it.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if l.pace != nil {
		// With a rate the loop sleeps until a request is due: the default
		// 50 µs timer slack let epoll's waits end that much late.
		if slack, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0); err == nil {
			unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
			defer unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(slack), 0, 0, 0)
		}
	}

	eng, err := newEngine(l)
	if err != nil {
		return err
	}
	l.eng = eng
	defer eng.shutdown()

	now := l.now()
	if l.cfg.Timeout > 0 {
		l.check = now + l.cfg.Timeout/4
	}
	// No connection is open yet: the first requests wait for one.
	l.starved = l.pace != nil
	for i := range l.conns {
		if l.left != 0 {
			l.open(&l.conns[i], now)
		}
	}
	yield := now + yieldEvery
	for l.err == nil && !l.over(now) {
		if err := l.eng.wait(l.timeout(now), l.inflight); err != nil {
			return err
		}
		now = l.now()
		if l.cfg.Solo && now >= yield {
			runtime.Gosched()
			yield = now + yieldEvery
		}
		l.tick(now)
	}
	if len(l.pend) > 0 {
		// Sends queued in the last turn: the engine's shutdown submits
		// them.
		l.issue(l.now())
	}
	return l.err
}

// tick does what is due after a wait: connections to open again, requests
// the schedule made due, timeouts; and it publishes the count.
func (l *loop) tick(now time.Duration) {
	if len(l.revive) > 0 {
		l.reopen(now)
	}
	if l.pace != nil {
		l.dispatch(now)
		// Due requests left over wait for a connection, not for the
		// loop: their lateness counts from when one takes them.
		l.starved = l.left != 0 && l.pace.due(now) > 0
	}
	if l.check > 0 && now >= l.check {
		l.expire(now)
		l.check = now + l.cfg.Timeout/4
	}
	if l.marks && now >= l.unstallAt {
		l.unstall(now)
		l.unstallAt = now + stallMin/2
	}
	l.done.Store(l.s.complete + l.s.failures.total())
}

// over reports whether the run is over for l, and if so sets when its last
// request counts.
func (l *loop) over(now time.Duration) bool {
	d := l.cfg.Duration
	switch {
	case l.left == 0 && l.inflight == 0:
		return true
	case d > 0 && now >= d:
		l.s.last = d
		l.sh.stop.Store(true)
		return true
	case l.sh.stop.Load():
		l.s.last = max(l.s.last, now)
		if d > 0 {
			l.s.last = min(l.s.last, d)
		}
		return true
	}
	return false
}

// timeout returns how long the loop may wait for outcomes.
func (l *loop) timeout(now time.Duration) time.Duration {
	d := maxWait
	if l.cfg.Duration > 0 {
		d = min(d, l.cfg.Duration-now)
	}
	if l.pace != nil && l.left != 0 {
		// When requests are overdue, dispatch has given them to every
		// free connection: wait for one to free up, do not spin. Sends
		// due more often than every gather go out together.
		if u := l.pace.until(now); u > 0 {
			if l.pace.interval < gather {
				u = max(u, gather)
			}
			d = min(d, u)
		}
	}
	if l.check > 0 {
		d = min(d, l.check-now)
	}
	if len(l.revive) > 0 || l.cfg.Spin && l.pace != nil && l.left != 0 {
		d = 0
	}
	return max(d, 0)
}

// fatal ends the loop's run with err.
func (l *loop) fatal(err error) {
	if l.err == nil {
		l.err = err
	}
}

// abort ends the whole run early for a request failed by err, as ab does
// without -r.
func (l *loop) abort(err error) {
	l.sh.abort.CompareAndSwap(nil, &err)
	l.sh.stop.Store(true)
}

// open starts connecting c. In a closed loop it takes c's first batch now,
// so no connection opens without a request to send.
func (l *loop) open(c *conn, now time.Duration) {
	// Requests carried over from a connection the server ended go again on
	// this one, and count against its PerConn.
	c.given = c.inflight
	if l.pace == nil && c.inflight == 0 && c.reserved == 0 {
		k := min(l.cfg.Pipeline, l.perConnLeft(c))
		c.given += k
		if l.left >= 0 {
			k = min(k, l.left)
			l.left -= k
		}
		if k == 0 {
			return
		}
		c.reserved = k
		l.inflight += k
	}
	c.gen++
	c.state = connecting
	c.begin, c.active = now, now
	c.served = 0
	c.p.reset()
	l.s.conns++
	if err := l.eng.connect(c); err != nil {
		l.connectFailed(c, err, now)
	}
}

// reopen opens again, in a closed loop, the connections whose connect
// failed. (With a rate, dispatch opens connections as requests fall due.)
func (l *loop) reopen(now time.Duration) {
	revive := l.revive
	l.revive = l.revive[len(l.revive):]
	for _, i := range revive {
		if c := &l.conns[i]; c.state == closed {
			l.refill(c, now)
		}
	}
	if len(l.revive) == 0 {
		l.revive = revive[:0]
	}
}

// refill opens c again for its next batch in a closed loop with requests
// left.
func (l *loop) refill(c *conn, now time.Duration) {
	if l.pace == nil && l.left != 0 {
		l.open(c, now)
	}
}

// established is the engine's word that c's connect succeeded.
func (l *loop) established(c *conn, now time.Duration) {
	c.state = open
	c.connDur = now - c.begin
	c.active = now
	l.sh.connected.Store(true)
	gen := c.gen
	if c.unsent > 0 {
		// Requests carried over from a connection the server ended go
		// again as they were; the connect is not theirs, nor is the wait
		// for it their lateness.
		c.connDur = 0
		for i := len(c.q) - c.unsent; i < len(c.q); i++ {
			if r := &c.q[i]; r.ready >= 0 {
				r.ready = max(r.ready, now)
			}
		}
		l.flush(c, now)
	} else {
		l.send(c, now)
	}
	// After the send: an engine may tie the receive to it.
	if c.gen == gen && c.state == open {
		l.eng.receive(c)
	}
}

// connectFailed is the engine's word that c's connect failed. Before any
// connection of the run succeeded it ends the run: the target is not there.
// After, it fails the requests that were waiting for the connection, or one
// request, as ab counts a failed connect, and tries again.
func (l *loop) connectFailed(c *conn, err error, now time.Duration) {
	l.drop(c)
	if !l.sh.connected.Load() {
		var errno unix.Errno
		if errors.As(err, &errno) {
			err = errno // "connect host:port: connection refused", as ab says it
		}
		l.fatal(fmt.Errorf("connect %s: %w", l.t.addr, err))
		return
	}
	l.failAll(c, &l.s.failures.Connect, now)
	if l.pace != nil && l.left != 0 && l.pace.due(now) > 0 {
		// With a rate, the due request the connection was opened for.
		l.pace.take()
		if l.left > 0 {
			l.left--
		}
		l.s.failures.Connect++
		l.s.last = now
	}
	// Opened again from the loop, not from here: a connect can fail at
	// once, and retrying in place would recurse.
	l.revive = append(l.revive, c.idx)
}

// send gives c its next requests, if any are due: in a closed loop the
// batch reserved when c opened, or a batch of Pipeline once the last is
// answered; with a rate, the requests whose time has come, up to Pipeline
// in flight.
func (l *loop) send(c *conn, now time.Duration) {
	if c.state != open {
		return
	}
	k := c.reserved
	c.reserved = 0
	if k == 0 {
		if k = l.take(c, now); k == 0 {
			return
		}
	}
	if c.head > 0 && len(c.q)+k > cap(c.q) {
		c.q = c.q[:copy(c.q, c.q[c.head:])]
		c.head = 0
	}
	for i := range k {
		r := request{start: now}
		if l.pace != nil {
			r.start = l.pace.take()
			r.ready = max(r.start, l.freed)
		} else if i == 0 && c.served == 0 && c.connDur > 0 {
			// The request that opened the connection: ab's Connect time.
			r.start, r.connect = c.begin, c.connDur
		}
		c.q = append(c.q, r)
	}
	c.connDur = 0
	c.inflight += k
	c.unsent += k
	l.flush(c, now)
}

// take takes from the loop's requests those c may send now, and returns
// how many.
func (l *loop) take(c *conn, now time.Duration) int {
	if l.left == 0 || (l.pace == nil && c.inflight > 0) {
		return 0
	}
	k := min(l.cfg.Pipeline-c.inflight, l.perConnLeft(c))
	if l.pace != nil {
		k = min(k, l.pace.due(now))
		if k > 0 && l.starved {
			// The first connection free since the due requests found
			// none: they could go from now.
			l.freed = now
		}
	}
	if l.left > 0 {
		k = min(k, l.left)
		l.left -= k
	}
	c.given += k
	l.inflight += k
	return k
}

// perConnLeft is how many more requests c may be given: Config.PerConn
// less those it was given, or without a limit as many as can be in flight.
func (l *loop) perConnLeft(c *conn) int {
	if l.cfg.PerConn == 0 {
		return maxPipeline
	}
	return max(l.cfg.PerConn-c.given, 0)
}

// flush gives the engine c's unsent requests in one send, unless a send is
// in flight: then they follow it, so that no two sends on a socket race.
func (l *loop) flush(c *conn, now time.Duration) {
	if c.sending || c.unsent == 0 || c.state != open {
		return
	}
	n := c.unsent
	c.unsent = 0
	for i := len(c.q) - n; i < len(c.q); i++ {
		r := &c.q[i]
		r.sent = now
		if l.pace != nil && r.ready >= 0 {
			// Its first send: its lateness is taken when the engine
			// issues it (issue).
			l.pend = append(l.pend, r.ready)
			r.ready = -1
		}
	}
	c.active = now
	done, err := l.eng.send(c, l.batch[:n*len(l.req)])
	if err != nil {
		l.lost(c, err, now)
		return
	}
	c.sending = !done
	l.mark(c)
}

// sent is the engine's word that c's send in flight is done.
func (l *loop) sent(c *conn, now time.Duration) {
	c.sending = false
	l.flush(c, now)
}

// dispatch, with a rate, hands due requests to connections that can take
// them, and opens connections for them when none is open.
func (l *loop) dispatch(now time.Duration) {
	due := l.pace.due(now)
	for i := range l.conns {
		if due <= 0 || l.left == 0 || l.err != nil {
			return
		}
		c := &l.conns[i]
		switch {
		case c.state == open:
			l.send(c, now)
			due = l.pace.due(now)
		case c.state == connecting && c.inflight == 0:
			due-- // it takes one when established
		case c.state == closed:
			l.open(c, now)
			due--
		}
	}
}

// received is the engine's word that bytes came on c. It reports false when
// c's socket was closed since.
func (l *loop) received(c *conn, b []byte, now time.Duration) bool {
	gen := c.gen
	c.active = now
	if !l.parse(c, b, now) {
		return false
	}
	if c.inflight == 0 {
		l.send(c, now)
	}
	if c.gen != gen || c.state != open {
		return false
	}
	if c.inflight > c.unsent {
		l.mark(c) // part of a batch read: lower the mark to the rest
	}
	l.eng.receive(c)
	return true
}

// parse feeds b to c's parser and counts the responses it completes. It
// reports false when c was closed.
func (l *loop) parse(c *conn, b []byte, now time.Duration) bool {
	for len(b) > 0 {
		if !c.p.started {
			c.firstRd = now
		}
		if c.inflight == c.unsent {
			// Bytes nobody asked for: the connection is out of step.
			l.close(c, now)
			return false
		}
		n, done, err := c.p.feed(b)
		b = b[n:]
		if err != nil {
			l.end(c, err, &l.s.failures.Exceptions, now)
			l.close(c, now)
			return false
		}
		if !done {
			return true
		}
		keep := c.p.keepAlive && l.cfg.KeepAlive
		l.complete(c, now)
		if l.cfg.PerConn > 0 && c.given >= l.cfg.PerConn && c.inflight == 0 {
			// PerConn requests answered: the client closes, as a
			// browser or a pool does, and opens another.
			keep = false
		}
		if !keep {
			l.close(c, now)
			return false
		}
	}
	return true
}

// complete counts the response just parsed for c's oldest request.
func (l *loop) complete(c *conn, now time.Duration) {
	r := &c.q[c.head]
	s := l.s
	p := &c.p
	if p.status < len(s.status) {
		s.status[p.status]++
	} else {
		s.status[0]++
	}
	if p.status < 200 || p.status > 299 {
		s.non2xx++
	}
	if p.keepAlive && l.cfg.KeepAlive {
		s.keepAlive++
	}
	s.bytes += p.size
	s.html += p.body
	if c.p.wantSrv {
		s.server = string(p.server)
		c.p.wantSrv = false
	}
	doc := l.sh.docLen.Load()
	if doc < 0 {
		l.sh.docLen.CompareAndSwap(-1, p.body)
		doc = l.sh.docLen.Load()
	}
	if p.body != doc && !l.cfg.AnyLength {
		s.failures.Length++
	} else {
		s.complete++
		total := now - r.start
		record(s.total, int64(total))
		record(s.connect, int64(r.connect))
		record(s.processing, int64(total-r.connect))
		record(s.waiting, int64(c.firstRd-r.sent))
	}
	s.last = now
	c.served++
	c.head++
	c.inflight--
	l.inflight--
	batch := time.Duration(0)
	if c.inflight == 0 {
		c.q, c.head = c.q[:0], 0
		batch = now - r.sent
	}
	if l.marks {
		l.answered(p.size, p.keepAlive, batch)
	}
	c.p.reset()
}

// failAll counts as failed, in the counter f, the requests c holds: in
// flight, to be sent again or reserved.
func (l *loop) failAll(c *conn, f *int64, now time.Duration) {
	for c.inflight > 0 {
		l.fail(c, f, now)
	}
	*f += int64(c.reserved)
	l.inflight -= c.reserved
	if c.reserved > 0 {
		l.s.last = now
	}
	c.reserved = 0
	c.q, c.head, c.unsent = c.q[:0], 0, 0
}

// fail counts c's oldest request as failed, in the counter f.
func (l *loop) fail(c *conn, f *int64, now time.Duration) {
	*f++
	l.s.last = now
	c.head++
	c.inflight--
	l.inflight--
	c.unsent = min(c.unsent, c.inflight)
}

// lost is the engine's word that c ended other than by our choice: closed
// or reset by the server, or a socket error (err is nil for a close).
func (l *loop) lost(c *conn, err error, now time.Duration) {
	if l.end(c, err, &l.s.failures.Receive, now) > 0 && err != nil && l.cfg.StopOnReceiveError {
		l.abort(err)
	}
	l.close(c, now)
}

// end settles the requests of a connection that ended, before close: it
// returns how many failed. A response cut short fails, in the counter
// kind. The requests after it had no answer. Lost on a connection that had
// answered before, they are the server ending it (a keep-alive limit, an
// idle close), and go again on a new connection, as does a request sent
// again before and lost the same way, up to maxTries sends. Their first
// send lost on a fresh connection, they failed: the server refuses them.
func (l *loop) end(c *conn, err error, kind *int64, now time.Duration) int {
	if err == nil && c.p.started && c.p.eof() {
		// A body delimited by the close is complete.
		l.complete(c, now)
		return 0
	}
	failed := 0
	if c.inflight > c.unsent && c.p.started {
		l.fail(c, kind, now)
		failed++
	}
	// Requests not yet given to the engine keep their count: they were
	// never sent.
	keep, sent := c.head, len(c.q)-c.unsent
	for i := c.head; i < len(c.q); i++ {
		r := c.q[i]
		if i < sent {
			r.tries++
			if r.tries >= maxTries || (c.served == 0 && r.tries == 1) {
				l.s.failures.Receive++
				l.s.last = now
				l.inflight--
				failed++
				continue
			}
		}
		c.q[keep] = r
		keep++
	}
	c.q = c.q[:keep]
	c.inflight = keep - c.head
	return failed
}

// close closes c and opens it again if it has requests to send again or, in
// a closed loop, the loop has requests left. Requests still on c were not
// answered before a close the server announced or caused; they are sent
// again.
func (l *loop) close(c *conn, now time.Duration) {
	l.drop(c)
	if c.inflight > 0 {
		c.q = c.q[:copy(c.q, c.q[c.head:])]
		c.head = 0
		c.unsent = c.inflight
		l.open(c, now)
		return
	}
	c.q, c.head, c.unsent = c.q[:0], 0, 0
	l.refill(c, now)
}

// drop closes c's socket.
func (l *loop) drop(c *conn) {
	if c.state != closed {
		l.eng.close(c)
	}
	c.fd = -1
	c.state = closed
	c.sending = false
	c.mark = 0
	c.p.reset()
}

// expire fails the requests of connections silent for longer than the
// timeout.
func (l *loop) expire(now time.Duration) {
	for i := range l.conns {
		c := &l.conns[i]
		if c.state == closed || now-c.active < l.cfg.Timeout {
			continue
		}
		if c.state == open && c.inflight == 0 && c.reserved == 0 {
			continue // idle, waiting for the schedule
		}
		l.drop(c)
		l.failAll(c, &l.s.failures.Timeout, now)
		l.refill(c, now)
	}
}
