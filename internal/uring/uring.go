//go:build linux

// Package uring is io_uring as this project's event loops drive it: raw
// system calls through golang.org/x/sys/unix and the rings shared with the
// kernel, no C library. A Ring is one instance for one thread (single
// issuer): Get an SQE, fill it, Enter to submit and wait, then reap the
// completions from Ready's head to its tail. New's ring runs its
// completions only when its thread enters it (deferred task running);
// NewEventfd's posts them whenever its thread leaves the kernel, and
// signals an eventfd, for a thread that waits elsewhere. A BufRing
// provides the kernel receive buffers it picks from. loadgen's io_uring
// engine and the io_uring floor are its users.
package uring

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The io_uring interface, from the kernel's include/uapi/linux/io_uring.h.

// Operations.
const (
	OpAccept      = 13
	OpAsyncCancel = 14
	OpConnect     = 16
	OpClose       = 19
	OpRead        = 22
	OpSend        = 26
	OpRecv        = 27
)

// Submission flags, a receive's flags (in ioprio), completion flags.
const (
	SQEIOLink       = 1 << 2 // the next entry runs after this one, if it succeeds
	SQEHardLink     = 1 << 3 // the next entry runs after this one, even if it fails
	SQEBufferSelect = 1 << 5 // a receive takes a buffer from the group in BufGroup

	RecvMultishot   = 1 << 1 // IORING_RECV_MULTISHOT: stay armed, complete for each arrival
	AcceptMultishot = 1 << 0 // IORING_ACCEPT_MULTISHOT: stay armed, complete for each connection

	CQEBuffer      = 1 << 0 // the completion used provided buffer flags>>CQEBufferShift
	CQEMore        = 1 << 1 // more completions of this operation follow
	CQEBufferShift = 16
)

// Setup flags, enter flags, features and cancel flags.
const (
	SetupSubmitAll    = 1 << 7  // one bad entry does not stop the rest of a submission
	SetupCoopTaskrun  = 1 << 8  // completions run when the thread next leaves the kernel; no interrupt
	SetupSingleIssuer = 1 << 12 // only the creating thread submits
	SetupDeferTaskrun = 1 << 13 // completions run only when this thread waits for them

	enterGetEvents = 1 << 0
	enterExtArg    = 1 << 3

	featNoDrop     = 1 << 1
	featExtArg     = 1 << 8
	featRegRegRing = 1 << 13 // since 6.3, after multishot receives (6.0) and buffer rings (5.19)
	featMinTimeout = 1 << 15

	CancelAll = 1 << 0
	CancelFD  = 1 << 1
	CancelAny = 1 << 2

	offSQRing = 0
	offSQEs   = 0x10000000
)

type uringParams struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFD uint32
	resv                                                                   [3]uint32
	sqOff                                                                  [10]uint32 // head, tail, mask, entries, flags, dropped, array, resv, user_addr (2)
	cqOff                                                                  [10]uint32 // head, tail, mask, entries, overflow, cqes, flags, resv, user_addr (2)
}

// An SQE is a submission queue entry: an operation for the kernel.
type SQE struct {
	Opcode   uint8
	Flags    uint8
	Ioprio   uint16 // a receive's or an accept's own flags
	Fd       int32
	Off      uint64 // connect: the address's length
	Addr     uint64
	Len      uint32
	OpFlags  uint32 // msg_flags, cancel_flags, accept_flags
	UserData uint64
	BufGroup uint16 // buf_index, or the buffer group of a buffer-select receive
	_        [22]byte
}

// A CQE is a completion queue entry: an operation's result.
type CQE struct {
	UserData uint64
	Res      int32
	Flags    uint32
}

type geteventsArg struct {
	sigmask   uint64
	sigmaskSz uint32
	minWait   uint32 // µs: after this, one completion is enough
	ts        uint64 // *unix.Timespec: the whole wait's limit
}

