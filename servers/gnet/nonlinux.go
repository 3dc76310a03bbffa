//go:build !linux

package main

// The server reaches under gnet with Linux's socket calls (sendto with
// MSG_NOSIGNAL, SIOCINQ, TCP_INFO, the drain and the open-file limit): its
// files build on Linux only, and elsewhere the build stops here, at one
// clear name. Its parser, package http1, builds anywhere.
var _ = hellobench_runs_on_linux_only
