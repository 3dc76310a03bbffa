package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// A sample set is every run of one benchmark: unit → values.
type samples map[string][]float64

// fellOverPrefix starts the benchmark log line that says why a server
// fell over (bench's fellOver).
const fellOverPrefix = "fell over: "

// figure returns every round of unit and their spread.
func (s samples) figure(unit string) Figure { return figureOf(s[unit]) }

// procSuffix is the -GOMAXPROCS suffix go test adds to names.
var procSuffix = regexp.MustCompile(`-\d+$`)

// parseBench reads `go test -bench` output and adds the samples by
// "pkg/BenchmarkName", the package coming from the preceding pkg: line, and
// returns the date, rounds and commands recorded in it; why gets, by the
// same key, the reason a server fell over, from the benchmark's log. Lines of other kinds are skipped, as
// benchstat skips them.
func parseBench(r io.Reader, into map[string]samples, why map[string]string) (sec Section, err error) {
	logged := "" // the benchmark whose log lines follow
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	pkg := ""
	for sc.Scan() {
		line := sc.Text()
		if c, ok := strings.CutPrefix(line, commandPrefix); ok {
			sec.Commands = append(sec.Commands, c)
			continue
		}
		if line == quickLine {
			sec.Quick = true
			continue
		}
		if src, ok := strings.CutPrefix(line, sourcePrefix); ok {
			sec.CPUSource = src
			continue
		}
		if f, ok := strings.CutPrefix(line, forcedPrefix); ok {
			sec.Forced = f
			continue
		}
		if d, ok := strings.CutPrefix(line, datePrefix); ok {
			sec.Date = d
			continue
		}
		if m, ok := strings.CutPrefix(line, machinePrefix); ok {
			if err := json.Unmarshal([]byte(m), &sec.Machine); err != nil {
				return sec, fmt.Errorf("the machine line %q: %v", m, err)
			}
			continue
		}
		if c, ok := strings.CutPrefix(line, cpusPrefix); ok {
			if _, err := fmt.Sscanf(c, "server %s client %s", &sec.ServerCPUs, &sec.ClientCPUs); err != nil {
				return sec, fmt.Errorf("the cpus line %q: %v", c, err)
			}
			sec.Shared = overlap(sec.ServerCPUs, sec.ClientCPUs)
			continue
		}
		if n, ok := strings.CutPrefix(line, roundsPrefix); ok {
			sec.Rounds, _ = strconv.Atoi(n)
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
			s = samples{}
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
