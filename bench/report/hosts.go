package report

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"hellobench/bench"
)

// A ratio to nginx is a property of a stack and a host: a stack that makes
// fewer system calls, or more user-space work, moves against nginx as
// system calls get dearer or the core faster. Each host's runs are kept
// under results/hosts/KEY/, listed in results/hosts/hosts.json, so that
// they are shown side by side.

// HostsIndex is the hosts' index file under the results directory.
const HostsIndex = "hosts/hosts.json"

// A hostEntry is one host of the index: its key (its directory under
// hosts/) and its runs' bench.txt files, relative to that directory.
type hostEntry struct {
	Key  string   `json:"key"`
	Runs []string `json:"runs"`
}

// A Host is one machine's recorded runs of make bench.
type Host struct {
	Key     string
	Machine Machine // as its first run recorded it
	Runs    []HostRun
}

// A HostRun is one invocation's keep-alive ceilings: the stacks' CPU per
// request over nginx's, and nginx's own CPU per request, the host's
// yardstick.
type HostRun struct {
	Date   string
	Nginx  Figure            // nginx's CPU µs per keep-alive request
	Ratios map[string]Figure // by stack, its CPU per request over nginx's
	Split  SplitCheck
	// CPU is every target's CPU µs per keep-alive request (nginx and the
	// floors included), User and Sys its user and kernel parts where the
	// run recorded them: the host model's inputs.
	CPU, User, Sys map[string]Figure
}

// SplitTolerance is how far, in percent, user+sys may be from the total
// CPU before a row is flagged: the split is tick-based (proc's cgroup.go).
const SplitTolerance = 2.0

// A SplitCheck compares, for every benchmark of a run that reported the
// user and kernel split, user-us/req + sys-us/req with cpu-us/req.
type SplitCheck struct {
	Rows int                // benchmarks with the split; 0: not recorded
	Off  map[string]float64 // benchmark → percent off, where over SplitTolerance
}

// HostKey names a host's directory: the processor's vendor, family, model,
// stepping and microcode (or, for a run before they were recorded, its
// model name), the kernel, and a digest of the mitigations. The measured
// system-call cost is recorded with each run, not in the key: it moves a
// few percent between runs on one host, and a key must not.
func HostKey(m Machine) string {
	cpu := m.CPU
	if m.Family != "" {
		cpu = strings.Join([]string{m.Vendor, m.Family, m.Model, m.Stepping, m.Microcode}, "-")
	}
	mit := "mitigations-not-recorded"
	if m.SyscallNS > 0 || len(m.Mitigations) > 0 {
		sum := sha256.Sum256([]byte(strings.Join(m.Mitigations, "\n")))
		mit = fmt.Sprintf("mit-%x", sum[:4])
	}
	return slug(cpu) + "_" + slug(m.Kernel) + "_" + mit
}

var unslug = regexp.MustCompile(`[^a-z0-9.]+`)

func slug(s string) string {
	s = strings.Trim(unslug.ReplaceAllString(strings.ToLower(s), "-"), "-")
	if s == "" {
		return "unknown"
	}
	return s
}

// ReadHosts reads every host of the index under dir (a results directory);
// no index is no hosts.
func ReadHosts(dir string) ([]Host, error) {
	b, err := os.ReadFile(filepath.Join(dir, HostsIndex))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var index struct{ Hosts []hostEntry }
	if err := json.Unmarshal(b, &index); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, HostsIndex), err)
	}
	var hosts []Host
	for _, e := range index.Hosts {
		h := Host{Key: e.Key}
		for _, f := range e.Runs {
			run, m, err := ReadHostRun(filepath.Join(dir, "hosts", e.Key, f))
			if err != nil {
				return nil, err
			}
			if len(h.Runs) == 0 {
				h.Machine = m
			}
			h.Runs = append(h.Runs, run)
		}
		if len(h.Runs) == 0 {
			return nil, fmt.Errorf("%s: host %s lists no runs", filepath.Join(dir, HostsIndex), e.Key)
		}
		hosts = append(hosts, h)
	}
	return hosts, nil
}

