package report

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"hellobench/bench"
)

// ReadReports reads the results.json of each of dirs.
func ReadReports(dirs []string) ([]Report, error) {
	var reps []Report
	for _, d := range dirs {
		b, err := ReadFile(filepath.Join(d, "results.json"))
		if err != nil {
			return nil, err
		}
		var r Report
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("%s: %v", d, err)
		}
		reps = append(reps, r)
	}
	return reps, nil
}

// ReadClients reads make compare WHAT=clients' results, if there are any.
func ReadClients(file string) (*bench.ClientsRun, error) {
	b, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var run bench.ClientsRun
	if err := json.Unmarshal(b, &run); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	return &run, nil
}

// Comment lines the report writer adds to the benchmark output; benchstat
// skips them.
const (
	CommandPrefix = "# command: "
	DatePrefix    = "# date: "
	RoundsPrefix  = "# rounds: "
	UntilPrefix   = "# until: "
	MachinePrefix = "# machine: "
	CpusPrefix    = "# cpus: "
	QuickLine     = "# quick: a smoke run, not for publishing"
	ForcedPrefix  = "# forced: "
	SourcePrefix  = "# cpu source: "
	PickPrefix    = "# pick: "
	// InvocationPrefix names the invocation of bin/report that wrote a
	// file, by its start time: the files one invocation writes share it.
	InvocationPrefix = "# invocation: "
)

// SameRun reports whether two sections were written by one invocation.
func SameRun(a, b Section) bool {
	return a.Invocation != "" && a.Invocation == b.Invocation
}

// PickFormat is the pick line's (PickPrefix) sizes: the rate the cores
// column is priced at and the idle connections the memory column holds
// (Section.Rate, Section.Idle).
const PickFormat = "rate %d idle %d"

// UntilFormat is the until line's (UntilPrefix) stopping rule: blocks
// kept per row, and blocks at most in all (Section.Kept, Section.Most).
const UntilFormat = "%d kept, at most %d blocks"

// Read builds the report from the benchmark files of its sections, by
// their names (CeilingsSection: a bench.txt, SweepSection, ...: every
// section but MinWaitSection); a file that does not exist is a section
// not measured, and none at all is an error.
func Read(files map[string]string) (Report, error) {
	all := map[string]Samples{}
	why := map[string]string{}
	own := map[string]string{} // the benchmarks of the ownRows files: their section
	src := map[string]string{} // the section each benchmark's samples came from
	sections := map[string]Section{}
	var names []string
	// The files that replace part of another's last, so that what they
	// replace is there to drop.
	order := slices.SortedFunc(maps.Keys(files), func(a, b string) int {
		ra, rb := replacing(a), replacing(b)
		if ra != rb {
			return cmp.Compare(b2i(ra), b2i(rb))
		}
		return strings.Compare(a, b)
	})
	for _, name := range order {
		f := files[name]
		if r, ok := replaces[name]; ok {
			if Stat(f) == nil {
				dropMode(all, why, r.prefix, r.mode)
			}
		}
		rule, isOwn := ownRows[name]
		into, whyInto := all, why
		if isOwn {
			into, whyInto = map[string]Samples{}, map[string]string{}
		}
		sec, ok, err := ReadBench(f, into, whyInto)
		if err != nil {
			return Report{}, err
		}
		for key := range into {
			if !isOwn && src[key] == "" {
				src[key] = name
			}
		}
		if isOwn {
			// Its benchmarks replace the same ones of the other files
			// (with onlyOlder, of those written before it).
			for key, s := range into {
				if rule.onlyOlder && sections[src[key]].Date > sec.Date {
					continue
				}
				all[key], src[key], own[key] = s, name, name
				delete(why, key)
				if w, ok := whyInto[key]; ok {
					why[key] = w
				}
			}
		}
		if ok {
			sections[name] = sec
		}
		names = append(names, f)
	}
	if len(all) == 0 {
		slices.Sort(names)
		return Report{}, fmt.Errorf("%w in %s", ErrNoResults, strings.Join(names, ", "))
	}
	return Build(all, why, sections, own, CeilingConns), nil
}

