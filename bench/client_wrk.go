package bench

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"
)

// Wrk runs wrk with one thread (wrk -t1 -cC -dD --latency) for a duration.
// It keeps its connections alive; for Close it asks for "Connection: close",
// and wrk opens a new connection after each response.
type Wrk struct {
	Bin  string
	CPUs string // taskset CPU list to pin it to; "": not pinned
	// Env is added to wrk's environment: OPENSSL_CONF, over https, sets
	// the protocol version, the cipher and whether it takes tickets.
	Env []string
}

func (w Wrk) Name() string { return "wrk" }

// Unsupported says why wrk cannot run m, or "" when it can.
func (w Wrk) Unsupported(m Mode) string {
	if m == Conn10 {
		return noPerConn
	}
	return ""
}

var (
	wrkTotal   = regexp.MustCompile(`(\d+) requests in ([0-9.]+)(us|ms|s|m)`)
	wrkRate    = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	wrkErrors  = regexp.MustCompile(`Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
	wrkNon2xx  = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)`)
	wrkPercent = regexp.MustCompile(`(?m)^\s+(50|99)(?:\.000)?%\s+([0-9.]+)(us|ms|s)`)
)

// Run runs wrk and fails on socket errors or non-2xx responses. For
// Pipeline it sends PipelineDepth requests per write through a Lua script,
// as TechEmpower's pipeline.lua does.
func (w Wrk) Run(l Load) (Stats, error) {
	if err := closedLoop(w, l); err != nil {
		return Stats{}, err
	}
	if why := w.Unsupported(l.Mode); why != "" {
		return Stats{}, fmt.Errorf("bench: wrk cannot run %s: %s", l.Mode, why)
	}
	// wrk takes whole seconds.
	secs := int((l.Duration + time.Second - 1) / time.Second)
	if secs <= 0 {
		secs = 5
	}
	args := []string{"-t1", "-c" + strconv.Itoa(l.Connections), "-d" + strconv.Itoa(secs) + "s", "--latency"}
	switch l.Mode {
	case Close:
		// The server answers "close" and closes (RFC 9112, section 9.6);
		// wrk reconnects when a response does not keep the connection.
		args = append(args, "-H", "Connection: close")
	case Pipeline:
		dir, err := os.MkdirTemp("", "hellobench-wrk-")
		if err != nil {
			return Stats{}, err
		}
		defer os.RemoveAll(dir)
		script := filepath.Join(dir, "pipeline.lua")
		if err := os.WriteFile(script, fmt.Appendf(nil, pipelineLua, PipelineDepth), 0o644); err != nil {
			return Stats{}, err
		}
		args = append(args, "-s", script)
	}
	return runTimedEnv("wrk", w.Bin, w.CPUs, w.Env, append(args, l.URL), l.URL)
}

// pipelineLua makes wrk write %d requests at once on each connection.
const pipelineLua = `init = function(args)
  local r = {}
  for i = 1, %d do r[i] = wrk.format() end
  req = table.concat(r)
end
request = function() return req end
`

// parseWrk reads wrk --latency's summary.
func parseWrk(b []byte) (Stats, error) {
	var s Stats
	out := string(b)
	m := wrkTotal.FindStringSubmatch(out)
	r := wrkRate.FindStringSubmatch(out)
	if m == nil || r == nil {
		return s, fmt.Errorf("bench: unreadable wrk output: %.300q", out)
	}
	s.Requests, _ = strconv.ParseInt(m[1], 10, 64)
	s.Elapsed = parseUnit(m[2], m[3])
	s.ReqPerSec, _ = strconv.ParseFloat(r[1], 64)
	for _, p := range wrkPercent.FindAllStringSubmatch(out, -1) {
		if p[1] == "50" {
			s.P50 = parseUnit(p[2], p[3])
		} else {
			s.P99 = parseUnit(p[2], p[3])
		}
	}
	var failed int64
	if e := wrkErrors.FindStringSubmatch(out); e != nil {
		for _, v := range e[1:] {
			n, _ := strconv.ParseInt(v, 10, 64)
			failed += n
		}
	}
	if n := wrkNon2xx.FindStringSubmatch(out); n != nil {
		v, _ := strconv.ParseInt(n[1], 10, 64)
		failed += v
	}
	if failed > 0 {
		return s, fmt.Errorf("bench: wrk: %d socket errors or non-2xx responses in %d requests", failed, s.Requests)
	}
	if s.Requests == 0 {
		return s, errors.New("bench: wrk: no complete request")
	}
	return s, nil
}