// ReadHostRun reads one make bench's bench.txt: its keep-alive ratios to
// nginx, nginx's CPU per request, the machine it recorded and the split
// check.
func ReadHostRun(file string) (HostRun, Machine, error) {
	if err := Stat(file); err != nil {
		return HostRun{}, Machine{}, fmt.Errorf("no run of make bench: %v", err)
	}
	rep, err := Read(map[string]string{CeilingsSection: file})
	if err != nil {
		return HostRun{}, Machine{}, fmt.Errorf("%s: %v", file, err)
	}
	sec := rep.Sections[CeilingsSection]
	run := HostRun{Date: sec.Date, Ratios: map[string]Figure{}, CPU: map[string]Figure{}, User: map[string]Figure{}, Sys: map[string]Figure{}}
	for _, p := range rep.Ceilings {
		if p.Mode != string(bench.KeepAlive) || p.Conns != CeilingConns || p.Label != "" {
			continue
		}
		if p.Server != Twin && p.CPU.N > 0 {
			run.CPU[p.Server] = p.CPU
			if p.User.N > 0 && p.Sys.N > 0 {
				run.User[p.Server], run.Sys[p.Server] = p.User, p.Sys
			}
		}
		switch {
		case p.Server == "nginx":
			run.Nginx = p.CPU
		case p.CPUVsNginx != nil && p.CPUVsNginx.N > 0 && p.Server != Twin:
			run.Ratios[p.Server] = *p.CPUVsNginx
		}
	}
	if run.Nginx.N == 0 {
		return HostRun{}, Machine{}, fmt.Errorf("%s: no keep-alive ceiling of nginx, the yardstick", file)
	}
	all := map[string]Samples{}
	if _, _, err := ReadBench(file, all, map[string]string{}); err != nil {
		return HostRun{}, Machine{}, err
	}
	run.Split = checkSplit(all)
	return run, sec.Machine, nil
}

// checkSplit compares each benchmark's user+sys with its total, summed
// over its rounds.
func checkSplit(all map[string]Samples) SplitCheck {
	c := SplitCheck{Off: map[string]float64{}}
	for key, s := range all {
		user, sys, cpu := s["user-us/req"], s["sys-us/req"], s["cpu-us/req"]
		if len(user) == 0 || len(user) != len(sys) || len(user) != len(cpu) {
			continue
		}
		c.Rows++
		total := sum(cpu)
		if off := 100 * math.Abs(sum(user)+sum(sys)-total) / total; total > 0 && off > SplitTolerance {
			c.Off[key] = off
		}
	}
	return c
}

func sum(vs []float64) float64 {
	var s float64
	for _, v := range vs {
		s += v
	}
	return s
}

// A HostFigure is one stack's ratio to nginx on one host: the median of
// its invocations' medians, and the lowest and highest bound of their
// intervals (one invocation: its own interval).
type HostFigure struct {
	Median, Lo, Hi float64
	Runs           int
}

// Ratio is stack's ratio to nginx on h; ok is false where none of its
// runs measured it.
func (h Host) Ratio(stack string) (f HostFigure, ok bool) {
	var meds []float64
	f.Lo, f.Hi = math.Inf(1), math.Inf(-1)
	for _, r := range h.Runs {
		if fig, ok := r.Ratios[stack]; ok {
			meds = append(meds, fig.Median)
			f.Lo, f.Hi = min(f.Lo, fig.Lo), max(f.Hi, fig.Hi)
		}
	}
	if len(meds) == 0 {
		return HostFigure{}, false
	}
	f.Median, f.Runs = figureOf(meds).Median, len(meds)
	return f, true
}

// Yardstick is nginx's CPU µs per keep-alive request on h: its runs'
// lowest and highest median.
func (h Host) Yardstick() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, r := range h.Runs {
		lo, hi = min(lo, r.Nginx.Median), max(hi, r.Nginx.Median)
	}
	return lo, hi
}

// A HostRange is a stack's ratio to nginx across hosts: the lowest and
// highest median of any invocation recorded, over Hosts hosts, and the
// lowest and highest bound of the hosts' intervals. Every invocation's
// median, not each host's median of them, so that the one invocation a
// page shows beside the range lies within it.
type HostRange struct {
	Stack       string
	Lo, Hi      float64
	Bottom, Top float64
	Hosts       int
}

