//go:build linux

package loadgen

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"hellobench/internal/uring"
)

const (
	// recvSize is the size of each receive buffer; smaller past
	// manyConns connections, to bound the memory.
	recvSize  = 16 << 10
	manyConns = 4096
	// maxBufs bounds the receive buffers a loop provides the kernel: two
	// per connection, so that a burst of completions for every connection
	// between two reaps finds one.
	maxBufs = 4096
	// drainWait bounds how long a shutdown waits for the kernel to finish
	// the operations it holds; past it their memory is kept for good.
	drainWait = 10 * time.Second
)

// uringEngine is the engine over an io_uring ring. Connects, sends, receives and
// closes are queued as submissions; one io_uring_enter submits them all and
// waits for completions, which wait hands to the loop.
//
// Each connection has one multishot receive: posted once, it completes
// each time bytes arrive, into a buffer the kernel takes from a ring of
// buffers the engine provides (a uring.BufRing), and stays armed. A receive posted
// per response would cost, per response, a first try that finds nothing,
// arming a poll on the socket and the try again when it fires: with
// requests pipelined, that was most of the client's CPU beyond TCP itself.
// A buffer goes back to the ring once the loop has parsed its bytes.
//
// The engine counts the operations whose last completion it has not
// reaped: memory an operation points at (the provided buffers, the loop's
// request bytes) is freed only after it. A multishot receive ends with a
// completion without the "more" flag: when its socket is closed (the close
// cancels it), at the stream's end or an error, or when no buffer was free,
// and the loop's next receive then posts it again.
type uringEngine struct {
	l     *loop
	h     handler // the loop, or the TLS layer over this engine
	r     *uring.Ring
	sa    rawSockaddr // the target, for connect
	socks []usock     // by connection
	bufs  *uring.BufRing
	ops   int   // operations queued or in the kernel whose last completion is not reaped
	slow  int   // receives and connects among them: they wait on the network
	quick int   // sends, cancels and closes queued since the last enter
	err   error // the first failure to queue an operation: it ends the run
}

// usock is the engine's state of a connection's current socket.
type usock struct {
	ops     int  // its connect, send and receive not yet ended
	recv    bool // its multishot receive is armed
	sendLen int  // the length of the send in flight
}

func newURing(l *loop) (*uringEngine, error) {
	size := l.cfg.ringSize
	if size == 0 {
		size = 4*len(l.conns) + 64
	}
	r, err := uring.New(size)
	if err != nil {
		return nil, err
	}
	r.Blocking = !l.cfg.Solo
	n := len(l.conns)
	bufSize := recvSize
	if n > manyConns {
		bufSize = 4 << 10
	}
	bufs, err := uring.NewBufRing(r, min(2*n, maxBufs), bufSize)
	if err != nil {
		r.Close()
		return nil, err
	}
	return &uringEngine{
		l:     l,
		h:     l,
		r:     r,
		sa:    newRawSockaddr(l.t.sa),
		socks: make([]usock, n),
		bufs:  bufs,
	}, nil
}

// tag is an operation's user_data: the connection, op, and x, the
// generation of the socket it was posted on.
func tag(idx int32, x uint32, op uint8) uint64 {
	return uint64(uint32(idx))<<32 | uint64(x&0xffffff)<<8 | uint64(op)
}

// sqe queues operation op on c's socket and returns its entry to fill, or
// nil when the SQ cannot take it (u.err then says why).
func (u *uringEngine) sqe(c *conn, op uint8, x uint32) *uring.SQE {
	if u.err != nil {
		return nil
	}
	s, err := u.r.Get()
	if err != nil {
		u.err = err
		return nil
	}
	s.Opcode = op
	s.Fd = int32(c.fd)
	s.UserData = tag(c.idx, x, op)
	switch op {
	case uring.OpRecv, uring.OpConnect:
		u.slow++
		u.socks[c.idx].ops++
	case uring.OpSend:
		u.quick++
		u.socks[c.idx].ops++
	default:
		u.quick++
	}
	u.ops++
	return s
}

func (u *uringEngine) connect(c *conn) error {
	fd, err := socket(u.l)
	if err != nil {
		return err
	}
	c.fd = fd
	u.socks[c.idx] = usock{}
	if s := u.sqe(c, uring.OpConnect, c.gen); s != nil {
		s.Addr = uint64(uintptr(unsafe.Pointer(&u.sa.buf[0])))
		s.Off = uint64(u.sa.len)
	}
	return nil
}

