package bench

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Hey runs hey for a duration: hey -z D -c C -cpus 1. It is a Go program;
// run pins it to one core with GOMAXPROCS=1.
type Hey struct {
	Bin  string // "": hey on the PATH
	CPUs string // taskset CPU list to pin it to; "": not pinned
}

func (h Hey) Name() string { return "hey" }

// Unsupported says why hey cannot run m, or "" when it can.
func (h Hey) Unsupported(m Mode) string {
	switch m {
	case Pipeline:
		return "hey (Go's net/http client) waits for each response before sending the next request: no pipelining"
	case Conn10:
		return noPerConn
	}
	return ""
}

// Args returns hey's command-line arguments for l.
func (h Hey) Args(l Load) []string {
	args := []string{"-z", l.Duration.String(), "-c", strconv.Itoa(l.Connections), "-cpus", "1"}
	if l.Mode == Close {
		args = append(args, "-disable-keepalive")
	}
	return append(args, l.URL)
}

// Run runs hey and fails on any error and on any response but a 2xx.
func (h Hey) Run(l Load) (Stats, error) {
	if err := checkLoad(h, l); err != nil {
		return Stats{}, err
	}
	return runTimed("hey", h.Bin, h.CPUs, h.Args(l), l.URL)
}

var (
	heyTotal   = regexp.MustCompile(`Total:\s+([0-9.]+) secs`)
	heyRate    = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	heyStatus  = regexp.MustCompile(`(?m)^\s+\[(\d{3})\]\s+(\d+) responses$`)
	heyError   = regexp.MustCompile(`(?m)^\s+\[(\d+)\]\s+(.+)$`)
	heyPercent = regexp.MustCompile(`(?m)^\s+(50|99)% in ([0-9.]+) secs`)
)

// parseHey reads hey's summary.
func parseHey(b []byte) (Stats, error) {
	var s Stats
	out := string(b)
	t, r := heyTotal.FindStringSubmatch(out), heyRate.FindStringSubmatch(out)
	_, codes, found := strings.Cut(out, "Status code distribution:")
	if t == nil || r == nil || !found {
		return s, fmt.Errorf("bench: unreadable hey output: %.300q", out)
	}
	s.Elapsed = parseUnit(t[1], "s")
	s.ReqPerSec, _ = strconv.ParseFloat(r[1], 64)
	for _, p := range heyPercent.FindAllStringSubmatch(out, -1) {
		if p[1] == "50" {
			s.P50 = parseUnit(p[2], "s")
		} else {
			s.P99 = parseUnit(p[2], "s")
		}
	}
	codes, errs, _ := strings.Cut(codes, "Error distribution:")
	var other int64
	for _, m := range heyStatus.FindAllStringSubmatch(codes, -1) {
		n, _ := strconv.ParseInt(m[2], 10, 64)
		if m[1][0] == '2' {
			s.Requests += n
		} else {
			other += n
		}
	}
	var failed int64
	var why []string
	for _, m := range heyError.FindAllStringSubmatch(errs, -1) {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		failed += n
		why = append(why, fmt.Sprintf("%d× %s", n, m[2]))
	}
	if other > 0 || failed > 0 {
		return s, fmt.Errorf("bench: hey: %d non-2xx responses and %d failed requests [%s] besides %d 2xx",
			other, failed, strings.Join(why, "; "), s.Requests)
	}
	if s.Requests == 0 {
		return s, errors.New("bench: hey: no complete request")
	}
	return s, nil
}