// replaces says which benchmarks of another file a section's file, when
// there is one, replaces: make bench-tls's keep-alive blocks replace the
// keep-alive rows of a tls.txt recorded before they had a file of their
// own, and a search for the rate within the p99 bound run alone
// (bin/report -capacity) replaces load.txt's.
var replaces = map[string]struct{ prefix, mode string }{
	TLSKeepAliveSection: {tlsPrefix, string(bench.TLSKeepAlive)},
	CapacitySection:     {capacityPrefix, ""},
	WhySection:          {whyPrefix, ""},
}

// ErrNoResults is Read's error when none of its files holds a result.
var ErrNoResults = errors.New("no benchmark results")

// ownRows are the sections whose files replace, of the other files, just
// the benchmarks they hold: make bench-tls's handshake blocks hold
// nethttp's and nginx's full and resumed handshakes, which replace
// tls.txt's, leaving the other stacks' there; make bench-work
// PART=uring's blocks (bin/report -uring) hold uring's waits and its and
// the io_uring floor's idle connections, measured again after a change
// to uring, which replace work.txt's and sweep.txt's. With onlyOlder, a
// benchmark of a file dated after the section's (a whole run since,
// which measured it again) is kept; the handshake blocks run before
// tls.txt's in the same invocation, so they replace it whatever its date.
var ownRows = map[string]struct{ onlyOlder bool }{
	TLSHandshakeSection: {},
	UringSection:        {onlyOlder: true},
}

// replacing says whether section name's file replaces part of another's,
// so that it is read after them.
func replacing(name string) bool {
	_, r := replaces[name]
	_, o := ownRows[name]
	return r || o
}

// whyPrefix starts the benchmark keys of the count of what each server
// asks of the kernel (BenchmarkWhy): bin/report -why's why.txt replaces
// load.txt's.
const whyPrefix = "hellobench/bench/BenchmarkWhy/"

// capacityPrefix starts the benchmark keys of the search for the rate
// within the p99 bound (BenchmarkCapacity).
const capacityPrefix = "hellobench/bench/BenchmarkCapacity/"

// dropMode removes the samples, and the reasons for falling over, of the
// benchmarks under prefix in mode ("": every mode).
func dropMode(all map[string]Samples, why map[string]string, prefix, mode string) {
	in := func(key string) bool {
		return strings.HasPrefix(key, prefix) && (mode == "" || strings.HasSuffix(key, "/"+mode))
	}
	maps.DeleteFunc(all, func(key string, _ Samples) bool { return in(key) })
	maps.DeleteFunc(why, func(key string, _ string) bool { return in(key) })
}

// ReadBench adds the samples of a benchmark file, and returns its section:
// when it ran and how. A missing file is no section.
func ReadBench(file string, into map[string]Samples, why map[string]string) (Section, bool, error) {
	b, err := ReadFile(file)
	if os.IsNotExist(err) {
		return Section{}, false, nil
	}
	if err != nil {
		return Section{}, false, err
	}
	sec, err := parseBench(bytes.NewReader(b), into, why)
	return sec, err == nil, err
}

// A sample set is every run of one benchmark: unit → values.
type Samples map[string][]float64

// fellOverPrefix starts the benchmark log line that says why a server
// fell over (bench's fellOver).
const fellOverPrefix = "fell over: "

// figure returns every round of unit and their spread.
func (s Samples) figure(unit string) Figure { return figureOf(s[unit]) }

// procSuffix is the -GOMAXPROCS suffix go test adds to names.
var procSuffix = regexp.MustCompile(`-\d+$`)

