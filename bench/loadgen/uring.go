package loadgen

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The io_uring interface as the engine uses it, from the kernel's
// include/uapi/linux/io_uring.h: raw syscalls and the shared rings.

// Operations.
const (
	opAsyncCancel = 14
	opConnect     = 16
	opClose       = 19
	opSend        = 26
	opRecv        = 27
)

// Submission flags.
const (
	sqeHardLink    = 1 << 3 // the next entry runs after this one, even if it fails
	sqeSkipSuccess = 1 << 6 // post no completion unless the operation fails
)

// Setup flags, enter flags, features and cancel flags.
const (
	setupSubmitAll    = 1 << 7  // one bad entry does not stop the rest of a submission
	setupSingleIssuer = 1 << 12 // only the creating thread submits
	setupDeferTaskrun = 1 << 13 // completions run only when this thread waits for them

	enterGetEvents = 1 << 0
	enterExtArg    = 1 << 3

	featNoDrop     = 1 << 1
	featExtArg     = 1 << 8
	featCQESkip    = 1 << 11
	featMinTimeout = 1 << 15

	cancelAll = 1 << 0
	cancelFD  = 1 << 1
	cancelAny = 1 << 2

	offSQRing = 0
	offSQEs   = 0x10000000
)

type uringParams struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFD uint32
	resv                                                                   [3]uint32
	sqOff                                                                  [10]uint32 // head, tail, mask, entries, flags, dropped, array, resv, user_addr (2)
	cqOff                                                                  [10]uint32 // head, tail, mask, entries, overflow, cqes, flags, resv, user_addr (2)
}

type sqe struct {
	opcode   uint8
	flags    uint8
	ioprio   uint16
	fd       int32
	off      uint64 // connect: address length
	addr     uint64
	len      uint32
	opFlags  uint32 // msg_flags, cancel_flags
	userData uint64
	_        [24]byte
}

type cqe struct {
	userData uint64
	res      int32
	flags    uint32
}

type geteventsArg struct {
	sigmask   uint64
	sigmaskSz uint32
	minWait   uint32 // µs: after this, one completion is enough
	ts        uint64 // *unix.Timespec: the whole wait's limit
}

// ring is one io_uring instance: submissions go in its SQ, completions come
// out of its CQ.
type ring struct {
	fd       int
	mem      []byte // SQ and CQ rings, one mapping
	sqeMem   []byte
	sqHead   *uint32
	sqTail   *uint32
	sqMask   uint32
	sqes     []sqe
	cqHead   *uint32
	cqTail   *uint32
	cqMask   uint32
	cqes     []cqe
	tail     uint32 // next SQE to fill; published to *sqTail on enter
	queued   uint32 // filled and not yet submitted
	minWait  bool   // the kernel honours geteventsArg.minWait
	arg      geteventsArg
	ts       unix.Timespec
	blocking bool // block through the scheduler (not solo)
}

// errNoURing says io_uring is missing or lacks what the engine needs.
var errNoURing = errors.New("io_uring not available")