// send posts a send whose completion reports it done: even when the loop
// awaits the answers, the kernel may hold a send (no room in the socket)
// and must be known to have finished with b before a shutdown.
func (u *uringEngine) send(c *conn, b []byte) (bool, error) {
	s := u.sqe(c, uring.OpSend, c.gen)
	if s == nil {
		return false, nil
	}
	// MSG_WAITALL: the kernel sends the rest of a short send itself, and
	// completes when all of b is sent or the socket failed.
	s.PrepSend(c.fd, b, unix.MSG_WAITALL|unix.MSG_NOSIGNAL)
	u.socks[c.idx].sendLen = len(b)
	return false, nil
}

// receive arms c's multishot receive, unless it is armed.
func (u *uringEngine) receive(c *conn) {
	k := &u.socks[c.idx]
	if k.recv {
		return
	}
	if s := u.sqe(c, uring.OpRecv, c.gen); s != nil {
		s.PrepRecvMultishot(c.fd, uring.BufGroup)
		k.recv = true
	}
}

// close closes c's socket through the ring, after the operations queued
// before it. Operations the kernel still holds on the socket are cancelled
// first, or the socket would live on in them.
func (u *uringEngine) close(c *conn) {
	k := &u.socks[c.idx]
	switch {
	case c.fd < 0 || u.err != nil:
	case k.ops > 0:
		// The close runs whatever the cancel's result.
		u.err = u.r.CancelAndClose(c.fd, tag(c.idx, c.gen, uring.OpAsyncCancel), tag(c.idx, c.gen, uring.OpClose))
		if u.err == nil {
			u.ops += 2
			u.quick += 2
		}
	default:
		u.sqe(c, uring.OpClose, c.gen)
	}
	*k = usock{}
}

func (u *uringEngine) wait(d time.Duration, awaiting int) error {
	if u.err != nil {
		return u.err
	}
	want, g := 0, time.Duration(0)
	if d > 0 {
		// Awaiting few responses, each is handled as it comes: gathering
		// would show in latencies short enough to be distorted by it.
		want = 1
		if awaiting >= minGather && u.r.MinWait() {
			want, g = max(min(u.slow/2, maxGather), 1), gather
		}
		// Sends, cancels and closes queued now complete within this
		// enter, mostly at once: their completions are not what the
		// loop waits for.
		want = min(want+u.quick, u.r.CQSize())
	}
	u.quick = 0
	if len(u.l.pend) > 0 {
		u.l.issue(u.l.now()) // the sends queued are issued by this enter
	}
	if err := u.r.Enter(want, g, d); err != nil && !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EBUSY) {
		// EAGAIN and EBUSY: the kernel took nothing for now (short of
		// memory, or its CQ overflowing); reap and submit again.
		return err
	}
	now := u.l.now()
	head, tail := u.r.Ready()
	for ; head != tail && u.l.err == nil && u.err == nil; head++ {
		q := *u.r.Completion(head)
		u.r.Done(head + 1) // its slot is free: handling it may submit and post more
		u.complete(q, now)
	}
	u.r.Done(head)
	u.bufs.Publish()
	return u.err
}

// complete handles one completion.
func (u *uringEngine) complete(q uring.CQE, now time.Duration) {
	idx, x, op := int32(q.UserData>>32), uint32(q.UserData>>8)&0xffffff, uint8(q.UserData)
	c := &u.l.conns[idx]
	if op == uring.OpRecv {
		u.recvDone(c, q, x, now)
		return
	}
	u.ops--
	switch op {
	case uring.OpConnect:
		u.slow--
		if u.current(c, x) {
			if q.Res < 0 {
				u.h.connectFailed(c, os.NewSyscallError("connect", unix.Errno(-q.Res)), now)
				return
			}
			u.h.established(c, now)
		}
	case uring.OpSend:
		if u.current(c, x) {
			if err := sendResult(q.Res, u.socks[idx].sendLen); err != nil {
				u.h.lost(c, err, now)
				return
			}
			u.h.sent(c, now)
		}
	}
	// A cancel's or close's: nothing to do.
}

// current settles the end of a connect or send of c's socket of
// generation gen, and reports whether that is still c's socket.
func (u *uringEngine) current(c *conn, gen uint32) bool {
	if gen != c.gen&0xffffff || c.fd < 0 {
		return false
	}
	u.socks[c.idx].ops--
	return true
}