// parseBench reads `go test -bench` output and adds the samples by
// "pkg/BenchmarkName", the package coming from the preceding pkg: line, and
// returns the date, rounds and commands recorded in it; why gets, by the
// same key, the reason a server fell over, from the benchmark's log. Lines of other kinds are skipped, as
// benchstat skips them.
func parseBench(r io.Reader, into map[string]Samples, why map[string]string) (sec Section, err error) {
	logged := "" // the benchmark whose log lines follow
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	pkg := ""
	for sc.Scan() {
		line := sc.Text()
		if c, ok := strings.CutPrefix(line, CommandPrefix); ok {
			sec.Commands = append(sec.Commands, c)
			continue
		}
		if line == QuickLine {
			sec.Quick = true
			continue
		}
		if src, ok := strings.CutPrefix(line, SourcePrefix); ok {
			sec.CPUSource = src
			continue
		}
		if f, ok := strings.CutPrefix(line, ForcedPrefix); ok {
			sec.Forced = f
			continue
		}
		if d, ok := strings.CutPrefix(line, DatePrefix); ok {
			sec.Date = d
			continue
		}
		if m, ok := strings.CutPrefix(line, MachinePrefix); ok {
			if err := json.Unmarshal([]byte(m), &sec.Machine); err != nil {
				return sec, fmt.Errorf("the machine line %q: %v", m, err)
			}
			continue
		}
		if c, ok := strings.CutPrefix(line, CpusPrefix); ok {
			if _, err := fmt.Sscanf(c, "server %s client %s", &sec.ServerCPUs, &sec.ClientCPUs); err != nil {
				return sec, fmt.Errorf("the cpus line %q: %v", c, err)
			}
			sec.Shared = overlap(sec.ServerCPUs, sec.ClientCPUs)
			continue
		}
		if n, ok := strings.CutPrefix(line, RoundsPrefix); ok {
			sec.Rounds, _ = strconv.Atoi(n)
			continue
		}
		if u, ok := strings.CutPrefix(line, UntilPrefix); ok {
			if _, err := fmt.Sscanf(u, UntilFormat, &sec.Kept, &sec.Most); err != nil {
				return sec, fmt.Errorf("the until line %q: %v", u, err)
			}
			continue
		}
		if inv, ok := strings.CutPrefix(line, InvocationPrefix); ok {
			sec.Invocation = inv
			continue
		}
		if u, ok := strings.CutPrefix(line, PickPrefix); ok {
			if _, err := fmt.Sscanf(u, PickFormat, &sec.Rate, &sec.Idle); err != nil {
				return sec, fmt.Errorf("the pick line %q: %v", u, err)
			}
			continue
		}
		if secs, ok := tookSeconds(line); ok {
			sec.Took += secs
			if n := len(sec.Commands); n > 0 {
				sec.Durations = append(sec.Durations, make([]float64, n-len(sec.Durations))...)
				sec.Durations[n-1] += secs
			}
			continue
		}
		if name, ok := strings.CutPrefix(line, "--- BENCH: "); ok {
			logged = pkg + "/" + procSuffix.ReplaceAllString(strings.TrimSpace(name), "")
			continue
		}
		if _, msg, ok := strings.Cut(line, ".go:"); ok && logged != "" && strings.HasPrefix(line, "    ") {
			if _, reason, ok := strings.Cut(msg, fellOverPrefix); ok && why[logged] == "" {
				why[logged] = strings.TrimSpace(reason)
			}
			continue
		}
		if p, ok := strings.CutPrefix(line, "pkg: "); ok {
			pkg = strings.TrimSpace(p)
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
			continue
		}
		n, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			continue
		}
		key := pkg + "/" + procSuffix.ReplaceAllString(f[0], "")
		s := into[key]
		if s == nil {
			s = Samples{}
			into[key] = s
		}
		s["N"] = append(s["N"], n)
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			s[f[i+1]] = append(s[f[i+1]], v)
		}
	}
	return sec, sc.Err()
}

// tookSeconds is the time go test's "ok" line gives its package: the
// commands of a run end one after another, so their sum is how long the
// run took.
func tookSeconds(line string) (float64, bool) {
	f := strings.Fields(line)
	if len(f) != 3 || f[0] != "ok" || !strings.HasSuffix(f[2], "s") {
		return 0, false
	}
	d, err := strconv.ParseFloat(strings.TrimSuffix(f[2], "s"), 64)
	return d, err == nil
}

// overlap reports whether two taskset CPU lists share a CPU.
func overlap(a, b string) bool {
	in := map[int]bool{}
	for _, c := range expand(a) {
		in[c] = true
	}
	for _, c := range expand(b) {
		if in[c] {
			return true
		}
	}
	return false
}

// expand lists the CPUs of a taskset CPU list ("0-2,4").
func expand(list string) []int {
	var cpus []int
	for _, part := range strings.Split(list, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			continue
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				continue
			}
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	return cpus
}
