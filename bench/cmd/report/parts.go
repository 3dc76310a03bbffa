package main

import (
	"cmp"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"hellobench/bench"
	"hellobench/bench/report"
	"hellobench/bench/report/plan"
	"hellobench/bench/report/render"
	"hellobench/internal/proc"
)

// A part is one bench the report runs and reads: -flag runs it into file
// in -out, and report.Read reads that file as section. Its commands come
// from package plan; docs/method.md says why its defaults are what they
// are. A new bench is a new row of parts (and, if it has a make target,
// of makeRuns).
type part struct {
	flag    string   // -flag runs it
	by      []string // other flags that run it too (-tls runs -tls-keepalive's blocks)
	section string   // its section, report.Read's name for file
	file    string   // its output, in -out
	count   string   // the flag of its blocks or rounds
	usage   string   // what -flag runs
	// ceilings: its plan is of shares of the keep-alive ceilings of a
	// bench.txt (-ceilings-from, by default -out's); but with -quick when
	// quickFixed, as it then runs at a fixed rate.
	ceilings, quickFixed bool
	full                 bool // -quick does not shorten it (its file says nothing of it)
	// plan is its blocks (or rounds) and its commands, given the ceilings.
	plan func(o *options, ceilings string) (int, [][]string, error)
	rule func(o *options) plan.Then // what it adds given its output: a stopping rule, if any
	// finish, if any, runs once the part has run, ok or not.
	finish func(o *options, ok bool) error
}

// benchFile is the ceilings' file: the one whose keep-alive ceilings
// the shares of the parts with ceilings are of, by default.
const benchFile = "bench.txt"

