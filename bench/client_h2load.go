package bench

import (
	"cmp"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// H2load runs h2load (nghttp2) over HTTP/1.1 with one thread for a
// duration: h2load --h1 -t1 -cC -D D; with Streams, over HTTP/2 instead.
type H2load struct {
	Bin  string // "": h2load on the PATH
	CPUs string // taskset CPU list to pin it to; "": not pinned
	// Streams, when positive, speaks HTTP/2 with that many concurrent
	// streams per connection (-m): by ALPN over https, and in cleartext
	// with prior knowledge over http (h2load's default there).
	Streams int
	Env     []string // added to h2load's environment (OPENSSL_CONF)
}

func (h H2load) Name() string { return "h2load" }

func (h H2load) bin() string { return cmp.Or(h.Bin, clientSpec("h2load").Binary) }

// Unsupported says why h2load cannot run m, or "" when it can. h2load
// reconnects after a "Connection: close" response, but before nghttp2 1.64
// a timed run that does so never ends (nghttp2 pull request 2249).
func (h H2load) Unsupported(m Mode) string {
	if m == Conn10 {
		return noPerConn
	}
	if m != Close {
		return ""
	}
	out, err := exec.Command(h.bin(), "--version").Output()
	if err != nil {
		return fmt.Sprintf("h2load --version: %v", err)
	}
	v := strings.TrimSpace(string(out))
	major, minor, ok := h2loadVersion(v)
	if !ok {
		return fmt.Sprintf("unknown h2load version %.40q", v)
	}
	if major < 1 || major == 1 && minor < 64 {
		return fmt.Sprintf("%s never ends a timed run with Connection: close (fixed in nghttp2 1.64)", v)
	}
	return ""
}

var h2Version = regexp.MustCompile(`nghttp2/(\d+)\.(\d+)`)

// h2loadVersion reads "h2load nghttp2/1.52.0".
func h2loadVersion(s string) (major, minor int, ok bool) {
	m := h2Version.FindStringSubmatch(s)
	if m == nil {
		return 0, 0, false
	}
	major, _ = strconv.Atoi(m[1])
	minor, _ = strconv.Atoi(m[2])
	return major, minor, true
}

// Args returns h2load's command-line arguments for l. In --h1 mode, -m is
// the number of requests pipelined on each connection.
func (h H2load) Args(l Load) []string {
	if h.Streams > 0 {
		return []string{"-t1", "-c" + strconv.Itoa(l.Connections), "-m" + strconv.Itoa(h.Streams),
			"-D", strconv.FormatInt(l.Duration.Milliseconds(), 10) + "ms", l.URL}
	}
	args := []string{"--h1", "-t1", "-c" + strconv.Itoa(l.Connections), "-D", strconv.FormatInt(l.Duration.Milliseconds(), 10) + "ms"}
	switch l.Mode {
	case Pipeline:
		args = append(args, "-m"+strconv.Itoa(PipelineDepth))
	case Close:
		args = append(args, "-H", "Connection: close")
	}
	return append(args, l.URL)
}

// Run runs h2load and fails on failed, errored or timed-out requests and on
// any response but a 2xx. In a timed run h2load neither reconnects after a
// connection the server closed unasked nor counts the request it lost: a
// server that drops connections shows as a low rate, not as errors.
func (h H2load) Run(l Load) (Stats, error) {
	if err := checkLoad(h, l); err != nil {
		return Stats{}, err
	}
	return runTimedEnv("h2load", h.Bin, h.CPUs, h.Env, h.Args(l), l.URL)
}

var (
	h2Finished = regexp.MustCompile(`finished in ([0-9.]+)(us|ms|s), ([0-9.]+) req/s`)
	h2Requests = regexp.MustCompile(`requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout`)
	h2Status   = regexp.MustCompile(`status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx`)
)

// parseH2load reads h2load's summary.
func parseH2load(b []byte) (Stats, error) {
	var s Stats
	out := string(b)
	f, r, c := h2Finished.FindStringSubmatch(out), h2Requests.FindStringSubmatch(out), h2Status.FindStringSubmatch(out)
	if f == nil || r == nil || c == nil {
		return s, fmt.Errorf("bench: unreadable h2load output: %.300q", out)
	}
	s.Elapsed = parseUnit(f[1], f[2])
	s.ReqPerSec, _ = strconv.ParseFloat(f[3], 64)
	n := atois(r[1:])
	total, failed, errored, timeout := n[0], n[4], n[5], n[6]
	codes := atois(c[1:])
	s.Requests = codes[0]
	if other := codes[1] + codes[2] + codes[3]; failed+errored+timeout > 0 || other > 0 {
		return s, fmt.Errorf("bench: h2load: %d failed, %d errored, %d timed out and %d non-2xx (%d 3xx, %d 4xx, %d 5xx) of %d requests",
			failed, errored, timeout, other, codes[1], codes[2], codes[3], total)
	}
	if s.Requests == 0 {
		return s, errors.New("bench: h2load: no complete request (none connected?)")
	}
	return s, nil
}
