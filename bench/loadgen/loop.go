package loadgen

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

const (
	// maxTries bounds the sends of a request lost with its connection
	// without a word from the server (a close or reset before any byte of
	// its response), so a server that drops everything cannot loop us.
	maxTries = 3
	// readSize is the epoll loop's one read buffer: large enough to take a
	// whole pipeline batch of responses in one read(2).
	readSize = 256 << 10
	// recvSize is each connection's receive buffer under io_uring, where
	// every connection has a receive posted at once; smaller past
	// manyConns connections, to bound the memory.
	recvSize  = 16 << 10
	manyConns = 4096
	// gather is how long an io_uring loop may wait to reap completions in
	// a batch rather than one by one (when the kernel has IORING_FEAT_MIN_
	// TIMEOUT). Batches are what make a request cheap: each wake-up of the
	// loop, and each of the server's sends that has to wake it, costs more
	// than the request's own work. A response's time is taken when it is
	// reaped, so it can include up to this much of the client's own wait.
	gather = 20 * time.Microsecond
	// minGather and maxGather bound the completions a loop awaiting them
	// waits for before gather ends: it gathers only under load.
	minGather = 16
	maxGather = 64
	// maxWait caps an epoll_wait, so an idle loop still sees the stop flag.
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
	// parked: to open again once the kernel has finished with the previous
	// socket's operations (io_uring), which may still write to its buffer.
	parked
)

// request is one request in flight, times from the run's start.
type request struct {
	start   time.Duration // send, connection start or intended send
	sent    time.Duration // when its bytes were written
	connect time.Duration // establishment of the connection it opened, or 0
	tries   int32         // sends lost without a response
}

type conn struct {
	fd       int
	idx      int32
	state    int
	p        parser
	q        []request // in flight, oldest first, from q[head]
	head     int
	resend   bool          // q holds requests to send again on this new connection
	out      []byte        // bytes of the last write not yet accepted
	served   int           // responses read on this connection
	begin    time.Duration // connection start
	connDur  time.Duration // establishment time, not yet given to a request
	active   time.Duration // last send or received byte, for the timeout
	firstRd  time.Duration // first byte of the current response
	inflight int           // len(q) - head
	reserved int           // requests taken for the connection before it opened

	// io_uring only.
	rbuf    []byte // the posted receive's buffer
	gen     uint32 // bumped per socket: completions of an older one are stale
	pending int    // receive and connect operations the kernel still holds
}

// loop drives its connections from one epoll set or io_uring ring on one OS
// thread.
type loop struct {
	cfg   *Config
	t     *target
	sa    unix.Sockaddr // the loop's own: Connect writes into it
	sh    *shared
	req   []byte
	batch []byte // req repeated Pipeline times
	conns []conn
	buf   []byte
	epfd  int
	s     *stats
	done  atomic.Int64 // requests counted, for progress

	left     int           // requests not yet sent; -1: no limit
	inflight int           // requests sent (or to re-send) and not yet counted
	deadline time.Duration // 0: none
	interval time.Duration // between intended sends, with a rate
	next     time.Duration // next intended send, with a rate
	check    time.Duration // next timeout scan
	revive   []int32       // connections to open again after a failed connect
	solo     bool          // Config.Solo
	engine   string        // the engine to use: EngineURing is tried first
	err      error

	ring    *ring       // nil: the epoll engine
	raw     rawSockaddr // the target, for connect SQEs
	pending int         // sum of the connections' pending
}

func newLoop(cfg *Config, t *target, req []byte, sh *shared, conns, n int, rate float64, first time.Duration) *loop {
	l := &loop{
		cfg:   cfg,
		t:     t,
		sh:    sh,
		req:   req,
		conns: make([]conn, conns),
		s:     newStats(),
		left:  n,
	}
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
	switch sa := t.sa.(type) {
	case *unix.SockaddrInet4:
		c := *sa
		l.sa = &c
	case *unix.SockaddrInet6:
		c := *sa
		l.sa = &c
	}
	l.raw = newRawSockaddr(t.sa)
	l.deadline = cfg.Duration
	l.next = first
	if rate > 0 {
		l.interval = time.Duration(float64(time.Second) / rate)
		if l.interval <= 0 {
			l.interval = 1
		}
	}
	return l
}