// parts are the benches in the order they run.
var parts = []part{
	{flag: "pick", section: report.PickSection, file: report.PickFile, count: "pick-blocks",
		usage: "run every figure of the pick table in one invocation into pick.txt first: the keep-alive ceilings, then at their rates the CPU at -rate, the p99 search, idle connections and TLS",
		plan: func(o *options, _ string) (int, [][]string, error) {
			p := o.pick()
			return plan.Blocks(o.quick, p.Blocks), p.First(), nil
		},
		rule:   func(o *options) plan.Then { return o.pick() },
		finish: finishPick},
	{flag: "run", section: report.CeilingsSection, file: benchFile, count: "blocks",
		usage: "run the in-memory benchmarks and the ceilings, in -blocks blocks, into bench.txt first",
		plan: func(o *options, _ string) (int, [][]string, error) {
			return plan.Blocks(o.quick, o.blocks), plan.Ceilings(o.quick, o.inMemory, o.rounds, o.blocks, o.each, o.modes), nil
		},
		finish: fileHost},
	{flag: "sweep", section: report.SweepSection, file: "sweep.txt", count: "sweep-rounds", full: true,
		usage: "run the concurrency sweep and the idle connections into sweep.txt first",
		plan: func(o *options, _ string) (int, [][]string, error) {
			return o.sweepRounds, plan.Sweep(o.sweepRounds, o.sweepN), nil
		}},
	{flag: "scale", section: report.ScaleSection, file: "scale.txt", count: "rounds", full: true,
		usage: "run the ceilings on -cores core counts (SERVER_CPUS, CLIENT_CPUS) into scale.txt first",
		plan: func(o *options, _ string) (int, [][]string, error) {
			return o.rounds, plan.Scale(o.rounds, o.n, o.cores), nil
		}},
	{flag: "work", section: report.WorkSection, file: "work.txt", count: "work-blocks",
		usage: "run the handler work (CPU at the ceiling, waits at Little's-law connections) into work.txt first",
		plan: func(o *options, _ string) (int, [][]string, error) {
			return plan.Blocks(o.quick, o.workBlocks), plan.Work(o.quick, o.workBlocks, o.each), nil
		}},
	{flag: "load", section: report.LoadSection, file: "load.txt", count: "load-rounds", ceilings: true,
		usage: "run shares of the ceilings and the ladder, and the search for the rate within a p99 bound, into load.txt first",
		plan: func(o *options, c string) (int, [][]string, error) {
			n := plan.Blocks(o.quick, o.loadRounds)
			return n, plan.Load(o.quick, n, min(n, o.capacityRounds), c), nil
		}},
	{flag: "capacity", section: report.CapacitySection, file: "capacity.txt", count: "capacity-rounds", ceilings: true,
		usage: "run the search for the rate within the p99 bound alone into capacity.txt first; it replaces load.txt's",
		plan: func(o *options, c string) (int, [][]string, error) {
			n := plan.Blocks(o.quick, o.capacityRounds)
			return n, plan.Capacity(o.quick, n, c), nil
		}},
	{flag: "why", section: report.WhySection, file: "why.txt", count: "capacity-rounds", ceilings: true,
		usage: "count what every server asks of the kernel per request alone into why.txt first; it replaces load.txt's",
		plan: func(o *options, c string) (int, [][]string, error) {
			n := plan.Blocks(o.quick, o.capacityRounds)
			return n, plan.Why(o.quick, n, c), nil
		}},
	{flag: "at-load", by: []string{"load"}, section: report.AtLoadSection, file: "atload.txt", count: "at-load-blocks", ceilings: true,
		usage: "run a quarter of the ceilings beside a reference nginx at a quarter of its own into atload.txt first",
		plan: func(o *options, c string) (int, [][]string, error) {
			n := plan.Blocks(o.quick, o.atLoadBlocks)
			return n, plan.AtLoad(o.quick, n, c), nil
		}},
	{flag: "readiness", section: report.ReadinessSection, file: "readiness.txt", count: "readiness-rounds",
		usage: "count what the floors, gnet and nginx ask of the kernel per request, saturated, into readiness.txt first",
		plan: func(o *options, _ string) (int, [][]string, error) {
			n := plan.Blocks(o.quick, o.readinessRounds)
			return n, plan.Readiness(o.quick, n), nil
		}},
	{flag: "tls-keepalive", by: []string{"tls"}, section: report.TLSKeepAliveSection, file: "tls-keepalive.txt", count: "tls-keepalive-blocks",
		usage: "run keep-alive over TLS beside a reference nginx over TLS into tls-keepalive.txt first",
		plan: func(o *options, _ string) (int, [][]string, error) {
			n := plan.Blocks(o.quick, o.tlsKeepAliveBlocks)
			return n, plan.TLSKeepAlive(o.quick, n, o.each), nil
		},
		rule: func(o *options) plan.Then {
			return then(plan.KeepAliveRule(o.quick, o.tlsKeepAliveKept, o.tlsKeepAliveMost, o.each))
		}},
	{flag: "tls-handshakes", by: []string{"tls"}, section: report.TLSHandshakeSection, file: "tls-handshake.txt", count: "tls-handshake-blocks",
		usage: "run nethttp's and nginx's full and resumed handshakes into tls-handshake.txt first",
		plan: func(o *options, _ string) (int, [][]string, error) {
			n := plan.Blocks(o.quick, o.tlsHandshakeBlocks)
			return n, plan.TLSHandshakes(o.quick, n, o.each), nil
		},
		rule: func(o *options) plan.Then {
			return then(plan.HandshakeRule(o.quick, o.tlsHandshakeKept, o.tlsHandshakeMost, o.each))
		}},
	{flag: "tls", section: report.TLSSection, file: "tls.txt", count: "tls-blocks",
		usage: "run -tls-keepalive, -tls-handshakes, then the other modes over TLS and HTTP/2 into tls.txt first",
		plan: func(o *options, _ string) (int, [][]string, error) {
			n := plan.Blocks(o.quick, o.tlsBlocks)
			return n, plan.TLS(o.quick, n, o.tlsFor), nil
		}},
	{flag: "h3", section: report.ProtocolsSection, file: report.ProtocolsSection + ".txt", count: "h3-blocks",
		usage: "run nethttp over HTTP/1.1 with TLS, HTTP/2 and HTTP/3 at fixed rates into protocols.txt first",
		plan: func(o *options, _ string) (int, [][]string, error) {
			// quic-go asks for 7 MiB UDP buffers; the run records those it had.
			if err := proc.RaiseUDPBuffers(); err != nil {
				log.Printf("HTTP/3: %v", err)
			}
			n := plan.Blocks(o.quick, o.h3Blocks)
			return n, plan.Protocols(o.quick, n), nil
		}},
	{flag: "newconn", section: report.NewConnSection, file: "newconn.txt", count: "newconn-blocks",
		usage: "run every server and nginx on a new connection per request at -conn-rate into newconn.txt first",
		plan: func(o *options, _ string) (int, [][]string, error) {
			n := plan.Blocks(o.quick, o.newConnBlocks)
			return n, plan.NewConn(o.quick, n, o.connRate), nil
		}},
	{flag: "uring", section: report.UringSection, file: report.UringSection + ".txt", count: "uring-blocks",
		usage: "run uring's waits and idle connections into uring.txt first; its rows replace work.txt's and sweep.txt's",
		plan: func(o *options, _ string) (int, [][]string, error) {
			n := plan.Blocks(o.quick, o.uringBlocks)
			return n, plan.Uring(o.quick, n), nil
		}},
	{flag: "min-wait", section: report.MinWaitSection, file: report.MinWaitSection + ".txt", count: "min-wait-blocks",
		ceilings: true, quickFixed: true,
		usage: "run uring at a quarter of its ceiling with each of -min-waits into minwait.txt first",
		plan: func(o *options, c string) (int, [][]string, error) {
			n := plan.Blocks(o.quick, o.minWaitBlocks)
			return n, plan.MinWait(o.quick, n, c, o.minWaits), nil
		}},
	{flag: "profile", section: report.ProfileSection, file: report.ProfileSection + ".txt", count: "rounds", ceilings: true,
		usage: "record each server's CPU profile saturated and at a quarter of its ceiling, and each Go stack's allocations by site, into profile.txt and profiles/ first",
		plan: func(o *options, c string) (int, [][]string, error) {
			dir, err := rootPath(o, report.ProfileDir)
			if err != nil {
				return 0, nil, err
			}
			return 1, plan.Profile(o.quick, c, dir), os.MkdirAll(filepath.Join(o.out, report.ProfileDir), 0o755)
		}},
	{flag: "trace", section: report.TraceSection, file: report.TraceSection + ".txt", count: "rounds",
		usage: "trace the system calls of a few keep-alive requests on nethttp, fasthttp, gnet and uring into trace.txt and traces/ first",
		plan: func(o *options, _ string) (int, [][]string, error) {
			dir, err := rootPath(o, report.TraceDir)
			if err != nil {
				return 0, nil, err
			}
			return 1, plan.Trace(dir), os.MkdirAll(filepath.Join(o.out, report.TraceDir), 0o755)
		}},
	{flag: "latency", section: report.LatencySection, file: "latency.txt", count: "latency-rounds", ceilings: true,
		usage: "run the servers at fixed rates into latency.txt first, their HdrHistogram logs into latency/",
		plan:  latencyPlan, finish: keepLogs},
}

