package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"hellobench/bench/loadgen"
)

// Loadgen runs the in-repo load generator (bin/loadgen -json).
type Loadgen struct {
	Bin    string
	CPUs   string // taskset CPU list to pin it to; "": not pinned
	Resume bool   // with an https:// URL, resume TLS sessions (-resume)
}

func (g Loadgen) Name() string { return "loadgen" }

// Args returns loadgen's command-line arguments for l.
func (g Loadgen) Args(l Load) []string {
	args := []string{"-json", "-c", strconv.Itoa(l.Connections)}
	if l.Requests > 0 {
		args = append(args, "-n", strconv.Itoa(l.Requests))
	} else {
		args = append(args, "-d", l.Duration.String())
	}
	if l.Rate > 0 {
		args = append(args, "-rate", strconv.FormatFloat(l.Rate, 'f', -1, 64))
	}
	if l.Warmup > 0 {
		args = append(args, "-warmup", l.Warmup.String())
	}
	if l.Log != "" {
		args = append(args, "-o", l.Log)
	}
	if l.Spin {
		args = append(args, "-spin")
	}
	if g.Resume {
		args = append(args, "-resume")
	}
	switch l.Mode {
	case KeepAlive, JSON:
		args = append(args, "-k")
	case Pipeline:
		args = append(args, "-k", "-pipeline", strconv.Itoa(PipelineDepth))
	case Conn10:
		args = append(args, "-k", "-per-conn", strconv.Itoa(ConnRequests))
	}
	return append(args, l.URL)
}

// Run runs loadgen and fails on any failed or non-2xx request: such a run
// measures errors, not a server. loadgen exits non-zero when requests
// failed, and its JSON says which: the output is read before the exit
// status.
func (g Loadgen) Run(l Load) (Stats, error) {
	if l.Requests > 0 && l.Requests < l.Connections {
		l.Connections = l.Requests
	}
	return g.runArgs(l, g.Args(l))
}

// runArgs runs loadgen with args, l's load in them.
func (g Loadgen) runArgs(l Load, args []string) (Stats, error) {
	out, t, runErr := run(g.CPUs, g.Bin, args...)
	st, err := parseLoadgen(out)
	if runErr != nil && (err == nil || !json.Valid(out)) {
		err = runErr
	}
	if err != nil {
		return Stats{}, fmt.Errorf("bench: loadgen against %s: %v", l.URL, err)
	}
	st.ClientCPU, st.ClientUser = t.CPU(), t.User
	return st, nil
}

// parseLoadgen reads loadgen's -json result.
func parseLoadgen(out []byte) (Stats, error) {
	var r loadgen.JSONResult
	if err := json.Unmarshal(out, &r); err != nil {
		return Stats{}, fmt.Errorf("unreadable -json output (%v): %.200q", err, out)
	}
	if r.Failed > 0 || r.Non2xx > 0 {
		f := r.Failures
		return Stats{}, fmt.Errorf("%d failed requests (connect %d, receive %d, length %d, exceptions %d, timeout %d) and %d non-2xx responses of %d",
			r.Failed, f.Connect, f.Receive, f.Length, f.Exceptions, f.Timeout, r.Non2xx, r.Complete)
	}
	if r.Complete == 0 {
		return Stats{}, errors.New("no complete request")
	}
	us := func(v float64) time.Duration { return time.Duration(v * float64(time.Microsecond)) }
	tail := Tail{P90: us(r.LatencyUS.P90), P999: us(r.LatencyUS.P99_9), P9999: us(r.LatencyUS.P99_99), Max: us(r.LatencyUS.Max)}
	if l := r.SendLatenessUS; l != nil {
		tail.LateP999, tail.LateMax = us(l.P99_9), us(l.Max)
	}
	return Stats{
		Requests:   r.Complete,
		Start:      r.Start,
		Tail:       tail,
		Elapsed:    time.Duration(r.DurationS * float64(time.Second)),
		ReqPerSec:  r.RequestsPerSec,
		P50:        us(r.LatencyUS.P50),
		P99:        us(r.LatencyUS.P99),
		Handshakes: r.Handshakes,
		Resumed:    r.Resumed,
		EarlyData:  r.EarlyData,
		// Only a run at a rate has a verdict.
		ClientLimited: r.ClientLimited != nil && *r.ClientLimited,
	}, nil
}