// now is the time since the run's start, on the monotonic clock.
func (l *loop) now() time.Duration { return time.Since(l.sh.start) }

func (l *loop) run() error {
	// One loop, one thread: its sockets and epoll stay on one core's caches
	// and the Go scheduler never moves the loop between threads.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	if err := l.setup(); err != nil {
		return err
	}
	defer l.teardown()

	var events []unix.EpollEvent
	if l.ring == nil {
		events = make([]unix.EpollEvent, len(l.conns)+1)
	}
	now := l.now()
	if l.cfg.Timeout > 0 {
		l.check = now + l.cfg.Timeout/4
	}
	for i := range l.conns {
		if l.left != 0 {
			l.open(&l.conns[i], now)
		}
	}
	yield := now + yieldEvery
	for l.err == nil {
		if l.left == 0 && l.inflight == 0 {
			break
		}
		if l.deadline > 0 && now >= l.deadline {
			l.s.last = l.deadline
			l.sh.stop.Store(true)
			break
		}
		if l.sh.stop.Load() {
			l.s.last = max(l.s.last, now)
			if l.deadline > 0 {
				l.s.last = min(l.s.last, l.deadline)
			}
			break
		}
		if l.ring != nil {
			if err := l.reap(now); err != nil {
				return err
			}
			now = l.now()
		} else {
			n, errno := epollWait(l.epfd, events, millis(l.wait(now)), l.solo)
			if errno != 0 && errno != unix.EINTR {
				return fmt.Errorf("epoll_wait: %v", errno)
			}
			now = l.now()
			for _, ev := range events[:max(n, 0)] {
				c := &l.conns[ev.Pad]
				if c.fd != int(ev.Fd) {
					continue // a connection closed earlier in this batch
				}
				l.event(c, ev.Events, now)
				if l.err != nil {
					break
				}
			}
		}
		if l.solo && now >= yield {
			runtime.Gosched()
			yield = now + yieldEvery
		}
		if len(l.revive) > 0 {
			l.reopen(now)
		}
		if l.interval > 0 {
			l.dispatch(now)
		}
		if l.check > 0 && now >= l.check {
			l.expire(now)
			l.check = now + l.cfg.Timeout/4
		}
		l.done.Store(l.s.complete + l.s.failures.total())
	}
	return l.err
}

// setup creates the loop's io_uring or its epoll set, as Run chose
// (l.engine), falling back to epoll when io_uring was only preferred.
func (l *loop) setup() error {
	if l.engine != EngineEpoll {
		r, err := newRing(4*len(l.conns) + 64)
		if err == nil {
			r.blocking = !l.solo
			l.ring = r
			size := recvSize
			if len(l.conns) > manyConns {
				size = 4 << 10
			}
			for i := range l.conns {
				l.conns[i].rbuf = make([]byte, size)
			}
			return nil
		}
		if l.cfg.Engine == EngineURing {
			return err
		}
		l.engine = EngineEpoll
	}
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return fmt.Errorf("epoll_create1: %v", err)
	}
	l.epfd = epfd
	l.buf = make([]byte, readSize)
	return nil
}

