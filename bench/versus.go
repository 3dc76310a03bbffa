package bench

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"hellobench/internal/deps"
	"hellobench/internal/proc"
	"hellobench/internal/targets"
)

// VersusConfig says what Versus compares and how.
type VersusConfig struct {
	// Targets are names of the table, each may end in BareSuffix (a
	// server that has -bare) or TwinSuffix.
	Targets     []string
	Client      string // "loadgen" or "wrk" (keep-alive only)
	Mode        Mode
	Connections int
	Duration    time.Duration // of each measured run
	Rounds      int
	// Pairs compares the targets in pairs (1st with 2nd, 3rd with 4th, …)
	// rather than each with the first.
	Pairs bool
}

// Check returns every problem with v at once.
func (v VersusConfig) Check() error {
	var errs []error
	if len(v.Targets) == 0 {
		errs = append(errs, errors.New("no target"))
	}
	for _, n := range v.Targets {
		base, _ := strings.CutSuffix(n, TwinSuffix)
		base, bare := strings.CutSuffix(base, BareSuffix)
		t, err := targets.Lookup(base)
		if err == nil && bare {
			if err = t.CheckBare(); err != nil {
				err = fmt.Errorf("%s: %w", n, err)
			}
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if v.Pairs && len(v.Targets)%2 != 0 {
		errs = append(errs, fmt.Errorf("pairs need an even number of targets, not %d", len(v.Targets)))
	}
	switch v.Client {
	case "loadgen":
	case "wrk":
		if v.Mode != KeepAlive && v.Mode != JSON {
			errs = append(errs, fmt.Errorf("wrk runs keep-alive only (keepalive or json), not %s", v.Mode))
		}
	default:
		errs = append(errs, fmt.Errorf("unknown client %q: wrk or loadgen", v.Client))
	}
	if !slices.Contains(Modes, v.Mode) {
		errs = append(errs, fmt.Errorf("unknown mode %q: %s, %s, %s, %s or %s", v.Mode, KeepAlive, Close, Pipeline, JSON, Conn10))
	}
	if v.Rounds < 1 {
		errs = append(errs, fmt.Errorf("%d rounds: want 1 or more", v.Rounds))
	}
	if v.Connections < 1 {
		errs = append(errs, fmt.Errorf("%d connections: want 1 or more", v.Connections))
	}
	if v.Duration <= 0 {
		errs = append(errs, fmt.Errorf("runs of %v: want a positive duration", v.Duration))
	}
	return errors.Join(errs...)
}

// A VersusRun is what Versus measured: each target's results, one a round.
type VersusRun struct {
	VersusConfig
	ServerCPUs, ClientCPUs string
	Results                map[string][]Result
}

// Versus compares v.Targets side by side: round after round, each target
// in turn, in an order that changes from round to round, is started as
// cfg says, warmed up, measured by Measure and stopped. progress gets a
// line per run. It does not check that the CPUs are quiet (CheckQuiet).
func Versus(cfg Config, v VersusConfig, progress io.Writer) (VersusRun, error) {
	if err := v.Check(); err != nil {
		return VersusRun{}, err
	}
	var client Client
	switch v.Client {
	case "wrk":
		bin, err := exec.LookPath("wrk")
		if err != nil {
			return VersusRun{}, errors.New("bench: " + deps.NotInstalled("wrk"))
		}
		client = Wrk{Bin: bin, CPUs: cfg.ClientCPUs}
	case "loadgen":
		bin, err := cfg.Binary("loadgen")
		if err != nil {
			return VersusRun{}, err
		}
		client = Loadgen{Bin: bin, CPUs: cfg.ClientCPUs}
	}
	run := VersusRun{VersusConfig: v, ServerCPUs: cfg.ServerCPUs, ClientCPUs: cfg.ClientCPUs, Results: make(map[string][]Result)}
	load := Load{Mode: v.Mode, Connections: v.Connections, Duration: v.Duration}
	for r := range v.Rounds {
		// Each round is a block in its own order: no target always runs
		// first, or after the same one.
		for _, i := range Order(len(v.Targets), r) {
			t := v.Targets[i]
			res, err := versusOnce(cfg, client, t, load)
			if err != nil {
				return VersusRun{}, err
			}
			fmt.Fprintf(progress, "round %d %-16s %9.0f req/s %7.2f µs/req %4.0f%% busy %s\n", r+1, t, res.ReqPerSec, res.CPUPerRequest(), res.Busy(), Label(v.Connections, res.Busy(), res.ClientBusy()))
			run.Results[t] = append(run.Results[t], res)
		}
	}
	return run, nil
}

// versusOnce starts target, warms it up, measures one run and stops it.
func versusOnce(cfg Config, client Client, target string, l Load) (_ Result, err error) {
	s, err := cfg.Start(target, "")
	if err != nil {
		return Result{}, err
	}
	defer func() {
		if serr := s.Stop(); serr != nil && err == nil {
			err = serr
		}
	}()
	l.URL = l.Mode.URL(s)
	warm := l
	warm.Duration = time.Second
	if _, ok := client.(Loadgen); ok {
		warm.Duration, warm.Requests = 0, 5000
	}
	if _, err := client.Run(warm); err != nil {
		return Result{}, fmt.Errorf("bench: %s: warm-up: %v", target, err)
	}
	return Measure(s, client, l)
}

// WriteTable writes what was run, the medians of each target with their
// interval, and the ratios of CPU per request, taken round by round: each
// target against the first, or with Pairs each odd target against the one
// after it.
func (r VersusRun) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "%s, %d connections, %v per run, %s, %d rounds in changing orders; server on CPUs %q (GOMAXPROCS=1), client on CPUs %q; CPU from %s\n",
		r.Client, r.Connections, r.Duration, r.Mode, r.Rounds, r.ServerCPUs, r.ClientCPUs, proc.CPUSource())
	fmt.Fprintf(w, "medians with %s\n\n", IntervalName(r.Rounds))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "target\treq/s\tCPU µs/req (interval)\t(server + app)\tserver busy %\tclient busy %\tceiling req/s\t\t")
	for _, t := range r.Targets {
		rs := r.Results[t]
		cpu := Of(rs, Result.CPUPerRequest)
		split := ""
		if rs[0].AppCPU > 0 {
			split = fmt.Sprintf("%.2f + %.2f", Median(rs, Result.ServerCPUPerRequest), Median(rs, Result.AppCPUPerRequest))
		}
		busy, clientBusy := Median(rs, Result.Busy), Median(rs, Result.ClientBusy)
		fmt.Fprintf(tw, "%s\t%.0f\t%.2f (%.2f–%.2f)\t%s\t%.0f\t%.0f\t%.0f\t%s\t\n", t,
			Median(rs, func(r Result) float64 { return r.ReqPerSec }), cpu.Median, cpu.Lo, cpu.Hi, split,
			busy, clientBusy, 1e6/cpu.Median, Label(r.Connections, busy, clientBusy))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	step, first := 1, func(int) string { return r.Targets[0] }
	if r.Pairs {
		step, first = 2, func(i int) string { return r.Targets[i] }
	}
	for i := 1; i < len(r.Targets); i += step {
		a, b := first(i-1), r.Targets[i]
		ratio := Ratio(Of(r.Results[a], Result.CPUPerRequest), Of(r.Results[b], Result.CPUPerRequest))
		verdict := ""
		if ratio.N > 1 && ratio.Straddles(1) {
			verdict = ": a tie, the interval contains 1"
		}
		if _, err := fmt.Fprintf(w, "CPU per request, %s/%s, round by round: %.3f (%.3f–%.3f over %d rounds, ±%.1f %%)%s\n",
			a, b, ratio.Median, ratio.Lo, ratio.Hi, ratio.N, 100*ratio.HalfWidth(), verdict); err != nil {
			return err
		}
	}
	return nil
}
