//go:build !linux

package proc

// proc reads what the Linux kernel accounts (/proc, control groups, CPU
// affinity) and asks it for a parent-death signal: elsewhere the build
// stops here, at one clear name, rather than at every Linux call.
var _ = hellobench_runs_on_linux_only