// teardown closes the loop's sockets and its epoll set or ring. A ring's
// operations are cancelled and their completions awaited first, so that no
// receive still writes into a buffer once the loop is gone.
func (l *loop) teardown() {
	if r := l.ring; r != nil {
		if s, err := r.get(); err == nil {
			s.opcode = opAsyncCancel
			s.opFlags = cancelAll | cancelAny
		}
		for end := time.Now().Add(time.Second); l.pending > 0 && time.Now().Before(end); {
			if r.enter(1, 0, 10*time.Millisecond) != nil {
				break
			}
			head, tail := r.ready()
			for ; head != tail; head++ {
				if op := uint8(r.cqe(head).userData); op == opRecv || op == opConnect {
					l.conns[r.cqe(head).userData>>32].pending--
					l.pending--
				}
			}
			r.done(head)
		}
	}
	for i := range l.conns {
		if l.conns[i].fd >= 0 {
			unix.Close(l.conns[i].fd)
		}
	}
	if l.ring != nil {
		l.ring.close()
	} else {
		unix.Close(l.epfd)
	}
}

// wait returns how long the loop may wait for events.
func (l *loop) wait(now time.Duration) time.Duration {
	d := maxWait
	if l.deadline > 0 {
		d = min(d, l.deadline-now)
	}
	if l.interval > 0 && l.left != 0 && l.next > now {
		// When requests are overdue, dispatch has given them to every
		// free connection: wait for one to free up, do not spin.
		d = min(d, l.next-now)
	}
	if l.check > 0 {
		d = min(d, l.check-now)
	}
	if len(l.revive) > 0 {
		d = 0
	}
	return max(d, 0)
}

// millis is d in whole milliseconds, rounded up, for epoll_wait.
func millis(d time.Duration) int {
	return int((d + time.Millisecond - 1) / time.Millisecond)
}

// reopen opens again the connections whose connect failed.
func (l *loop) reopen(now time.Duration) {
	revive := l.revive
	l.revive = l.revive[len(l.revive):]
	for _, i := range revive {
		if c := &l.conns[i]; c.state == closed && l.left != 0 && l.interval == 0 {
			l.open(c, now)
		}
	}
	if len(l.revive) == 0 {
		l.revive = revive[:0]
	}
}

func (l *loop) event(c *conn, ev uint32, now time.Duration) {
	if c.state == connecting {
		if ev&(unix.EPOLLERR|unix.EPOLLHUP) != 0 {
			errno, err := unix.GetsockoptInt(c.fd, unix.SOL_SOCKET, unix.SO_ERROR)
			if err == nil && errno != 0 {
				err = unix.Errno(errno)
			} else if err == nil {
				err = unix.ECONNREFUSED
			}
			l.connectFailed(c, err, now)
			return
		}
		if ev&unix.EPOLLOUT == 0 {
			return
		}
		l.established(c, now)
		return
	}
	if c.state != open {
		return
	}
	if ev&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
		l.read(c, ev&(unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0, now)
	}
	if c.state == open && len(c.out) > 0 && ev&unix.EPOLLOUT != 0 {
		l.flush(c, now)
	}
}

// open starts a non-blocking connect on c.
func (l *loop) open(c *conn, now time.Duration) {
	if l.interval == 0 && c.inflight == 0 && c.reserved == 0 {
		// Closed loop: the connection opens for its first batch, taken
		// now, so no connection opens without a request to send.
		k := l.cfg.Pipeline
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
	if c.pending > 0 {
		// The previous socket's operations are being cancelled; reap
		// opens the connection when the last one is done.
		c.state = parked
		c.active = now
		return
	}
	l.connect(c, now)
}

// connect opens c's socket and starts connecting it.
func (l *loop) connect(c *conn, now time.Duration) {
	fd, err := unix.Socket(l.t.domain, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		l.err = fmt.Errorf("socket: %v", err)
		return
	}
	if l.cfg.KeepAlive {
		// Requests go out whole in one write; Nagle would only delay the
		// next batch behind an unacknowledged one.
		unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	}
	c.fd = fd
	c.state = connecting
	c.begin = now
	c.active = now
	c.served = 0
	c.p.reset()
	l.s.conns++
	if l.ring != nil {
		c.gen++
		s := l.sqe(c, opConnect)
		if s == nil {
			return
		}
		s.addr = uint64(uintptr(unsafe.Pointer(&l.raw.buf[0])))
		s.off = uint64(l.raw.len)
		return
	}
	ev := unix.EpollEvent{
		// Edge-triggered: registered once, never modified, so a request
		// costs no epoll_ctl.
		Events: unix.EPOLLIN | unix.EPOLLOUT | unix.EPOLLRDHUP | unix.EPOLLET,
		Fd:     int32(fd),
		Pad:    c.idx,
	}
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		l.err = fmt.Errorf("epoll_ctl: %v", err)
		return
	}
	err = unix.Connect(fd, l.sa)
	if err != nil && err != unix.EINPROGRESS {
		l.connectFailed(c, err, now)
	}
	// Established or in progress: epoll reports it writable either way.
}