// ownReaders are the parts whose files report.Read does not read: each
// has a reader of its own.
var ownReaders = []string{report.MinWaitSection, report.PickSection, report.ProfileSection, report.TraceSection}

// then is a stopping rule as a Then, none when there is no rule (a nil
// *Rule in an interface would not be nil).
func then(r *plan.Rule) plan.Then {
	if r == nil {
		return nil
	}
	return r
}

// pick is make bench's run as o sizes it.
func (o *options) pick() plan.Pick {
	return plan.Pick{Quick: o.quick, Blocks: o.pickBlocks, Rounds: o.loadRounds, Searches: o.capacityRounds,
		TLSBlocks: o.pickTLSBlocks, Rate: o.rate, Each: o.each}
}

// finishPick files a full pick run under its host's record, as -run's
// ceilings are, and ends on the cells the run left unresolved and what
// resolving them would take.
func finishPick(o *options, ok bool) error {
	if !ok {
		return nil
	}
	if !o.quick {
		into := cmp.Or(o.hosts, o.out)
		key, err := report.FileHostRun(into, filepath.Join(o.out, report.PickFile))
		if err != nil {
			return err
		}
		log.Printf("filed under %s", filepath.Join(into, "hosts", key))
	}
	run, err := report.ReadPick(o.out)
	if err != nil || run == nil {
		return err
	}
	lines := render.PickShortfalls(*run)
	if len(lines) == 0 {
		log.Printf("pick: every ratio to nginx within its target")
	}
	for _, l := range lines {
		log.Printf("pick: unresolved: %s", l)
	}
	return nil
}

