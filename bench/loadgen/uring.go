package loadgen

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

const (
	// recvSize is each connection's receive buffer under io_uring, where
	// every connection has a receive posted at once; smaller past
	// manyConns connections, to bound the memory.
	recvSize  = 16 << 10
	manyConns = 4096
	// drainWait bounds how long a shutdown waits for the kernel to finish
	// the operations it holds; past it their memory is kept for good.
	drainWait = 10 * time.Second
)

// uring is the engine over an io_uring ring. Connects, sends, receives and
// closes are queued as submissions; one io_uring_enter submits them all and
// waits for completions, which wait hands to the loop.
//
// The engine counts the operations whose completion it has not reaped:
// memory an operation points at (a receive buffer, the loop's request
// bytes) is reused or freed only after its completion. So a connection's
// socket, closed with a receive still posted, leaves that buffer to the
// receive's completion, and the next socket takes another. Every operation
// posts a completion, but a send the loop awaits the answers to (a closed
// loop): that posts one only if it fails, and is linked to a receive, which
// the kernel starts only once the send is done, so that one completion, the
// receive's or the failed send's (the receive is then cancelled without
// one), covers the pair. Under load this saves a completion per send, which
// would otherwise end a gathering wait early.
type uring struct {
	l       *loop
	r       *ring
	sa      rawSockaddr // the target, for connect
	socks   []usock     // by connection
	bufs    [][]byte    // receive buffers
	free    []int32     // receive buffers no operation holds
	bufSize int
	ops     int   // operations queued or in the kernel whose completion is not reaped
	slow    int   // receives and connects among them: they wait on the network
	quick   int   // sends, cancels and closes queued since the last enter
	err     error // the first failure to queue an operation: it ends the run
}

// usock is the engine's state of a connection's current socket.
type usock struct {
	ops     int   // its connect, send and receive not yet completed
	buf     int32 // its receive buffer; -1: none yet
	recv    bool  // a receive into buf is posted
	sendLen int   // the length of the send in flight
}

func newURing(l *loop) (*uring, error) {
	size := l.cfg.ringSize
	if size == 0 {
		size = 4*len(l.conns) + 64
	}
	r, err := newRing(size)
	if err != nil {
		return nil, err
	}
	r.blocking = !l.cfg.Solo
	n := len(l.conns)
	u := &uring{
		l:       l,
		r:       r,
		sa:      newRawSockaddr(l.t.sa),
		socks:   make([]usock, n),
		bufs:    make([][]byte, 0, 2*n),
		free:    make([]int32, 0, 2*n),
		bufSize: recvSize,
	}
	if n > manyConns {
		u.bufSize = 4 << 10
	}
	for i := range u.socks {
		u.socks[i].buf = -1
	}
	return u, nil
}

// untracked marks, in a tag's op, a send that posts a completion only if
// it fails (see uring).
const untracked = 0x80

// tag is an operation's user_data: the connection, op, and x: the socket's
// generation, or for a receive, and an untracked send, the receive's buffer.
func tag(idx int32, x uint32, op uint8) uint64 {
	return uint64(uint32(idx))<<32 | uint64(x&0xffffff)<<8 | uint64(op)
}

// sqe queues operation op on c's socket and returns its entry to fill, or
// nil when the SQ cannot take it (u.err then says why).
func (u *uring) sqe(c *conn, op uint8, x uint32) *sqe {
	if u.err != nil {
		return nil
	}
	s, err := u.r.get()
	if err != nil {
		u.err = err
		return nil
	}
	s.opcode = op &^ untracked
	s.fd = int32(c.fd)
	s.userData = tag(c.idx, x, op)
	switch op {
	case opSend | untracked:
		s.flags = sqeSkipSuccess
		return s // counted as its receive's
	case opRecv, opConnect:
		u.slow++
		u.socks[c.idx].ops++
	case opSend:
		u.quick++
		u.socks[c.idx].ops++
	default:
		u.quick++
	}
	u.ops++
	return s
}

// pair makes room for two entries to be queued together (a link), so
// that no submission falls between them.
func (u *uring) pair() bool {
	if u.err == nil {
		u.err = u.r.room(2)
	}
	return u.err == nil
}

func (u *uring) connect(c *conn) error {
	fd, err := socket(u.l)
	if err != nil {
		return err
	}
	c.fd = fd
	u.socks[c.idx] = usock{buf: -1}
	if s := u.sqe(c, opConnect, c.gen); s != nil {
		s.addr = uint64(uintptr(unsafe.Pointer(&u.sa.buf[0])))
		s.off = uint64(u.sa.len)
	}
	return nil
}