func (l *loop) established(c *conn, now time.Duration) {
	c.state = open
	c.connDur = now - c.begin
	c.active = now
	l.sh.connected.Store(true)
	if l.ring != nil {
		l.recv(c)
	}
	if c.resend {
		c.resend = false
		c.connDur = 0
		for i := c.head; i < len(c.q); i++ {
			c.q[i].sent = now
		}
		l.write(c, l.batch[:c.inflight*len(l.req)], now)
		return
	}
	l.send(c, now)
}

// connectFailed handles a failed connect. Before any connection of the run
// succeeded it ends the run: the target is not there. After, it fails the
// requests that were waiting for the connection, or one request, as ab
// counts a failed connect, and tries again.
func (l *loop) connectFailed(c *conn, err error, now time.Duration) {
	l.drop(c)
	if !l.sh.connected.Load() {
		l.err = fmt.Errorf("connect %s: %v", l.t.addr, errText(err))
		return
	}
	l.failAll(c, &l.s.failures.Connect, now)
	if l.interval > 0 && l.left != 0 && l.next <= now {
		// With a rate, the due request the connection was opened for.
		l.next += l.interval
		if l.left > 0 {
			l.left--
		}
		l.s.failures.Connect++
		l.s.last = now
	}
	// Reopened from the loop, not from here: a connect can fail at once,
	// and retrying in place would recurse.
	l.revive = append(l.revive, c.idx)
}

// send writes c's next requests, if any are due: in a closed loop a batch of
// Pipeline requests once the last batch is answered; with a rate, the
// requests whose intended time has come, up to Pipeline in flight.
func (l *loop) send(c *conn, now time.Duration) {
	if c.state != open || len(c.out) > 0 || (l.left == 0 && c.reserved == 0) {
		return
	}
	k := 0
	reserved := c.reserved > 0
	if reserved {
		k, c.reserved = c.reserved, 0
	} else if l.interval == 0 {
		if c.inflight > 0 {
			return
		}
		k = l.cfg.Pipeline
	} else {
		for k < l.cfg.Pipeline-c.inflight && l.next+time.Duration(k)*l.interval <= now {
			k++
		}
	}
	if l.left > 0 && !reserved {
		k = min(k, l.left)
		l.left -= k
	}
	if k == 0 {
		return
	}
	if c.head > 0 && len(c.q)+k > cap(c.q) {
		c.q = c.q[:copy(c.q, c.q[c.head:])]
		c.head = 0
	}
	for i := range k {
		r := request{start: now, sent: now}
		if l.interval > 0 {
			r.start = l.next
			l.next += l.interval
		} else if i == 0 && c.served == 0 && c.connDur > 0 {
			// The request that opened the connection: ab's Connect time.
			r.start, r.connect = c.begin, c.connDur
		}
		c.q = append(c.q, r)
	}
	c.connDur = 0
	c.inflight += k
	if !reserved {
		l.inflight += k
	}
	l.write(c, l.batch[:k*len(l.req)], now)
}