// HostRanges is every stack's range over the hosts that measured it, in
// the report's order.
func HostRanges(hosts []Host) []HostRange {
	var rs []HostRange
	for _, s := range Order() {
		r := HostRange{Stack: s, Lo: math.Inf(1), Hi: math.Inf(-1), Bottom: math.Inf(1), Top: math.Inf(-1)}
		for _, h := range hosts {
			f, ok := h.Ratio(s)
			if !ok {
				continue
			}
			r.Hosts++
			r.Bottom, r.Top = min(r.Bottom, f.Lo), max(r.Top, f.Hi)
			for _, run := range h.Runs {
				if fig, ok := run.Ratios[s]; ok {
					r.Lo, r.Hi = min(r.Lo, fig.Median), max(r.Hi, fig.Median)
				}
			}
		}
		if r.Hosts > 0 {
			rs = append(rs, r)
		}
	}
	return rs
}

// Orderings says which orderings of the stacks measured on every host
// hold there by more than the spread across hosts, as groups from the
// cheapest: every interval of each group, on every host, lies wholly
// below every interval of the next group, so that neither the spread
// across hosts nor a host's own interval covers the difference; the
// stacks within a group are not ranked. Flips are the pairs whose order is
// not the same on every host.
func Orderings(hosts []Host) (groups [][]string, flips [][2]string) {
	var rs []HostRange
	for _, r := range HostRanges(hosts) {
		if r.Hosts == len(hosts) {
			rs = append(rs, r)
		}
	}
	slices.SortStableFunc(rs, func(a, b HostRange) int {
		return cmpFloat(a.Bottom, b.Bottom)
	})
	top := math.Inf(-1)
	for _, r := range rs {
		if len(groups) == 0 || r.Bottom > top {
			groups = append(groups, nil)
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], r.Stack)
		top = max(top, r.Top)
	}
	for i, a := range rs {
		for _, b := range rs[i+1:] {
			if flipped(hosts, a.Stack, b.Stack) {
				flips = append(flips, [2]string{a.Stack, b.Stack})
			}
		}
	}
	return groups, flips
}

// flipped reports whether a is below b on one host and above it on another.
func flipped(hosts []Host, a, b string) bool {
	below, above := false, false
	for _, h := range hosts {
		fa, _ := h.Ratio(a)
		fb, _ := h.Ratio(b)
		below = below || fa.Median < fb.Median
		above = above || fa.Median > fb.Median
	}
	return below && above
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// FileHostRun files a make bench's bench.txt under results/hosts: a copy
// in KEY/DATE/bench.txt.gz (which the index names, as ReadFile reads it,
// KEY/DATE/bench.txt), its host's key from the machine it recorded, and
// a line in the index (a new host, or a run added to its host). Filing
// the same run again changes nothing.
func FileHostRun(results, file string) (key string, err error) {
	run, m, err := ReadHostRun(file)
	if err != nil {
		return "", err
	}
	key = HostKey(m)
	b, err := ReadFile(file)
	if err != nil {
		return "", err
	}
	rel := filepath.Join(slug(run.Date), "bench.txt")
	dst := filepath.Join(results, "hosts", key, rel)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", err
	}
	// Compressed: each run files one more, and results/ is kept small.
	if err := WriteGzip(dst, b); err != nil {
		return "", err
	}
	indexFile := filepath.Join(results, HostsIndex)
	var index struct {
		Hosts []hostEntry `json:"hosts"`
	}
	if ib, err := os.ReadFile(indexFile); err == nil {
		if err := json.Unmarshal(ib, &index); err != nil {
			return "", fmt.Errorf("%s: %v", indexFile, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	i := slices.IndexFunc(index.Hosts, func(e hostEntry) bool { return e.Key == key })
	if i < 0 {
		index.Hosts = append(index.Hosts, hostEntry{Key: key})
		i = len(index.Hosts) - 1
	}
	if !slices.Contains(index.Hosts[i].Runs, filepath.ToSlash(rel)) {
		index.Hosts[i].Runs = append(index.Hosts[i].Runs, filepath.ToSlash(rel))
	}
	out, err := json.MarshalIndent(index, "", "  ")
	if err != nil {
		return "", err
	}
	return key, os.WriteFile(indexFile, append(out, '\n'), 0o644)
}