// A Ring is one io_uring instance: submissions go in its SQ, completions come
// out of its CQ.
type Ring struct {
	fd      int
	mem     []byte // SQ and CQ rings, one mapping
	sqeMem  []byte
	sqHead  *uint32
	sqTail  *uint32
	sqMask  uint32
	sqes    []SQE
	cqHead  *uint32
	cqTail  *uint32
	cqMask  uint32
	cqes    []CQE
	tail    uint32 // next SQE to fill; published to *sqTail on enter
	queued  uint32 // filled and not yet submitted
	minWait bool   // the kernel honours geteventsArg.minWait
	arg     geteventsArg
	ts      unix.Timespec
	// Blocking makes a wait block through the Go scheduler, which then
	// runs other goroutines; otherwise it is a raw system call that holds
	// the thread, for a loop that owns its thread.
	Blocking bool
	// Adaptive, which overrides Blocking, waits raw while busy (the last
	// wait found completions), for at most busyWait, then through the
	// scheduler: a loop that has nothing to reap hands its P back, so
	// goroutines and timers run on time even at GOMAXPROCS=1.
	Adaptive bool
	busy     bool
}

// ErrUnavailable says io_uring is missing, refused (a seccomp profile) or
// lacks what this package needs.
var ErrUnavailable = errors.New("io_uring not available")

// New sets up a ring of at least entries submission slots, for one
// thread: single issuer, completions run when it waits (defer taskrun).
func New(entries int) (*Ring, error) {
	return setup(entries, SetupDeferTaskrun)
}

// NewEventfd sets up a ring as New does, for a thread that waits for its
// completions elsewhere than in Enter: in the Go scheduler, reading efd
// through the netpoller. Its completions are posted by task work the
// kernel runs whenever the thread leaves a system call or wakes from a
// sleep (cooperative: a thread running in user space is not interrupted),
// not only when it waits in the ring, and each posting signals efd
// (IORING_REGISTER_EVENTFD). A deferred ring would signal efd only when
// the thread next entered it.
func NewEventfd(entries, efd int) (*Ring, error) {
	r, err := setup(entries, SetupCoopTaskrun)
	if err != nil {
		return nil, err
	}
	fd := int32(efd)
	if _, _, errno := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), registerEventfd, uintptr(unsafe.Pointer(&fd)), 1, 0, 0); errno != 0 {
		r.Close()
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, os.NewSyscallError("io_uring_register eventfd", errno))
	}
	return r, nil
}

// setup sets up a ring of at least entries submission slots with the
// setup flags taskrun, which say when its completions are posted.
func setup(entries int, taskrun uint32) (*Ring, error) {
	n := uint32(2) // room for a link
	for int(n) < entries && n < 32768 {
		n <<= 1
	}
	p := uringParams{flags: SetupSubmitAll | SetupSingleIssuer | taskrun}
	fd, _, errno := unix.RawSyscall(unix.SYS_IO_URING_SETUP, uintptr(n), uintptr(unsafe.Pointer(&p)), 0)
	if errno != 0 {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, os.NewSyscallError("io_uring_setup", errno))
	}
	r := &Ring{fd: int(fd)}
	if need := uint32(featNoDrop | featExtArg | featRegRegRing); p.features&need != need {
		unix.Close(r.fd)
		return nil, fmt.Errorf("%w: kernel too old (features %#x)", ErrUnavailable, p.features)
	}
	r.minWait = p.features&featMinTimeout != 0
	// One mapping holds both rings (IORING_FEAT_SINGLE_MMAP, implied by
	// the features above).
	size := max(p.sqOff[6]+p.sqEntries*4, p.cqOff[5]+p.cqEntries*uint32(unsafe.Sizeof(CQE{})))
	var err error
	if r.mem, err = unix.Mmap(r.fd, offSQRing, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE); err != nil {
		unix.Close(r.fd)
		return nil, os.NewSyscallError("mmap io_uring", err)
	}
	if r.sqeMem, err = unix.Mmap(r.fd, offSQEs, int(p.sqEntries)*int(unsafe.Sizeof(SQE{})), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE); err != nil {
		unix.Munmap(r.mem)
		unix.Close(r.fd)
		return nil, os.NewSyscallError("mmap io_uring", err)
	}
	base := unsafe.Pointer(&r.mem[0])
	field := func(off uint32) *uint32 { return (*uint32)(unsafe.Add(base, off)) }
	r.sqHead, r.sqTail, r.sqMask = field(p.sqOff[0]), field(p.sqOff[1]), *field(p.sqOff[2])
	r.cqHead, r.cqTail, r.cqMask = field(p.cqOff[0]), field(p.cqOff[1]), *field(p.cqOff[2])
	r.sqes = unsafe.Slice((*SQE)(unsafe.Pointer(&r.sqeMem[0])), p.sqEntries)
	r.cqes = unsafe.Slice((*CQE)(unsafe.Add(base, p.cqOff[5])), p.cqEntries)
	// SQE i always sits in slot i of the indirection array.
	array := unsafe.Slice(field(p.sqOff[6]), p.sqEntries)
	for i := range array {
		array[i] = uint32(i)
	}
	r.tail = atomic.LoadUint32(r.sqTail)
	return r, nil
}

