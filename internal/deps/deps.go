// Package deps is the table of the programs outside Go that the project
// runs, each with the Debian package that installs it and what needs it:
// the one place a package name is written. The error messages of the
// harness and the tests, scripts/deps.sh and CI read it (deps.sh and CI
// through the command internal/cmd/deps).
package deps

import "slices"

// A Program is one program the project runs, or one file it reads.
type Program struct {
	Name    string // the command, or a file's absolute path
	Package string // the Debian package that installs it
	For     string // what needs it
}

// Programs lists them, the tests' clients first.
var Programs = []Program{
	{"curl", "curl", "conformance: a real client"},
	{"ab", "apache2-utils", "conformance and bench/loadgen: a real client, and the report loadgen copies"},
	{"wrk", "wrk", "conformance, bench: a real client; make compare WHAT=gnet|clients"},
	{"h2load", "nghttp2-client", "bench: make compare WHAT=clients; robust: HTTP/3 from a second client not in Go, where it speaks it (Debian 12's does not)"},
	{"hey", "hey", "bench: make compare WHAT=clients"},
	{"gtlsclient", "ngtcp2-client", "robust: HTTP/3 from a client not written in Go on every -h3 server (ngtcp2's example client, on GnuTLS)"},
	{"slowhttptest", "slowhttptest", "robust: slowloris and slow reads"},
	{"lighttpd", "lighttpd", "the fcgi server's front and the lighttpd-static reference"},
	{"/usr/lib/lighttpd/mod_openssl.so", "lighttpd-mod-openssl", "the fcgi server's HTTPS: lighttpd's TLS module"},
	{"nginx", "nginx-light", "the nginx reference"},
	{"taskset", "util-linux", "every process the harness starts pinned to its CPUs"},
	{"prlimit", "util-linux", "robust: descriptor exhaustion under an open-file limit"},
	{"setpriv", "util-linux", "servers/fcgi/serve.sh: lighttpd dies with the script"},
	{"pgrep", "procps", "servers/fcgi/serve.sh: waits for the application to exit"},
	{"java", "default-jre-headless", "bench/loadgen: HdrHistogram's own tools read loadgen's logs"},
	{"/usr/share/java/hdrhistogram.jar", "libhdrhistogram-java", "bench/loadgen: HdrHistogram's own tools read loadgen's logs"},
	{"perf", "linux-perf", "bench: make bench-load counts system calls and epoll_waits per request on the kernel's tracepoints; make bench-profile records where the CPU goes"},
	{"strace", "strace", "bench: make bench-profile traces the system calls of one keep-alive request"},
	{"rsvg-convert", "librsvg2-bin", "looking at the report's charts (results/*.svg) as PNG"},
	{"make", "make", "make test and the bench targets; bench's Ctrl-C test runs make bench-quick"},
}

// Package returns the Debian package that installs the program name, or
// "" when the table lacks it.
func Package(name string) string {
	i := slices.IndexFunc(Programs, func(p Program) bool { return p.Name == name })
	if i < 0 {
		return ""
	}
	return Programs[i].Package
}

// NotInstalled says that the program name is missing and how to install
// it: "nginx is not installed: apt-get install nginx-light".
func NotInstalled(name string) string {
	pkg := Package(name)
	if pkg == "" {
		return name + " is not installed"
	}
	return name + " is not installed: apt-get install " + pkg
}

// Packages returns the Debian packages of the table, each once, in the
// table's order.
func Packages() []string {
	var v []string
	for _, p := range Programs {
		if !slices.Contains(v, p.Package) {
			v = append(v, p.Package)
		}
	}
	return v
}
