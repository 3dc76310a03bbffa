//go:build linux

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

// uring is the engine over an io_uring ring. Connects, sends, receives and
// closes are queued as submissions; one io_uring_enter submits them all and
// waits for completions, which wait hands to the loop.
//
// Each connection has one multishot receive: posted once, it completes
// each time bytes arrive, into a buffer the kernel takes from a ring of
// buffers the engine provides (bufRing), and stays armed. A receive posted
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
type uring struct {
	l     *loop
	r     *ring
	sa    rawSockaddr // the target, for connect
	socks []usock     // by connection
	bufs  *bufRing
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
	bufSize := recvSize
	if n > manyConns {
		bufSize = 4 << 10
	}
	bufs, err := newBufRing(r, min(2*n, maxBufs), bufSize)
	if err != nil {
		r.close()
		return nil, err
	}
	return &uring{
		l:     l,
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
func (u *uring) sqe(c *conn, op uint8, x uint32) *sqe {
	if u.err != nil {
		return nil
	}
	s, err := u.r.get()
	if err != nil {
		u.err = err
		return nil
	}
	s.opcode = op
	s.fd = int32(c.fd)
	s.userData = tag(c.idx, x, op)
	switch op {
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
	u.socks[c.idx] = usock{}
	if s := u.sqe(c, opConnect, c.gen); s != nil {
		s.addr = uint64(uintptr(unsafe.Pointer(&u.sa.buf[0])))
		s.off = uint64(u.sa.len)
	}
	return nil
}

// send posts a send whose completion reports it done: even when the loop
// awaits the answers, the kernel may hold a send (no room in the socket)
// and must be known to have finished with b before a shutdown.
func (u *uring) send(c *conn, b []byte) (bool, error) {
	s := u.sqe(c, opSend, c.gen)
	if s == nil {
		return false, nil
	}
	// MSG_WAITALL: the kernel sends the rest of a short send itself, and
	// completes when all of b is sent or the socket failed.
	s.addr = uint64(uintptr(unsafe.Pointer(&b[0])))
	s.len = uint32(len(b))
	s.opFlags = unix.MSG_WAITALL | unix.MSG_NOSIGNAL
	u.socks[c.idx].sendLen = len(b)
	return false, nil
}

// receive arms c's multishot receive, unless it is armed.
func (u *uring) receive(c *conn) {
	k := &u.socks[c.idx]
	if k.recv {
		return
	}
	if s := u.sqe(c, opRecv, c.gen); s != nil {
		s.flags = sqeBufferSelect
		s.ioprio = recvMultishot
		s.bufGroup = bufGroup
		k.recv = true
	}
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
	*k = usock{}
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
	if len(u.l.pend) > 0 {
		u.l.issue(u.l.now()) // the sends queued are issued by this enter
	}
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
	u.bufs.publish()
	return u.err
}

// complete handles one completion.
func (u *uring) complete(q cqe, now time.Duration) {
	idx, x, op := int32(q.userData>>32), uint32(q.userData>>8)&0xffffff, uint8(q.userData)
	c := &u.l.conns[idx]
	if op == opRecv {
		u.recvDone(c, q, x, now)
		return
	}
	u.ops--
	switch op {
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

// current settles the end of a connect or send of c's socket of
// generation gen, and reports whether that is still c's socket.
func (u *uring) current(c *conn, gen uint32) bool {
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
func (u *uring) recvDone(c *conn, q cqe, gen uint32, now time.Duration) {
	k := &u.socks[c.idx]
	current := gen == c.gen&0xffffff && c.fd >= 0 && k.recv
	if q.flags&cqeMore == 0 {
		u.ops--
		u.slow--
		if current {
			// Before the loop sees the bytes, so that its next
			// receive posts the receive again.
			k.ops--
			k.recv = false
		}
	}
	if q.flags&cqeBuffer != 0 {
		bid := uint16(q.flags >> cqeBufferShift)
		if current && q.res > 0 {
			u.l.received(c, u.bufs.buf(bid)[:q.res], now)
		}
		u.bufs.put(bid) // the loop has parsed the bytes: the buffer is free
		return
	}
	switch {
	case !current:
	case q.res == 0:
		u.l.lost(c, nil, now)
	case q.res == -int32(unix.ENOBUFS):
		// Every buffer was in use: the receive ended, and resumes
		// with the buffers this wait returns.
		u.receive(c)
	case q.res < 0:
		u.l.lost(c, os.NewSyscallError("recv", unix.Errno(-q.res)), now)
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
		// Each completion ends one counted operation, but a multishot
		// receive's that says more follow.
		head, tail := u.r.ready()
		for ; head != tail; head++ {
			if q := u.r.cqe(head); uint8(q.userData) != opRecv || q.flags&cqeMore == 0 {
				u.ops--
			}
		}
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
	u.bufs.close()
}

// kept holds the engines whose operations outlived their shutdown, and so
// their provided buffers and their loop's request bytes.
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

// Submission flags, a receive's flags (in ioprio), completion flags.
const (
	sqeHardLink     = 1 << 3 // the next entry runs after this one, even if it fails
	sqeBufferSelect = 1 << 5 // a receive takes a buffer from the group in bufGroup

	recvMultishot = 1 << 1 // IORING_RECV_MULTISHOT: stay armed, complete for each arrival

	cqeBuffer      = 1 << 0 // the completion used provided buffer flags>>cqeBufferShift
	cqeMore        = 1 << 1 // more completions of this operation follow
	cqeBufferShift = 16
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
	featRegRegRing = 1 << 13 // since 6.3, after multishot receives (6.0) and buffer rings (5.19)
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
	bufGroup uint16 // buf_index, or the buffer group of a buffer-select receive
	_        [22]byte
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
	if need := uint32(featNoDrop | featExtArg | featRegRegRing); p.features&need != need {
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

// bufRing is a ring of provided buffers (IORING_REGISTER_PBUF_RING): the
// kernel takes one for each receive completion and names it in the
// completion; put hands it back. The ring is an array of buffer entries in
// memory shared with the kernel; only its tail is written after
// registering, by the engine, in the 16 bits the first entry reserves.
type bufRing struct {
	mem  []byte // the entries, page-aligned
	ents []bufEntry
	tail uint16 // entries added; published to the kernel by publish
	mask uint16
	bid0 uint16 // the buffer id in entry 0, beside the tail
	slab []byte // the buffers, size bytes each
	size int
}

type bufEntry struct {
	addr uint64
	len  uint32
	bid  uint16
	tail uint16 // entry 0's: the ring's tail; the others' unused
}

type bufReg struct {
	ringAddr    uint64
	ringEntries uint32
	bgid        uint16
	flags       uint16
	_           [3]uint64
}

const (
	registerPbufRing = 22
	bufGroup         = 0 // the one buffer group of a ring
)

// newBufRing registers with r a ring of n buffers (rounded up to a power
// of two) of size bytes, all provided.
func newBufRing(r *ring, n, size int) (*bufRing, error) {
	entries := 1
	for entries < n && entries < 32768 {
		entries <<= 1
	}
	mem, err := unix.Mmap(-1, 0, entries*int(unsafe.Sizeof(bufEntry{})), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_POPULATE)
	if err != nil {
		return nil, os.NewSyscallError("mmap buffer ring", err)
	}
	b := &bufRing{
		mem:  mem,
		ents: unsafe.Slice((*bufEntry)(unsafe.Pointer(&mem[0])), entries),
		mask: uint16(entries - 1),
		slab: make([]byte, entries*size),
		size: size,
	}
	reg := bufReg{ringAddr: uint64(uintptr(unsafe.Pointer(&mem[0]))), ringEntries: uint32(entries), bgid: bufGroup}
	if _, _, errno := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), registerPbufRing, uintptr(unsafe.Pointer(&reg)), 1, 0, 0); errno != 0 {
		unix.Munmap(mem)
		return nil, fmt.Errorf("%w: %w", errNoURing, os.NewSyscallError("io_uring_register buffer ring", errno))
	}
	for i := range entries {
		b.put(uint16(i))
	}
	b.publish()
	return b, nil
}

// buf returns buffer bid.
func (b *bufRing) buf(bid uint16) []byte {
	off := int(bid) * b.size
	return b.slab[off : off+b.size : off+b.size]
}

// put adds buffer bid to the ring; the kernel sees it after publish.
func (b *bufRing) put(bid uint16) {
	i := b.tail & b.mask
	e := &b.ents[i]
	e.addr = uint64(uintptr(unsafe.Pointer(&b.slab[int(bid)*b.size])))
	e.len = uint32(b.size)
	if i == 0 {
		b.bid0 = bid
		// e.bid is written with the tail, by publish.
	} else {
		e.bid = bid
	}
	b.tail++
}

// publish hands the kernel the buffers put since the last publish. Entry
// 0's buffer id and the tail share 32 bits: one atomic store writes both,
// ordered after the entries' other fields.
func (b *bufRing) publish() {
	atomic.StoreUint32((*uint32)(unsafe.Pointer(&b.ents[0].bid)), uint32(b.tail)<<16|uint32(b.bid0))
}

// close unmaps the entries. The kernel lets go of them with the ring.
func (b *bufRing) close() { unix.Munmap(b.mem) }

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