// recvDone handles a completion of the multishot receive posted on c's
// socket of generation gen: bytes, the stream's end or an error, for the
// loop if that is still c's socket, and the receive's own end when the
// kernel says no more follow.
func (u *uringEngine) recvDone(c *conn, q uring.CQE, gen uint32, now time.Duration) {
	k := &u.socks[c.idx]
	current := gen == c.gen&0xffffff && c.fd >= 0 && k.recv
	if q.Flags&uring.CQEMore == 0 {
		u.ops--
		u.slow--
		if current {
			// Before the loop sees the bytes, so that its next
			// receive posts the receive again.
			k.ops--
			k.recv = false
		}
	}
	if q.Flags&uring.CQEBuffer != 0 {
		bid := uint16(q.Flags >> uring.CQEBufferShift)
		if current && q.Res > 0 {
			u.h.received(c, u.bufs.Buf(bid)[:q.Res], now)
		}
		u.bufs.Put(bid) // the loop has parsed the bytes: the buffer is free
		return
	}
	switch {
	case !current:
	case q.Res == 0:
		u.h.lost(c, nil, now)
	case q.Res == -int32(unix.ENOBUFS):
		// Every buffer was in use: the receive ended, and resumes
		// with the buffers this wait returns.
		u.receive(c)
	case q.Res < 0:
		u.h.lost(c, os.NewSyscallError("recv", unix.Errno(-q.Res)), now)
	}
}

// sendResult reads a send's completion: nil when all n bytes went, else
// why not. A send that fails after some of its bytes went completes with
// their count, not the error (the kernel keeps the progress), so a count
// short of n is a failure too.
func sendResult(res int32, n int) error {
	switch {
	case int(res) == n:
		return nil
	case res < 0:
		return os.NewSyscallError("send", unix.Errno(-res))
	}
	return fmt.Errorf("send: connection failed after %d of %d bytes", res, n)
}

// shutdown cancels every operation the kernel holds, waits for all their
// completions, and closes the sockets and the ring. If the kernel has not
// finished within drainWait, the memory its operations point at is kept
// for the rest of the process rather than reused under it.
func (u *uringEngine) shutdown() {
	if u.ops > 0 {
		if s, err := u.r.Get(); err == nil {
			s.Opcode = uring.OpAsyncCancel
			s.OpFlags = uring.CancelAll | uring.CancelAny
			u.ops++
		}
	}
	for end := time.Now().Add(drainWait); u.ops > 0 && time.Now().Before(end); {
		err := u.r.Enter(1, 0, 10*time.Millisecond)
		if err != nil && !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EBUSY) {
			break
		}
		// Each completion ends one counted operation, but a multishot
		// receive's that says more follow.
		head, tail := u.r.Ready()
		for ; head != tail; head++ {
			if q := u.r.Completion(head); uint8(q.UserData) != uring.OpRecv || q.Flags&uring.CQEMore == 0 {
				u.ops--
			}
		}
		u.r.Done(tail)
	}
	for i := range u.l.conns {
		if c := &u.l.conns[i]; c.fd >= 0 {
			unix.Close(c.fd)
			c.fd = -1
		}
	}
	if u.ops > 0 {
		kept.Lock()
		kept.engines = append(kept.engines, u)
		kept.Unlock()
	}
	u.r.Close()
	u.bufs.Close()
}

// kept holds the engines whose operations outlived their shutdown, and so
// their provided buffers and their loop's request bytes.
var kept struct {
	sync.Mutex
	engines []*uringEngine
}

// rawSockaddr is the sockaddr bytes of sa for a connect SQE.
type rawSockaddr struct {
	buf [unix.SizeofSockaddrInet6]byte
	len uint32
}

func newRawSockaddr(sa unix.Sockaddr) rawSockaddr {
	var r rawSockaddr
	switch sa := sa.(type) {
	case *unix.SockaddrInet4:
		raw := (*unix.RawSockaddrInet4)(unsafe.Pointer(&r.buf[0]))
		raw.Family = unix.AF_INET
		port := (*[2]byte)(unsafe.Pointer(&raw.Port))
		port[0], port[1] = byte(sa.Port>>8), byte(sa.Port)
		raw.Addr = sa.Addr
		r.len = unix.SizeofSockaddrInet4
	case *unix.SockaddrInet6:
		raw := (*unix.RawSockaddrInet6)(unsafe.Pointer(&r.buf[0]))
		raw.Family = unix.AF_INET6
		port := (*[2]byte)(unsafe.Pointer(&raw.Port))
		port[0], port[1] = byte(sa.Port>>8), byte(sa.Port)
		raw.Addr = sa.Addr
		raw.Scope_id = sa.ZoneId
		r.len = unix.SizeofSockaddrInet6
	}
	return r
}