// Close unmaps the rings and closes the ring.
func (r *Ring) Close() {
	unix.Munmap(r.sqeMem)
	unix.Munmap(r.mem)
	unix.Close(r.fd)
}

// Room makes sure n SQ slots are free. If not, it submits what is queued,
// and if the kernel took too little, it fails rather than let an entry not
// yet submitted be overwritten.
func (r *Ring) Room(n int) error {
	free := func() int { return len(r.sqes) - int(r.tail-atomic.LoadUint32(r.sqHead)) }
	if free() >= n {
		return nil
	}
	if err := r.Enter(0, 0, 0); err != nil {
		return fmt.Errorf("io_uring submission queue full: %w", err)
	}
	if free() < n {
		return errors.New("io_uring submission queue full: the kernel took no entry")
	}
	return nil
}

// Get returns a cleared SQE to fill, making room first.
func (r *Ring) Get() (*SQE, error) {
	if err := r.Room(1); err != nil {
		return nil, err
	}
	s := r.get()
	*s = SQE{}
	return s, nil
}

// get takes the next SQ slot, which Room has made sure is free.
func (r *Ring) get() *SQE {
	s := &r.sqes[r.tail&r.sqMask]
	r.tail++
	r.queued++
	return s
}

// busyWait bounds a raw wait after a busy turn (Adaptive): long enough for
// the next completion under load, short enough that goroutines the loop
// made runnable are not kept from the P for long.
const busyWait = 50 * time.Microsecond

// Enter submits what is queued and, with want > 0, waits until want
// completions are ready, or one is after minWait (when the kernel can:
// MinWait), or timeout has passed. With want 0 it only submits. A wait that
// times out or is interrupted is no error; EAGAIN and EBUSY say the kernel
// took nothing.
func (r *Ring) Enter(want int, minWait, timeout time.Duration) error {
	if want == 0 || timeout <= 0 {
		_, err := r.enter(want, minWait, timeout, true)
		return err
	}
	if !r.Adaptive {
		_, err := r.enter(want, minWait, timeout, !r.Blocking)
		return err
	}
	if r.busy {
		// The last wait found completions: more are likely soon, and a
		// raw wait spares the scheduler's bookkeeping. Briefly.
		d := min(timeout, busyWait)
		ready, err := r.enter(want, minWait, d, true)
		if err != nil || ready > 0 || timeout == d {
			r.busy = ready > 0
			return err
		}
		timeout -= d
	}
	ready, err := r.enter(want, minWait, timeout, false)
	r.busy = ready > 0
	return err
}

// enter is one io_uring_enter: raw, or through the scheduler, which may
// then run other goroutines on the P. It returns the completions ready.
func (r *Ring) enter(want int, minWait, timeout time.Duration, raw bool) (ready uint32, err error) {
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
	// Direct calls, not one through a function variable: a pointer
	// converted to uintptr stays valid only in a system call's own
	// argument list (unsafe.Pointer's rule 4).
	var n uintptr
	var errno unix.Errno
	if raw {
		n, _, errno = unix.RawSyscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(submit), uintptr(want), flags, uintptr(arg), unsafe.Sizeof(r.arg))
	} else {
		n, _, errno = unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(submit), uintptr(want), flags, uintptr(arg), unsafe.Sizeof(r.arg))
	}
	head, tail := r.Ready()
	switch errno {
	case 0:
		// Taken: n; the rest stays queued for the next enter. (An error
		// comes back only when the kernel took none.)
		r.queued -= min(uint32(n), submit)
		return tail - head, nil
	case unix.ETIME, unix.EINTR:
		return tail - head, nil
	}
	return tail - head, os.NewSyscallError("io_uring_enter", errno)
}

