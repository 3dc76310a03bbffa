//go:build linux

package main

import "hellobench/servers/internal/connlimit"

// Descriptor exhaustion (package connlimit). Past the limit's maximum, a
// loop closes each new connection as it is accepted, so that the
// descriptors the server needs are never all taken. When accept itself runs
// out (a burst the kernel accepts before the loop closes any of it), the
// multishot accept ends with EMFILE and is armed again at the next sweep,
// not at once: a loop out of descriptors waits, it does not spin. The server
// serves again as soon as connections close.

// newLimit returns the limit of a server of n loops: it spares the
// descriptors each loop opens (its ring, its eventfd, its listening socket),
// some for the accepts in flight, and a few more.
func newLimit(n int) *connlimit.Limit {
	return connlimit.New("uring", 4*n+16)
}
