package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// An agreement is how a make target's invocations are compared: each
// re-run (AGAIN=N) goes to results/again/KIND N, and results/PAGE sets
// the run in results/ beside them.
type agreement struct {
	kind  string   // the re-runs' prefix under results/again
	cmd   string   // the comparison (a subcommand) that writes page
	page  string   // under results/
	flags []string // a re-run's flags besides its -out
	logs  bool     // a re-run keeps no HdrHistogram logs: results/'s are kept
}

// resultsDir is where make's runs go: the run the pages show, its re-runs
// under again/ and the agreement pages.
const resultsDir = "results"

// shares: a re-run's shares are of the ceilings make bench-ceilings left in
// results/.
var shares = []string{"-ceilings-from", "results/bench.txt"}

var (
	agreeCeilings = &agreement{"", "agree", "agreement.md", []string{"-in-memory=false", "-hosts", "results"}, false}
	agreeLatency  = &agreement{"latency-", "agree-latency", "latency-agreement.md", shares, true}
	agreeLoad     = &agreement{"load-", "agree-load", "load-agreement.md", shares, false}
	agreeTLS      = &agreement{"tls-", "agree-tls", "tls-agreement.md", nil, false}
	agreeH3       = &agreement{"h3-", "agree-h3", "h3-agreement.md", nil, false}
)

// A makeRun is what make TARGET [PART=part] runs: bin/report -make TARGET
// [-part part] with flags, into results/ and the documents (docs), or with
// AGAIN=N, when it has an agreement and takes it, into results/again.
type makeRun struct {
	target, part string
	flags        []string
	docs         bool       // -docs -out results, unless a re-run
	agree        *agreement // nil: no AGAIN, no agreement page
	noAgain      bool       // it takes no AGAIN, but writes the page
	againOnly    bool       // it takes AGAIN only
}

// quickFlags are make bench-quick's: a smoke run of every part.
var quickFlags = strings.Fields("-pick -profile -trace -run -work -uring -latency -load -readiness -tls -newconn -h3 -min-wait -quick")

var makeRuns = []makeRun{
	{target: "bench", flags: []string{"-pick"}, docs: true},
	{target: "bench-ceilings", flags: []string{"-run"}, docs: true, agree: agreeCeilings},
	{target: "bench-ceilings", part: "json", flags: []string{"-run", "-modes", "json"}, docs: true, agree: agreeCeilings, againOnly: true},
	{target: "bench-profile", flags: []string{"-profile", "-trace", "-ceilings-from", "results/pick.txt"}, docs: true},
	{target: "bench-sweep", flags: []string{"-sweep", "-sweep-n", "50000"}, docs: true},
	{target: "bench-scale", flags: []string{"-scale", "-n", "100000", "-out", "results"}},
	{target: "bench-quick", flags: quickFlags},
	{target: "bench-work", flags: []string{"-work", "-for", "500ms"}, docs: true},
	{target: "bench-work", part: "uring", flags: []string{"-uring"}, docs: true},
	{target: "bench-latency", flags: []string{"-latency"}, docs: true, agree: agreeLatency},
	{target: "bench-load", flags: []string{"-load"}, docs: true, agree: agreeLoad},
	{target: "bench-load", part: "at-load", flags: []string{"-at-load"}, docs: true, agree: agreeLoad},
	{target: "bench-load", part: "capacity", flags: []string{"-capacity"}, docs: true, agree: agreeLoad},
	{target: "bench-load", part: "why", flags: []string{"-why"}, docs: true, agree: agreeLoad, noAgain: true},
	{target: "bench-load", part: "newconn", flags: []string{"-newconn"}, docs: true, agree: agreeLoad, noAgain: true},
	{target: "bench-load", part: "min-wait", flags: []string{"-min-wait"}, docs: true, agree: agreeLoad, noAgain: true},
	{target: "bench-readiness", flags: []string{"-readiness"}, docs: true},
	{target: "bench-tls", flags: []string{"-tls"}, docs: true, agree: agreeTLS},
	{target: "bench-tls", part: "keepalive", flags: []string{"-tls-keepalive"}, docs: true, agree: agreeTLS},
	{target: "bench-tls", part: "handshakes", flags: []string{"-tls-handshakes"}, docs: true, agree: agreeTLS},
	{target: "bench-tls", part: "h3", flags: []string{"-h3"}, docs: true, agree: agreeH3},
}

// takesAgain says whether the run takes AGAIN=N.
func (r makeRun) takesAgain() bool { return r.agree != nil && !r.noAgain }

// args are the run's flags, with AGAIN=again, writing under results.
func (r makeRun) args(again, results string) []string {
	args := slices.Clone(r.flags)
	switch {
	case again != "" && r.takesAgain():
		args = append(args, r.agree.flags...)
		args = append(args, "-out", r.againDir(results, again))
	case r.docs:
		args = append(args, "-docs", "-out", results)
	}
	return args
}

