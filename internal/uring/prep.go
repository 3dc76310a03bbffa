//go:build linux

package uring

import "unsafe"

// Prep helpers fill an SQE from Get for one operation. Each clears the
// entry's other fields but keeps its UserData: a helper that takes no user
// data leaves it to the caller, before or after the call.

// PrepAcceptMultishot arms a multishot accept on listening socket lfd: one
// completion per connection, its result the new descriptor, with CQEMore
// while the accept stays armed. flags are accept4's (SOCK_CLOEXEC).
func (s *SQE) PrepAcceptMultishot(lfd int, flags uint32) {
	*s = SQE{Opcode: OpAccept, Fd: int32(lfd), Ioprio: AcceptMultishot, OpFlags: flags, UserData: s.UserData}
}

// PrepRecvMultishot arms a multishot receive on fd into buffers the kernel
// picks from group (a BufRing): one completion per arrival, CQEBuffer
// naming the buffer, CQEMore while the receive stays armed.
func (s *SQE) PrepRecvMultishot(fd int, group uint16) {
	*s = SQE{Opcode: OpRecv, Flags: SQEBufferSelect, Fd: int32(fd), Ioprio: RecvMultishot, BufGroup: group, UserData: s.UserData}
}

// PrepSend sends b on fd with send(2)'s flags. The kernel reads b until
// the send completes: the caller keeps it alive and unchanged until then.
func (s *SQE) PrepSend(fd int, b []byte, flags uint32) {
	*s = SQE{Opcode: OpSend, Fd: int32(fd), Len: uint32(len(b)), OpFlags: flags, UserData: s.UserData}
	if len(b) > 0 {
		s.Addr = uint64(uintptr(unsafe.Pointer(&b[0])))
	}
}

// PrepCancel cancels the one operation whose user data is userData. Its
// completion's result is 0 (cancelled), -ENOENT (none such) or -EALREADY
// (running, and it may still complete normally).
func (s *SQE) PrepCancel(userData uint64) {
	*s = SQE{Opcode: OpAsyncCancel, Fd: -1, Addr: userData, UserData: s.UserData}
}

// CancelAndClose queues a cancel of every operation on fd, hard-linked to
// a close of fd, so that fd cannot be reused before its operations are
// told to stop; cancelData and closeData are their user data. The cancel's
// result is how many it cancelled, or -ENOENT for none. If the submission
// queue cannot take both, it returns Room's error (EAGAIN or EBUSY: try
// again after reaping) and queues nothing.
func (r *Ring) CancelAndClose(fd int, cancelData, closeData uint64) error {
	if err := r.Room(2); err != nil {
		return err
	}
	s := r.get()
	*s = SQE{Opcode: OpAsyncCancel, Flags: SQEHardLink, Fd: int32(fd), OpFlags: CancelFD | CancelAll, UserData: cancelData}
	s = r.get()
	*s = SQE{Opcode: OpClose, Fd: int32(fd), UserData: closeData}
	return nil
}