// dispatch, with a rate, hands due requests to connections that can take
// them, and opens connections for them when none is open.
func (l *loop) dispatch(now time.Duration) {
	if l.left == 0 || l.next > now {
		return
	}
	due := int((now-l.next)/l.interval) + 1
	for i := range l.conns {
		if due <= 0 || l.left == 0 || l.next > now {
			return
		}
		c := &l.conns[i]
		switch {
		case c.state == open:
			l.send(c, now)
			due = int((now-l.next)/l.interval) + 1
		case c.state == connecting && c.inflight == 0:
			due-- // it takes one when established
		case c.state == closed:
			l.open(c, now)
			due--
		}
		if l.err != nil {
			return
		}
	}
}

func (l *loop) write(c *conn, b []byte, now time.Duration) {
	c.active = now
	if l.ring != nil {
		// MSG_WAITALL: the kernel sends the rest of a short send itself,
		// so success needs no completion.
		s := l.sqe(c, opSend)
		if s == nil {
			return
		}
		s.flags = sqeSkipSuccess
		s.addr = uint64(uintptr(unsafe.Pointer(&b[0])))
		s.len = uint32(len(b))
		s.opFlags = unix.MSG_WAITALL | unix.MSG_NOSIGNAL
		return
	}
	n, errno := rawWrite(c.fd, b)
	if errno != 0 && errno != unix.EAGAIN {
		l.lost(c, errno, now)
		return
	}
	c.out = b[max(n, 0):]
}

// flush writes what the socket did not take before.
func (l *loop) flush(c *conn, now time.Duration) {
	l.write(c, c.out, now)
}

// read reads and parses what c has received. With hup, the peer has closed
// or reset, and c is read to the end.
func (l *loop) read(c *conn, hup bool, now time.Duration) {
	for {
		n, errno := rawRead(c.fd, l.buf)
		if n > 0 {
			now = l.now()
			c.active = now
			if !l.parse(c, l.buf[:n], now) {
				return
			}
			if n < len(l.buf) && !hup {
				// A short read emptied the socket; edge-triggered epoll
				// reports the next arrival.
				break
			}
			continue
		}
		switch {
		case n == 0:
			l.lost(c, nil, now)
			return
		case errno == unix.EAGAIN:
		case errno == unix.EINTR:
			continue
		default:
			l.lost(c, errno, now)
			return
		}
		break
	}
	if c.state == open && c.inflight == 0 && l.left != 0 {
		l.send(c, now)
	}
}

