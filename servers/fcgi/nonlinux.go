//go:build !linux

package main

// Spawned, the application dies with lighttpd by a parent-death signal,
// which only Linux has (pdeathsig_linux.go), and the tests start lighttpd
// through the Linux process helper: elsewhere the build stops here, at one
// clear name.
var _ = hellobench_runs_on_linux_only

func dieWithParent() error { return nil } // not reached: keeps the message alone