// newRing sets up a ring of at least entries submission slots.
func newRing(entries int) (*ring, error) {
	n := uint32(64)
	for int(n) < entries && n < 32768 {
		n <<= 1
	}
	p := uringParams{flags: setupSubmitAll | setupSingleIssuer | setupDeferTaskrun}
	fd, _, errno := unix.RawSyscall(unix.SYS_IO_URING_SETUP, uintptr(n), uintptr(unsafe.Pointer(&p)), 0)
	if errno != 0 {
		return nil, fmt.Errorf("%w: io_uring_setup: %v", errNoURing, errno)
	}
	r := &ring{fd: int(fd)}
	if need := uint32(featNoDrop | featExtArg | featCQESkip); p.features&need != need {
		unix.Close(r.fd)
		return nil, fmt.Errorf("%w: kernel too old (features %#x)", errNoURing, p.features)
	}
	r.minWait = p.features&featMinTimeout != 0
	// One mapping holds both rings (IORING_FEAT_SINGLE_MMAP, implied by
	// the features above).
	size := max(p.sqOff[6]+p.sqEntries*4, p.cqOff[5]+p.cqEntries*uint32(unsafe.Sizeof(cqe{})))
	var err error
	if r.mem, err = unix.Mmap(r.fd, offSQRing, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE); err != nil {
		unix.Close(r.fd)
		return nil, fmt.Errorf("mmap io_uring: %v", err)
	}
	if r.sqeMem, err = unix.Mmap(r.fd, offSQEs, int(p.sqEntries)*int(unsafe.Sizeof(sqe{})), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE); err != nil {
		unix.Munmap(r.mem)
		unix.Close(r.fd)
		return nil, fmt.Errorf("mmap io_uring: %v", err)
	}
	base := unsafe.Pointer(&r.mem[0])
	field := func(off uint32) *uint32 { return (*uint32)(unsafe.Add(base, off)) }
	r.sqHead, r.sqTail, r.sqMask = field(p.sqOff[0]), field(p.sqOff[1]), *field(p.sqOff[2])
	r.cqHead, r.cqTail, r.cqMask = field(p.cqOff[0]), field(p.cqOff[1]), *field(p.cqOff[2])
	r.sqes = unsafe.Slice((*sqe)(unsafe.Pointer(&r.sqeMem[0])), p.sqEntries)
	r.cqes = unsafe.Slice((*cqe)(unsafe.Add(base, p.cqOff[5])), p.cqEntries)
	// SQE i always sits in slot i of the indirection array.
	array := unsafe.Slice(field(p.sqOff[6]), p.sqEntries)
	for i := range array {
		array[i] = uint32(i)
	}
	r.tail = atomic.LoadUint32(r.sqTail)
	return r, nil
}

func (r *ring) close() {
	unix.Munmap(r.sqeMem)
	unix.Munmap(r.mem)
	unix.Close(r.fd)
}

// get returns a cleared SQE to fill, submitting what is queued first when
// the SQ is full.
func (r *ring) get() (*sqe, error) {
	if r.tail-atomic.LoadUint32(r.sqHead) == uint32(len(r.sqes)) {
		if err := r.enter(0, 0, 0); err != nil {
			return nil, err
		}
	}
	s := &r.sqes[r.tail&r.sqMask]
	*s = sqe{}
	r.tail++
	r.queued++
	return s, nil
}

// enter submits what is queued and, with wait > 0, waits until wait
// completions are ready, or one is after gather (when the kernel can), or
// timeout has passed. With wait 0 it only submits and reaps.
func (r *ring) enter(wait int, gather, timeout time.Duration) error {
	atomic.StoreUint32(r.sqTail, r.tail)
	submit := r.queued
	flags := uintptr(enterGetEvents)
	var arg unsafe.Pointer
	if wait > 0 {
		r.ts = unix.NsecToTimespec(int64(timeout))
		r.arg = geteventsArg{ts: uint64(uintptr(unsafe.Pointer(&r.ts)))}
		if r.minWait && gather > 0 {
			r.arg.minWait = uint32(gather / time.Microsecond)
		} else {
			wait = 1
		}
		flags |= enterExtArg
		arg = unsafe.Pointer(&r.arg)
	}
	var n uintptr
	var errno unix.Errno
	if wait > 0 && r.blocking && timeout > 0 {
		n, _, errno = unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(submit), uintptr(wait), flags, uintptr(arg), unsafe.Sizeof(r.arg))
	} else {
		n, _, errno = unix.RawSyscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(submit), uintptr(wait), flags, uintptr(arg), unsafe.Sizeof(r.arg))
	}
	if errno == 0 || errno == unix.ETIME || errno == unix.EINTR || errno == unix.EAGAIN || errno == unix.EBUSY {
		// Taken: n; the rest stays queued for the next enter. ETIME is the
		// timeout, EBUSY a full CQ: both mean reap and go on.
		if errno == 0 {
			r.queued -= min(uint32(n), submit)
		}
		return nil
	}
	return fmt.Errorf("io_uring_enter: %v", errno)
}

// ready returns the CQ's head and tail: the completions to reap are those
// from head up to tail; done(h) frees those before h.
func (r *ring) ready() (head, tail uint32) {
	return *r.cqHead, atomic.LoadUint32(r.cqTail)
}

func (r *ring) done(head uint32) { atomic.StoreUint32(r.cqHead, head) }

func (r *ring) cqe(i uint32) *cqe { return &r.cqes[i&r.cqMask] }

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