// Ready returns the CQ's head and tail: the completions to reap are those
// from head up to tail; Done(h) frees those before h.
func (r *Ring) Ready() (head, tail uint32) {
	return *r.cqHead, atomic.LoadUint32(r.cqTail)
}

// Done frees the completions before head.
func (r *Ring) Done(head uint32) { atomic.StoreUint32(r.cqHead, head) }

// Completion returns completion i, from Ready's head up to its tail.
func (r *Ring) Completion(i uint32) *CQE { return &r.cqes[i&r.cqMask] }

// MinWait reports whether the kernel honours Enter's minWait.
func (r *Ring) MinWait() bool { return r.minWait }

// CQSize is the completion queue's length.
func (r *Ring) CQSize() int { return len(r.cqes) }

// Fd is the ring's file descriptor.
func (r *Ring) Fd() int { return r.fd }

// A BufRing is a ring of provided buffers (IORING_REGISTER_PBUF_RING): the
// kernel takes one for each receive completion and names it in the
// completion; Put hands it back. The ring is an array of buffer entries in
// memory shared with the kernel; only its tail is written after
// registering, by the engine, in the 16 bits the first entry reserves.
type BufRing struct {
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
	registerEventfd  = 4
	registerPbufRing = 22
	BufGroup         = 0 // the one buffer group of a ring
)

// NewBufRing registers with r a ring of n buffers (rounded up to a power
// of two) of size bytes, all provided.
func NewBufRing(r *Ring, n, size int) (*BufRing, error) {
	entries := 1
	for entries < n && entries < 32768 {
		entries <<= 1
	}
	mem, err := unix.Mmap(-1, 0, entries*int(unsafe.Sizeof(bufEntry{})), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_POPULATE)
	if err != nil {
		return nil, os.NewSyscallError("mmap buffer ring", err)
	}
	b := &BufRing{
		mem:  mem,
		ents: unsafe.Slice((*bufEntry)(unsafe.Pointer(&mem[0])), entries),
		mask: uint16(entries - 1),
		slab: make([]byte, entries*size),
		size: size,
	}
	reg := bufReg{ringAddr: uint64(uintptr(unsafe.Pointer(&mem[0]))), ringEntries: uint32(entries), bgid: BufGroup}
	if _, _, errno := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), registerPbufRing, uintptr(unsafe.Pointer(&reg)), 1, 0, 0); errno != 0 {
		unix.Munmap(mem)
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, os.NewSyscallError("io_uring_register buffer ring", errno))
	}
	for i := range entries {
		b.Put(uint16(i))
	}
	b.Publish()
	return b, nil
}

// Buf returns buffer bid.
func (b *BufRing) Buf(bid uint16) []byte {
	off := int(bid) * b.size
	return b.slab[off : off+b.size : off+b.size]
}

// Put adds buffer bid to the ring; the kernel sees it after Publish.
func (b *BufRing) Put(bid uint16) {
	i := b.tail & b.mask
	e := &b.ents[i]
	e.addr = uint64(uintptr(unsafe.Pointer(&b.slab[int(bid)*b.size])))
	e.len = uint32(b.size)
	if i == 0 {
		b.bid0 = bid
		// e.bid is written with the tail, by Publish.
	} else {
		e.bid = bid
	}
	b.tail++
}

// Publish hands the kernel the buffers put since the last publish. Entry
// 0's buffer id and the tail share 32 bits: one atomic store writes both,
// ordered after the entries' other fields. The id is the low half on a
// little-endian machine; bigendian.go stops the build on any other.
func (b *BufRing) Publish() {
	atomic.StoreUint32((*uint32)(unsafe.Pointer(&b.ents[0].bid)), uint32(b.tail)<<16|uint32(b.bid0))
}

// Close unmaps the entries. The kernel lets go of them with the ring.
func (b *BufRing) Close() { unix.Munmap(b.mem) }