func (u *uring) send(c *conn, b []byte, await bool) (bool, error) {
	k := &u.socks[c.idx]
	link := await && !k.recv
	op, x := uint8(opSend), c.gen
	if link {
		if !u.pair() {
			return false, nil
		}
		if k.buf < 0 {
			k.buf = u.takeBuf()
		}
		op, x = opSend|untracked, uint32(k.buf)
	}
	s := u.sqe(c, op, x)
	if s == nil {
		return false, nil
	}
	// MSG_WAITALL: the kernel sends the rest of a short send itself, and
	// completes when all of b is sent or the socket failed.
	s.addr = uint64(uintptr(unsafe.Pointer(&b[0])))
	s.len = uint32(len(b))
	s.opFlags = unix.MSG_WAITALL | unix.MSG_NOSIGNAL
	k.sendLen = len(b)
	if !link {
		return false, nil
	}
	s.flags |= sqeLink
	u.receive(c)
	return true, nil
}

func (u *uring) receive(c *conn) {
	k := &u.socks[c.idx]
	if k.recv {
		return
	}
	if k.buf < 0 {
		k.buf = u.takeBuf()
	}
	if s := u.sqe(c, opRecv, uint32(k.buf)); s != nil {
		b := u.bufs[k.buf]
		s.addr = uint64(uintptr(unsafe.Pointer(&b[0])))
		s.len = uint32(len(b))
		k.recv = true
	}
}

// takeBuf returns a free receive buffer, making one when none is.
func (u *uring) takeBuf() int32 {
	if n := len(u.free); n > 0 {
		b := u.free[n-1]
		u.free = u.free[:n-1]
		return b
	}
	u.bufs = append(u.bufs, make([]byte, u.bufSize))
	return int32(len(u.bufs) - 1)
}

// close closes c's socket through the ring, after the operations queued
// before it. Operations the kernel still holds on the socket are cancelled
// first, or the socket would live on in them.
func (u *uring) close(c *conn) {
	k := &u.socks[c.idx]
	if c.fd >= 0 {
		if k.ops > 0 && u.pair() {
			if s := u.sqe(c, opAsyncCancel, c.gen); s != nil {
				s.flags = sqeHardLink // the close runs whatever the cancel's result
				s.opFlags = cancelFD | cancelAll
			}
		}
		u.sqe(c, opClose, c.gen)
	}
	if k.buf >= 0 && !k.recv {
		u.free = append(u.free, k.buf)
	}
	// A posted receive keeps its buffer until its completion.
	*k = usock{buf: -1}
}

func (u *uring) wait(d time.Duration, awaiting int) error {
	if u.err != nil {
		return u.err
	}
	want, g := 0, time.Duration(0)
	if d > 0 {
		// Awaiting few responses, each is handled as it comes: gathering
		// would show in latencies short enough to be distorted by it.
		want = 1
		if awaiting >= minGather && u.r.minWait {
			want, g = max(min(u.slow/2, maxGather), 1), gather
		}
		// Sends, cancels and closes queued now complete within this
		// enter, mostly at once: their completions are not what the
		// loop waits for.
		want = min(want+u.quick, len(u.r.cqes))
	}
	u.quick = 0
	if err := u.r.enter(want, g, d); err != nil && !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EBUSY) {
		// EAGAIN and EBUSY: the kernel took nothing for now (short of
		// memory, or its CQ overflowing); reap and submit again.
		return err
	}
	now := u.l.now()
	head, tail := u.r.ready()
	for ; head != tail && u.l.err == nil && u.err == nil; head++ {
		q := *u.r.cqe(head)
		u.r.done(head + 1) // its slot is free: handling it may submit and post more
		u.complete(q, now)
	}
	u.r.done(head)
	return u.err
}

// complete handles one completion.
func (u *uring) complete(q cqe, now time.Duration) {
	idx, x, op := int32(q.userData>>32), uint32(q.userData>>8)&0xffffff, uint8(q.userData)
	c := &u.l.conns[idx]
	u.ops--
	switch op {
	case opRecv, opSend | untracked:
		// A receive's, or a failed send's whose linked receive was
		// cancelled without one: this completion is the receive's.
		u.slow--
		if !u.received(c, x) {
			return
		}
		if op == opRecv {
			u.recvDone(c, q.res, u.bufs[x], now)
		} else if err := sendResult(q.res, u.socks[idx].sendLen); err != nil {
			u.l.lost(c, err, now)
		}
	case opConnect:
		u.slow--
		if u.current(c, x) {
			if q.res < 0 {
				u.l.connectFailed(c, os.NewSyscallError("connect", unix.Errno(-q.res)), now)
				return
			}
			u.l.established(c, now)
		}
	case opSend:
		if u.current(c, x) {
			if err := sendResult(q.res, u.socks[idx].sendLen); err != nil {
				u.l.lost(c, err, now)
				return
			}
			u.l.sent(c, now)
		}
	}
	// A cancel's or close's: nothing to do.
}

// received settles the end of a receive into buffer x on c, and reports
// whether it was of c's current socket; if not, the buffer is free now.
func (u *uring) received(c *conn, x uint32) bool {
	k := &u.socks[c.idx]
	if !k.recv || k.buf != int32(x) {
		u.free = append(u.free, int32(x))
		return false
	}
	k.recv = false
	k.ops--
	return true
}

