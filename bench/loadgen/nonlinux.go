//go:build !linux

package loadgen

// loadgen's engines are Linux's epoll and io_uring: elsewhere the build
// stops here, at one clear name, rather than at every Linux call.
var _ = hellobench_runs_on_linux_only
