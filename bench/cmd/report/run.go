package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"hellobench/bench"
	"hellobench/bench/report"
	"hellobench/bench/report/plan"
	"hellobench/internal/proc"
)

// runParts runs the parts o asks for, in the table's order, once the
// pinned CPUs are quiet (or -force says to go on, and the files say so).
func runParts(o *options) error {
	if !o.running() {
		return nil
	}
	cfg, err := bench.DefaultConfig()
	if err != nil {
		return err
	}
	forced, err := cfg.CheckQuiet(o.force)
	if err != nil {
		return err
	}
	if forced != "" {
		log.Printf("-force: %s", forced)
	}
	for _, p := range parts {
		if !o.runs(p) {
			continue
		}
		ceilings := ""
		if p.ceilings && !(o.quick && p.quickFixed) {
			var err error
			from := cmp.Or(o.ceilingsFrom, filepath.Join(o.out, benchFile))
			if ceilings, err = plan.KeepAliveCeilings(from); err != nil {
				return err
			}
		}
		n, cmds, err := p.plan(o, ceilings)
		if err != nil {
			return err
		}
		var rule plan.Then
		if p.rule != nil {
			rule = p.rule(o)
		}
		err = runUntil(o.root, filepath.Join(o.out, p.file), o.quick && !p.full, forced, n, cmds, rule)
		if p.finish != nil {
			err = cmp.Or(err, p.finish(o, err == nil))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// readReport reads the parts' files in dir, and what lies beside them:
// the hosts, the re-runs, the clients.
func readReport(dir string) (report.Report, error) {
	rep, err := report.Read(files(dir))
	minWait := filepath.Join(dir, report.MinWaitSection+".txt")
	alone := false
	for _, s := range ownReaders {
		alone = alone || report.Stat(filepath.Join(dir, s+".txt")) == nil
	}
	if errors.Is(err, report.ErrNoResults) && alone {
		// A -min-wait, -pick, -profile or -trace run alone: its part only.
		rep, err = report.Report{Sections: map[string]report.Section{}}, nil
	}
	if err != nil {
		var flags []string
		for _, p := range parts {
			flags = append(flags, "-"+p.flag)
		}
		return rep, fmt.Errorf("%v: run with one of %s", err, strings.Join(flags, ", "))
	}
	if err := report.AddMinWait(&rep, minWait); err != nil {
		return rep, err
	}
	if err := report.AddProfile(&rep, filepath.Join(dir, report.ProfileSection+".txt"), filepath.Join(dir, report.ProfileDir)); err != nil {
		return rep, err
	}
	if err := report.AddTrace(&rep, filepath.Join(dir, report.TraceSection+".txt"), filepath.Join(dir, report.TraceDir)); err != nil {
		return rep, err
	}
	// The hosts first: without a re-run beside it, Repeat reads them.
	if rep.Hosts, err = report.ReadHosts(dir); err != nil {
		return rep, err
	}
	if rep.Repeat, err = report.ReadRepeat(rep, dir); err != nil {
		return rep, err
	}
	if rep.Clients, err = report.ReadClients(filepath.Join(dir, "clients.json")); err != nil {
		return rep, err
	}
	// make bench's run, read on its own, and the robustness page its
	// hostile-clients column reads.
	if rep.Pick, err = report.ReadPick(dir); err != nil {
		return rep, err
	}
	if rep.Pick != nil {
		rep.Sections[report.PickSection] = rep.Pick.Sections[report.PickSection]
	}
	rep.Robustness, err = report.ReadRobustness(filepath.Join(dir, "ROBUSTNESS.md"))
	return rep, err
}

// partial is the output file being written, removed if the run is
// interrupted: a partial run leaves nothing in the output directory.
var partial struct {
	sync.Mutex
	file string
}

func removePartial() {
	partial.Lock()
	defer partial.Unlock()
	if partial.file != "" {
		os.Remove(partial.file)
	}
}

// runUntil runs the commands in root, writing their output (and the
// date, the rounds and each command, as comment lines) to file and to
// stderr, then, with a rule, the further commands the rule asks for given
// the output so far, until it asks for none. A failing command ends the
// run: its figures would be incomplete. The output goes to a temporary
// file renamed to file only once every command has succeeded, so that a
// failed or interrupted run leaves the last complete one in place.
func runUntil(root, file string, quick bool, forced string, rounds int, cmds [][]string, rule plan.Then) error {
	tmp := file + ".partial"
	partial.Lock()
	partial.file = tmp
	partial.Unlock()
	defer removePartial()
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	defer f.Close()
	w := io.MultiWriter(f, os.Stderr)
	fmt.Fprintf(w, "%s%s\n", report.DatePrefix, time.Now().UTC().Format(report.DateFormat))
	fmt.Fprintf(w, "%s%s\n", report.InvocationPrefix, invocation)
	m, err := json.Marshal(machine())
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s%s\n", report.MachinePrefix, m)
	cfg, err := bench.DefaultConfig()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%sserver %s client %s\n", report.CpusPrefix, cfg.ServerCPUs, cfg.ClientCPUs)
	fmt.Fprintf(w, "%s%d\n", report.RoundsPrefix, rounds)
	if rule != nil {
		fmt.Fprintln(w, rule.Header())
	}
	fmt.Fprintf(w, "%s%s\n", report.SourcePrefix, proc.CPUSource())
	if quick {
		fmt.Fprintln(w, report.QuickLine)
	}
	if forced != "" {
		fmt.Fprintf(w, "%s%s\n", report.ForcedPrefix, forced)
	}
	run := func(c []string) error {
		fmt.Fprintf(w, "%s%s\n", report.CommandPrefix, quote(c))
		return runCommand(root, w, c)
	}
	for _, c := range cmds {
		if err := run(c); err != nil {
			return err
		}
	}
	for k := rounds; rule != nil; k++ {
		block, err := rule.Next(tmp, k)
		if err != nil {
			return err
		}
		if block == nil {
			break
		}
		for _, c := range block {
			if err := run(c); err != nil {
				return err
			}
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	// Kept compressed: results/ holds many runs (report.ReadFile reads
	// either form).
	b, err := os.ReadFile(tmp)
	if err != nil {
		return err
	}
	return report.WriteGzip(file, b)
}

// invocation names this invocation of report in every file it writes, by
// its start: the files of one invocation are one run (report.SameRun).
var invocation = time.Now().UTC().Format("2006-01-02 15:04:05 MST")

// runCommand runs one go test command in its own process group (an
// interrupted report stops the group: go test and the servers its test
// binary started), dying with the report, its output going to w.
func runCommand(root string, w io.Writer, c []string) error {
	// SIGTERM, should the report die: go test dies at once, and the test
	// binary, orphaned, stops its servers.
	p, err := proc.Start(proc.Spec{Name: "go test", Path: c[0], Args: c[1:], Dir: root, Echo: w, Stop: syscall.SIGTERM, DeathSig: syscall.SIGTERM})
	if err != nil {
		return err
	}
	code, err := p.ExitCode()
	if kerr := p.Kill(); kerr != nil && err == nil {
		err = kerr
	}
	if err != nil || code != 0 {
		return fmt.Errorf("%s: exit status %d %v", quote(c), code, err)
	}
	return nil
}

func quote(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " $^*?'\"()|") {
			a = "'" + a + "'"
		}
		q[i] = a
	}
	return strings.Join(q, " ")
}