// tag is the user_data of c's operation op on its current socket.
func (c *conn) tag(op uint8) uint64 {
	return uint64(c.idx)<<32 | uint64(c.gen&0xffffff)<<8 | uint64(op)
}

// reap submits the loop's queued operations, waits for completions as long
// as l.wait allows, and handles them. Awaiting minGather responses or more,
// completions are gathered in batches; with fewer, where a response's
// latency is short enough for gather to distort it, each is handled as it
// comes. With a rate, sends keep to the schedule, unless they are due more
// often than every gather: then those due within gather go out together.
func (l *loop) reap(now time.Duration) error {
	r := l.ring
	d := l.wait(now)
	wait, g := 0, time.Duration(0)
	if d > 0 {
		wait = 1
		if l.inflight >= minGather {
			wait, g = min(l.pending/2, maxGather), gather
		}
		if l.interval > 0 && l.interval < gather {
			// A send due sooner than every gather: the sends due within
			// gather go out together, rather than a wake-up each.
			d = max(d, gather)
		}
	}
	if err := r.enter(wait, g, d); err != nil {
		return err
	}
	now = l.now()
	head, tail := r.ready()
	for ; head != tail && l.err == nil; head++ {
		q := *r.cqe(head)
		r.done(head + 1) // its slot is free: handling it may submit and post more
		l.complete1(q, now)
	}
	r.done(head)
	return nil
}

// complete1 handles one completion.
func (l *loop) complete1(q cqe, now time.Duration) {
	c := &l.conns[q.userData>>32]
	op := uint8(q.userData)
	current := uint32(q.userData>>8)&0xffffff == c.gen&0xffffff
	switch op {
	case opRecv, opConnect:
		c.pending--
		l.pending--
	case opSend: // a failed send; successes post nothing
		if current && c.state == open {
			l.lost(c, unix.Errno(-q.res), now)
		}
		return
	default: // a cancel's or close's result: nothing to do
		return
	}
	if !current || (c.state != open && c.state != connecting) {
		// The completion of a socket dropped since; once the kernel holds
		// nothing more of it, a connection waiting to open can.
		if c.state == parked && c.pending == 0 {
			l.connect(c, now)
		}
		return
	}
	switch {
	case op == opConnect && c.state == connecting:
		if q.res < 0 {
			l.connectFailed(c, unix.Errno(-q.res), now)
			return
		}
		l.established(c, now)
	case op == opRecv && c.state == open:
		switch {
		case q.res > 0:
			c.active = now
			if !l.parse(c, c.rbuf[:q.res], now) {
				return // closed
			}
			l.recv(c)
			if c.inflight == 0 && l.left != 0 {
				l.send(c, now)
			}
		case q.res == 0:
			l.lost(c, nil, now)
		default:
			l.lost(c, unix.Errno(-q.res), now)
		}
	}
}

// sqe returns an SQE for operation op on c's socket, the rest of it
// cleared to fill, or nil with l.err set. A receive or connect counts as
// pending on c until its completion (see complete1).
func (l *loop) sqe(c *conn, op uint8) *sqe {
	s, err := l.ring.get()
	if err != nil {
		l.err = err
		return nil
	}
	s.opcode = op
	s.fd = int32(c.fd)
	s.userData = c.tag(op)
	if op == opRecv || op == opConnect {
		c.pending++ // until its completion, whatever the socket's fate
		l.pending++
	}
	return s
}

// recv posts a receive into c's buffer.
func (l *loop) recv(c *conn) {
	s := l.sqe(c, opRecv)
	if s == nil {
		return
	}
	s.addr = uint64(uintptr(unsafe.Pointer(&c.rbuf[0])))
	s.len = uint32(len(c.rbuf))
}

// release closes c's socket through the ring: queued operations that use
// it run first. Operations the kernel still holds on it are cancelled, or
// the socket would live on in them; their completions end c's parking.
func (l *loop) release(c *conn) {
	if c.pending > 0 {
		s := l.sqe(c, opAsyncCancel)
		if s == nil {
			return
		}
		s.flags = sqeHardLink
		s.opFlags = cancelFD | cancelAll
	}
	s := l.sqe(c, opClose)
	if s == nil {
		return
	}
	s.flags = sqeSkipSuccess
}
