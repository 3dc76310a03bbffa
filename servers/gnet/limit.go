//go:build linux

package main

import "hellobench/servers/internal/connlimit"

// Descriptor exhaustion (package connlimit). When accept(2) fails with
// EMFILE, gnet's event loop takes it as fatal: the loop exits and the whole
// engine stops, so a flood of connections under a low open-file limit would
// end the server. The error comes from inside gnet, where no handler can
// catch it or keep a spare descriptor to accept-and-close with, so the
// server makes sure accept never runs out: past the limit's maximum, OnOpen
// closes each new connection at once, which frees its descriptor before the
// loop accepts again.

// newLimit returns the limit of a server of n event loops, made at boot: it
// spares the descriptors each loop opens after boot (its epoll, its wake-up
// eventfd and its SO_REUSEPORT listening socket), one per loop for a
// descriptor accepted but not yet counted (the loops accept concurrently),
// and a few for shutdown's own.
func newLimit(n int) *connlimit.Limit {
	return connlimit.New("gnet", 4*n+8)
}
