//go:build linux

package main

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// dieWithParent asks the kernel to send this process SIGTERM when its
// parent, the lighttpd that spawned it, dies.
func dieWithParent() error {
	return unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGTERM), 0, 0, 0)
}