// againDir is re-run n's output directory.
func (r makeRun) againDir(results, n string) string {
	return filepath.Join(results, "again", r.agree.kind+n)
}

// makeRun is the run -make and -part name, if there is one.
func (o *options) makeRun() (makeRun, bool) {
	for _, r := range makeRuns {
		if r.target == o.make && r.part == o.part {
			return r, true
		}
	}
	return makeRun{}, false
}

// againNumber is what AGAIN takes: a number from 2 on.
var againNumber = regexp.MustCompile(`^[1-9][0-9]*$`)

// checkMake returns the problems with -make, -again and -part, as make
// would name them.
func (o *options) checkMake() []error {
	if o.make == "" {
		if o.again != "" || o.part != "" {
			return []error{errors.New("-again and -part take -make TARGET")}
		}
		return nil
	}
	var targets, partsOf []string
	takes := false // the target takes AGAIN with some PART
	for _, r := range makeRuns {
		if !slices.Contains(targets, r.target) {
			targets = append(targets, r.target)
		}
		if r.target == o.make && r.part != "" {
			partsOf = append(partsOf, r.part)
		}
		takes = takes || (r.target == o.make && r.takesAgain())
	}
	if !slices.Contains(targets, o.make) {
		return []error{fmt.Errorf("-make %s: no such target; bin/report runs %s", o.make, strings.Join(targets, ", "))}
	}
	var errs []error
	r, ok := o.makeRun()
	switch {
	case !takes && len(partsOf) == 0:
		if o.again != "" || o.part != "" {
			return []error{fmt.Errorf("make %s takes neither AGAIN nor PART", o.make)}
		}
		return nil
	case !ok && len(partsOf) == 0:
		errs = append(errs, fmt.Errorf("PART=%s: %s takes no PART", o.part, o.make))
	case !ok:
		errs = append(errs, fmt.Errorf("PART=%s: %s takes PART=%s", o.part, o.make, strings.Join(partsOf, "|")))
	}
	name := "make " + o.make
	if ok && o.part != "" {
		name += " PART=" + o.part
	}
	n, err := strconv.Atoi(o.again)
	switch {
	case o.again == "" && r.againOnly:
		errs = append(errs, fmt.Errorf("%s takes AGAIN=N: it measures make %s's %s blocks again", name, o.make, o.part))
	case o.again == "":
	case ok && !r.takesAgain() || !takes:
		errs = append(errs, fmt.Errorf("%s takes no AGAIN", name))
	case !againNumber.MatchString(o.again) || err != nil || n < 2:
		errs = append(errs, fmt.Errorf("AGAIN=%s: a number from 2 on, the invocation's number", o.again))
	}
	return errs
}

// agreeDirs are the directories results/PAGE compares: with AGAIN=N,
// results and its re-runs 2 to N; without, results and every re-run
// there is, in the order of their numbers; none without a re-run.
func (r makeRun) agreeDirs(results, again string) ([]string, error) {
	dirs := []string{results}
	if again != "" {
		n, err := strconv.Atoi(again)
		if err != nil {
			return nil, fmt.Errorf("AGAIN=%s: %v", again, err)
		}
		for k := 2; k <= n; k++ {
			dirs = append(dirs, r.againDir(results, strconv.Itoa(k)))
		}
		return dirs, nil
	}
	found, err := filepath.Glob(filepath.Join(results, "again", r.agree.kind+"[0-9]*"))
	if err != nil || len(found) == 0 {
		return nil, err
	}
	slices.SortFunc(found, func(a, b string) int { return againOrder(a, b, r.agree.kind) })
	return append(dirs, found...), nil
}

// againOrder orders re-run directories by their numbers (again/10 after
// again/9), then by name.
func againOrder(a, b, kind string) int {
	num := func(dir string) int {
		s := strings.TrimPrefix(filepath.Base(dir), kind)
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		n, _ := strconv.Atoi(s[:i])
		return n
	}
	if na, nb := num(a), num(b); na != nb {
		return na - nb
	}
	return strings.Compare(a, b)
}

// finish writes the run's agreement page under results, printing it to w
// too with AGAIN=N, and drops a re-run's latency logs.
func (r makeRun) finish(results, again string, w io.Writer) error {
	if r.agree == nil {
		return nil
	}
	dirs, err := r.agreeDirs(results, again)
	if err != nil || dirs == nil {
		return err
	}
	text, err := comparisons[r.agree.cmd].compare(dirs)
	if err != nil {
		return err
	}
	if again != "" {
		fmt.Fprint(w, text)
	}
	if err := os.WriteFile(filepath.Join(results, r.agree.page), []byte(text), 0o644); err != nil {
		return err
	}
	if again != "" && r.agree.logs {
		return os.RemoveAll(filepath.Join(r.againDir(results, again), "latency"))
	}
	return nil
}
