package main

import (
	"bufio"
	"io"
	"regexp"
	"strconv"
	"strings"

	"hellobench/bench"
)

// A sample set is every run of one benchmark: unit → values.
type samples map[string][]float64

// median returns the median of unit, and whether there was any.
func (s samples) median(unit string) (float64, bool) {
	if len(s[unit]) == 0 {
		return 0, false
	}
	return bench.SpreadOf(s[unit]).Median, true
}

// get returns the median of unit, or 0.
func (s samples) get(unit string) float64 {
	v, _ := s.median(unit)
	return v
}

// runs returns how many runs were seen.
func (s samples) runs() int { return len(s["N"]) }

// procSuffix is the -GOMAXPROCS suffix go test adds to names.
var procSuffix = regexp.MustCompile(`-\d+$`)

// commandPrefix marks the lines the report writer adds to the benchmark
// output to record the commands that produced it; benchstat skips them.
const commandPrefix = "# command: "

// parseBench reads `go test -bench` output and adds the samples by
// "pkg/BenchmarkName", the package coming from the preceding pkg: line, and
// returns the commands recorded in it. Lines of other kinds are skipped, as
// benchstat skips them.
func parseBench(r io.Reader, into map[string]samples) (commands []string, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	pkg := ""
	for sc.Scan() {
		line := sc.Text()
		if c, ok := strings.CutPrefix(line, commandPrefix); ok {
			commands = append(commands, c)
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
	return commands, sc.Err()
}
