//go:build !linux

package main

// The server is io_uring, a Linux interface, driven by raw system calls:
// its files build on Linux only, and elsewhere the build stops here, at
// one clear name.
var _ = hellobench_runs_on_linux_only