// runs says whether o asks for part p.
func (o *options) runs(p part) bool {
	return *o.want[p.flag] || slices.ContainsFunc(p.by, func(f string) bool { return *o.want[f] })
}

// running says whether o asks for any part.
func (o *options) running() bool { return slices.ContainsFunc(parts, o.runs) }

// files is report.Read's map: every part's file in dir, by section.
func files(dir string) map[string]string {
	m := map[string]string{}
	for _, p := range parts {
		// report.AddMinWait reads min-wait's file, and report.ReadPick
		// the pick run's on its own: no other run's figure may join it.
		// (as AddProfile and AddTrace read theirs).
		if !slices.Contains(ownReaders, p.section) {
			m[p.section] = filepath.Join(dir, p.file)
		}
	}
	return m
}

// fileHost files a full run under its host's record; a smoke run, or one
// without the keep-alive ceilings the record holds, is not.
func fileHost(o *options, ok bool) error {
	if !ok || o.quick || (o.modes != "" && !slices.Contains(strings.Split(o.modes, ","), string(bench.KeepAlive))) {
		return nil
	}
	into := cmp.Or(o.hosts, o.out)
	key, err := report.FileHostRun(into, filepath.Join(o.out, benchFile))
	if err != nil {
		return err
	}
	log.Printf("filed under %s", filepath.Join(into, "hosts", key))
	return nil
}

// rootPath is the directory name in -out as the commands a part runs from
// the module root should name it: relative to the root, so that the
// commands recorded name no directory of this machine; absolute only
// when -out lies outside the module (a smoke run's temporary directory).
func rootPath(o *options, name string) (string, error) {
	abs, err := filepath.Abs(filepath.Join(o.out, name))
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(o.root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return abs, nil
	}
	return rel, nil
}

// latencyLogs is where -latency's HdrHistogram logs go, and where they are
// written until every round has run.
func latencyLogs(o *options) (logs, tmp string, err error) {
	logs, err = filepath.Abs(filepath.Join(o.out, "latency"))
	return logs, logs + ".partial", err
}

// latencyPlan is -latency's rounds, their logs into latencyLogs' tmp.
func latencyPlan(o *options, c string) (int, [][]string, error) {
	_, tmp, err := latencyLogs(o)
	if err != nil {
		return 0, nil, err
	}
	os.RemoveAll(tmp)
	// The test binary runs in bench/: the path from there, so that the
	// commands recorded name no directory of this machine.
	rel, err := filepath.Rel(filepath.Join(o.root, "bench"), tmp)
	if err != nil {
		return 0, nil, err
	}
	n := plan.Blocks(o.quick, o.latencyRounds)
	return n, plan.Latency(o.quick, n, c, rel), nil
}

// keepLogs replaces -out's latency logs with the run's, once every round
// ran.
func keepLogs(o *options, ok bool) error {
	logs, tmp, err := latencyLogs(o)
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if !ok {
		return nil
	}
	if err := os.RemoveAll(logs); err != nil {
		return err
	}
	return os.Rename(tmp, logs)
}