// parse feeds b to c's parser and counts the responses it completes. It
// reports false when c was closed.
func (l *loop) parse(c *conn, b []byte, now time.Duration) bool {
	for len(b) > 0 {
		if !c.p.started {
			c.firstRd = now
		}
		if c.inflight == 0 {
			// Bytes nobody asked for: the connection is out of step.
			l.close(c, now)
			return false
		}
		n, done, err := c.p.feed(b)
		b = b[n:]
		if err != nil {
			l.lost(c, err, now)
			return false
		}
		if !done {
			return true
		}
		keep := c.p.keepAlive && l.cfg.KeepAlive
		l.complete(c, now)
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
	if p.body != doc {
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
	if c.inflight == 0 {
		c.q, c.head = c.q[:0], 0
	}
	c.p.reset()
}

// failAll counts as failed, in the counter f, the requests c holds: in
// flight, to be re-sent or reserved.
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
	c.q, c.head, c.resend = c.q[:0], 0, false
}

// fail counts c's oldest request as failed, in the counter f.
func (l *loop) fail(c *conn, f *int64, now time.Duration) {
	*f++
	l.s.last = now
	c.head++
	c.inflight--
	l.inflight--
}

// lost handles a connection that ended other than by our choice: closed or
// reset by the server, a socket or parse error. err is nil for a close.
func (l *loop) lost(c *conn, err error, now time.Duration) {
	if err == nil && c.p.started && c.p.eof() {
		// A body delimited by the close is complete.
		l.complete(c, now)
		l.close(c, now)
		return
	}
	if c.inflight > 0 && c.p.started {
		// Part of a response came: that request is lost, not to be repeated.
		kind := &l.s.failures.Receive
		if _, ok := err.(unix.Errno); err != nil && !ok {
			kind = &l.s.failures.Exceptions
		}
		l.fail(c, kind, now)
	}
	// The rest had no answer. On a connection that served responses before,
	// that is the server ending it (a keep-alive limit or idle close), so
	// they go again on a new one; on a fresh connection, they failed.
	for i := c.head; i < len(c.q); i++ {
		c.q[i].tries++
	}
	if c.served == 0 || (c.inflight > 0 && c.q[c.head].tries >= maxTries) {
		for c.inflight > 0 {
			l.fail(c, &l.s.failures.Receive, now)
		}
	}
	l.close(c, now)
}

// close closes c and opens it again if it has requests to re-send or the
// loop has requests left. Requests still on c were not answered before a
// close the server announced or caused; they are re-sent.
func (l *loop) close(c *conn, now time.Duration) {
	l.drop(c)
	if c.inflight > 0 {
		c.q = c.q[:copy(c.q, c.q[c.head:])]
		c.head = 0
		c.resend = true
		l.open(c, now)
		return
	}
	c.q, c.head = c.q[:0], 0
	if l.left != 0 && l.interval == 0 {
		l.open(c, now)
	}
}

// drop closes c's socket: under epoll, close(2) also removes it from the
// set; under io_uring, release closes it after what the ring holds of it.
func (l *loop) drop(c *conn) {
	if c.fd >= 0 && l.ring != nil {
		l.release(c)
	} else if c.fd >= 0 {
		unix.Close(c.fd)
	}
	c.fd = -1
	c.state = closed
	c.out = nil
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
		if c.inflight == 0 && c.reserved == 0 && (c.state == open || c.state == parked) {
			continue // idle, waiting for the schedule or its old socket
		}
		l.drop(c)
		l.failAll(c, &l.s.failures.Timeout, now)
		if l.left != 0 && l.interval == 0 {
			l.open(c, now)
		}
	}
}

// epollWait first polls without blocking, directly: under load events are
// ready and the scheduler's syscall bookkeeping is saved. When none is ready
// and the run is solo (Config.Solo), it blocks directly too: blocking
// through the scheduler hands the P off and keeps sysmon waking every 20 µs,
// on the loop's own core when pinned, which measured 5-8% more CPU per
// request; the loop yields on its own instead (yieldEvery). Otherwise it
// blocks through the scheduler, and other goroutines (an in-process server)
// have the P meanwhile.
func epollWait(epfd int, events []unix.EpollEvent, msec int, solo bool) (int, unix.Errno) {
	r, e := rawEpollWait(epfd, events, 0)
	if e != 0 || r > 0 || msec == 0 {
		return r, e
	}
	if solo {
		return rawEpollWait(epfd, events, msec)
	}
	n, err := unix.EpollWait(epfd, events, msec)
	if err != nil {
		if errno, ok := err.(unix.Errno); ok {
			return 0, errno
		}
		return 0, unix.EINVAL
	}
	return n, 0
}

func rawEpollWait(epfd int, events []unix.EpollEvent, msec int) (int, unix.Errno) {
	r, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(epfd), uintptr(unsafe.Pointer(&events[0])),
		uintptr(len(events)), uintptr(msec), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(r), 0
}

// rawRead and rawWrite call read(2) and write(2) directly: the sockets are
// non-blocking, so the scheduler's syscall bookkeeping buys nothing.
func rawRead(fd int, b []byte) (int, unix.Errno) {
	r, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if e != 0 {
		return -1, e
	}
	return int(r), 0
}

func rawWrite(fd int, b []byte) (int, unix.Errno) {
	r, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if e != 0 {
		return -1, e
	}
	return int(r), 0
}

// errText is err's message without the Go type, as strerror gives it.
func errText(err error) string {
	var errno unix.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	return err.Error()
}