// current settles the end of a connect or send of c's socket of
// generation gen, and reports whether that is still c's socket.
func (u *uring) current(c *conn, gen uint32) bool {
	if gen != c.gen&0xffffff || c.fd < 0 {
		return false
	}
	u.socks[c.idx].ops--
	return true
}

// recvDone hands the loop what a receive got: bytes, the end, or an error.
func (u *uring) recvDone(c *conn, res int32, b []byte, now time.Duration) {
	switch {
	case res > 0:
		u.l.received(c, b[:res], now)
	case res == 0:
		u.l.lost(c, nil, now)
	default:
		u.l.lost(c, os.NewSyscallError("recv", unix.Errno(-res)), now)
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
func (u *uring) shutdown() {
	if u.ops > 0 {
		if s, err := u.r.get(); err == nil {
			s.opcode = opAsyncCancel
			s.opFlags = cancelAll | cancelAny
			u.ops++
		}
	}
	for end := time.Now().Add(drainWait); u.ops > 0 && time.Now().Before(end); {
		err := u.r.enter(1, 0, 10*time.Millisecond)
		if err != nil && !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EBUSY) {
			break
		}
		// Each completion ends one counted operation (an untracked
		// send's, its receive).
		head, tail := u.r.ready()
		u.ops -= int(tail - head)
		u.r.done(tail)
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
	u.r.close()
}

// kept holds the engines whose operations outlived their shutdown, and so
// their buffers and their loop's request bytes.
var kept struct {
	sync.Mutex
	engines []*uring
}

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
	sqeLink        = 1 << 2 // the next entry runs after this one, unless it fails
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
	n := uint32(2) // room for a link
	for int(n) < entries && n < 32768 {
		n <<= 1
	}
	p := uringParams{flags: setupSubmitAll | setupSingleIssuer | setupDeferTaskrun}
	fd, _, errno := unix.RawSyscall(unix.SYS_IO_URING_SETUP, uintptr(n), uintptr(unsafe.Pointer(&p)), 0)
	if errno != 0 {
		return nil, fmt.Errorf("%w: %w", errNoURing, os.NewSyscallError("io_uring_setup", errno))
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
		return nil, os.NewSyscallError("mmap io_uring", err)
	}
	if r.sqeMem, err = unix.Mmap(r.fd, offSQEs, int(p.sqEntries)*int(unsafe.Sizeof(sqe{})), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE); err != nil {
		unix.Munmap(r.mem)
		unix.Close(r.fd)
		return nil, os.NewSyscallError("mmap io_uring", err)
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

// room makes sure n SQ slots are free. If not, it submits what is queued,
// and if the kernel took too little, it fails rather than let an entry not
// yet submitted be overwritten.
func (r *ring) room(n int) error {
	free := func() int { return len(r.sqes) - int(r.tail-atomic.LoadUint32(r.sqHead)) }
	if free() >= n {
		return nil
	}
	if err := r.enter(0, 0, 0); err != nil {
		return fmt.Errorf("io_uring submission queue full: %w", err)
	}
	if free() < n {
		return errors.New("io_uring submission queue full: the kernel took no entry")
	}
	return nil
}

// get returns a cleared SQE to fill, making room first.
func (r *ring) get() (*sqe, error) {
	if err := r.room(1); err != nil {
		return nil, err
	}
	s := &r.sqes[r.tail&r.sqMask]
	*s = sqe{}
	r.tail++
	r.queued++
	return s, nil
}

// enter submits what is queued and, with want > 0, waits until want
// completions are ready, or one is after minWait (when the kernel can), or
// timeout has passed. With want 0 it only submits. A wait that times out or
// is interrupted is no error; EAGAIN and EBUSY say the kernel took nothing.
func (r *ring) enter(want int, minWait, timeout time.Duration) error {
	atomic.StoreUint32(r.sqTail, r.tail)
	submit := r.queued
	flags := uintptr(enterGetEvents)
	var arg unsafe.Pointer
	if want > 0 {
		r.ts = unix.NsecToTimespec(int64(timeout))
		r.arg = geteventsArg{ts: uint64(uintptr(unsafe.Pointer(&r.ts)))}
		if r.minWait {
			r.arg.minWait = uint32(minWait / time.Microsecond)
		}
		flags |= enterExtArg
		arg = unsafe.Pointer(&r.arg)
	}
	var n uintptr
	var errno unix.Errno
	if want > 0 && r.blocking && timeout > 0 {
		n, _, errno = unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(submit), uintptr(want), flags, uintptr(arg), unsafe.Sizeof(r.arg))
	} else {
		n, _, errno = unix.RawSyscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(submit), uintptr(want), flags, uintptr(arg), unsafe.Sizeof(r.arg))
	}
	switch errno {
	case 0:
		// Taken: n; the rest stays queued for the next enter. (An error
		// comes back only when the kernel took none.)
		r.queued -= min(uint32(n), submit)
		return nil
	case unix.ETIME, unix.EINTR:
		return nil
	}
	return os.NewSyscallError("io_uring_enter", errno)
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
