package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"hellobench/internal/proc"
)

// A document is a hand-written file with sections generated from the
// results: between the markers of a section, every figure comes from
// results.json, and a test checks that it still does.
type document struct {
	path     string // from the module root
	sections map[string]func(Report) string
}

var documents = []document{
	{"README.md", map[string]func(Report) string{
		"ceilings": readmeCeilings,
		"pick":     pickShort,
		"clients":  clientsTable,
		"work":     readmeWork,
		"latency":  readmeLatency,
	}},
	{"bench/COSTS.md", map[string]func(Report) string{
		"conditions":      conditions,
		"costs-keepalive": caption(costsKeepAlive),
		"costs-inmemory":  caption(costsInMemory),
		"costs-close":     caption(costsClose),
		"costs-fcgi":      caption(costsFcgi),
		"costs-pipeline":  caption(costsPipeline),
		"costs-idle":      sweepOne,
	}},
}

// beginMarker opens section name, saying which run writes it.
func beginMarker(name string) string {
	from := "make bench writes it from results/results.json"
	switch name {
	case "clients":
		from = "make compare-clients writes it from results/clients.json"
	case "work":
		from = "make bench-work writes it from results/results.json"
	case "latency":
		from = "make bench-latency writes it from results/results.json"
	}
	return "<!-- begin generated: " + name + " (" + from + ") -->\n"
}

func endMarker(name string) string { return "<!-- end generated: " + name + " -->" }

// splice replaces the body of every section of text with its rendering,
// and fails on a section missing or unknown.
func (d document) splice(text string, rep Report) (string, error) {
	for name, render := range d.sections {
		begin, end := beginMarker(name), endMarker(name)
		i := strings.Index(text, begin)
		j := strings.Index(text, end)
		if i < 0 || j < i {
			return "", fmt.Errorf("%s: no section %q (a line %q, then %q)", d.path, name, strings.TrimSpace(begin), end)
		}
		body := render(rep)
		if body == "" {
			body = "Not measured in the run results/results.json holds.\n"
		}
		text = text[:i+len(begin)] + body + text[j:]
	}
	return text, nil
}

// update rewrites the document's sections in place.
func (d document) update(root string, rep Report) error {
	path := filepath.Join(root, d.path)
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	text, err := d.splice(string(b), rep)
	if err != nil {
		return err
	}
	return os.WriteFile(path, []byte(text), 0o644)
}

// caption adds the run a table comes from under it.
func caption(render func(Report) string) func(Report) string {
	return func(rep Report) string {
		t := render(rep)
		if t == "" {
			return ""
		}
		return t + "\n" + source(rep, "ceilings") + "\n"
	}
}

// source says which run a table comes from and how to read its cells.
func source(rep Report, section string) string {
	s, ok := rep.Sections[section]
	if !ok {
		return ""
	}
	unit, run := "round", "make bench"
	switch section {
	case "ceilings":
		unit = "block"
	case "work":
		unit, run = "block", "make bench-work"
	case "latency":
		return fmt.Sprintf("_`make bench-latency`, %s, %s on %s; each cell is %s of the rounds kept._",
			s.Date, plural(s.Rounds, "round"), rep.Machine.CPU, interval(s.Rounds))
	}
	return fmt.Sprintf("_`%s`, %s, %s on %s; each cell is %s, a difference or ratio taken %s by %s._",
		run, s.Date, plural(s.Rounds, unit), rep.Machine.CPU, interval(s.Rounds), unit, unit)
}

// conditions is the machine and the calibration of the run.
func conditions(rep Report) string {
	s, ok := rep.Sections["ceilings"]
	if !ok {
		return ""
	}
	m := rep.Machine
	var b strings.Builder
	refs := ""
	if referenced(rep) {
		refs = ", with a reference nginx, kept running, measured right before and after each"
	}
	fmt.Fprintf(&b, "- Measured %s on %s (%d cores), %s, %s, nginx %s, lighttpd %s; %s, each running every server once in an order that changes from block to block%s.\n",
		s.Date, m.CPU, m.Cores, m.Kernel, m.Go, orNone(m.Nginx), orNone(m.Lighttpd), plural(s.Rounds, "block"), refs)
	fmt.Fprintf(&b, "- CPU time read from %s.\n", cpuSource(s))
	if s.Forced != "" {
		fmt.Fprintf(&b, "- **Forced (-force) while other processes were busy: %s. The figures include what they took.**\n", s.Forced)
	}
	b.WriteString(aaLine(rep))
	b.WriteString(hostLine(rep))
	if f, ok := cpuOf(rep, "floor", "keepalive"); ok {
		fmt.Fprintf(&b, "- Calibration: the syscall floor spent %s µs of CPU per keep-alive request on this machine; compare machines by ratios to it.\n", spread(f, 2))
	}
	if n, ok := cpuOf(rep, "nginx", "keepalive"); ok {
		fmt.Fprintf(&b, "- nginx, the C reference, spent %s µs.\n", spread(n, 2))
	}
	return b.String()
}

// cpuSource names where a section's CPU time came from.
func cpuSource(s Section) string {
	if s.CPUSource == "" {
		return proc.SourceTicks
	}
	return s.CPUSource
}

// referenced reports whether the ceilings were measured with reference
// rounds beside each target.
func referenced(rep Report) bool {
	return slices.ContainsFunc(rep.Ceilings, func(p Point) bool { return len(p.Ref) > 0 })
}

// pairing says how the ceilings' ratios and differences pair their blocks.
func pairing(rep Report) string {
	if !referenced(rep) {
		return "a ratio is taken block by block between servers that ran in the same block"
	}
	return "a ratio to nginx is taken in each block against the reference nginx measured right before and after the server " +
		"(the host's speed drifts over seconds, and rounds next to each other share it); the other ratios and differences are taken block by block " +
		"between servers that ran in the same block, each block's CPU scaled by the run's usual reference over the reference beside it"
}

// noiseBound is the A/A interval's half-width above which the report says
// the run cannot back claims of a few per cent.
const noiseBound = 0.03

// aaLine gives the A/A comparison, nginx against its twin, in each mode:
// the run's noise floor.
func aaLine(rep Report) string {
	var parts, noisy []string
	for _, mode := range modeNames() {
		p, ok := find(rep.Ceilings, twin, mode)
		if !ok || p.CPUVsNginx == nil || p.CPUVsNginx.N == 0 {
			continue
		}
		r := *p.CPUVsNginx
		if r.N < 6 {
			parts = append(parts, fmt.Sprintf("%s %s (%s: too few for an interval)", mode, spread(r, 3), plural(r.N, "block")))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s, ±%.1f %%", mode, spread(r, 3), 100*r.HalfWidth()))
		if r.HalfWidth() > noiseBound {
			noisy = append(noisy, mode)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	against := "nginx"
	if referenced(rep) {
		against = "the reference rounds beside it"
	}
	line := "- A/A: a second nginx, started and measured as a target of its own, against " + against + ": " + strings.Join(parts, ", ") + ". This is the run's noise floor."
	if len(noisy) > 0 {
		line += fmt.Sprintf(" **Wider than ±%.0f %% in %s: the machine was too noisy for %.0f %% claims there.**", 100*noiseBound, strings.Join(noisy, ", "), 100*noiseBound)
	}
	return line + "\n"
}

func orNone(v string) string {
	if v == "" {
		return "(not installed)"
	}
	return v
}

// readmeCeilings is the README's table: keep-alive on one core.
func readmeCeilings(rep Report) string {
	var rows []Point
	for _, p := range rep.Ceilings {
		if p.Mode == "keepalive" {
			rows = append(rows, p)
		}
	}
	if len(rows) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("| server | server CPU µs/request | vs nginx | vs the floor | one core's ceiling, req/s | allocs/request (in memory) | note |\n|---|--:|--:|--:|--:|--:|---|\n")
	for _, p := range rows {
		allocs := "–"
		if m, ok := memory(rep, p.Server, "BenchmarkServeKeepAlive"); ok {
			allocs = median(m.AllocsOp, 0)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", p.Server, spread(p.CPU, 2), versus(p.CPUVsNginx),
			versus(p.CPUVsFloor), median(p.Implied, 0), allocs, note(p))
	}
	b.WriteString("\n" + source(rep, "ceilings") + "\n")
	return b.String()
}

// sweepOne is an idle server's cost: one connection at a time against fifty.
func sweepOne(rep Report) string {
	var b strings.Builder
	b.WriteString("| server | CPU µs/req at 1 connection | at 50 | p50 µs at 1 connection |\n|---|--:|--:|--:|\n")
	rows := 0
	for _, s := range order() {
		one, ok1 := sweepPoint(rep, s, 1)
		fifty, ok2 := sweepPoint(rep, s, 50)
		if !ok1 || !ok2 {
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", s, spread(one.CPU, 2), spread(fifty.CPU, 2), median(one.P50, 0))
		rows++
	}
	if rows == 0 {
		return ""
	}
	if s, ok := rep.Sections["sweep"]; ok {
		fmt.Fprintf(&b, "\n_`make bench`'s sweep, %s, %s; %s._\n", s.Date, plural(s.Rounds, "round"), interval(s.Rounds))
	}
	return b.String()
}

func sweepPoint(rep Report, server string, conns int) (Point, bool) {
	for _, p := range rep.Sweep {
		if p.Server == server && p.Conns == conns && p.CPU.N > 0 {
			return p, true
		}
	}
	return Point{}, false
}

// versusSaturated is versus for a ratio taken over the saturated rounds
// only, which there may be none of.
func versusSaturated(f *Figure) string {
	if f != nil && f.N == 0 {
		return "never both saturated"
	}
	return versus(f)
}

// clientsTable is make compare-clients' run: each client's CPU per request
// against wrk's, by mode.
func clientsTable(rep Report) string {
	run := rep.Clients
	if run == nil || len(run.Rows) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("| mode | client | client CPU µs/request | of it in user space | vs wrk, round by round | TCP segments/request | req/s | vs wrk | server CPU µs/request | server busy | server CPU vs under loadgen | note |\n|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n")
	for _, r := range run.Rows {
		if r.Skipped != "" {
			fmt.Fprintf(&b, "| %s | %s | – | – | – | – | – | – | – | – | – | not run: %s |\n", r.Mode, r.Client, r.Skipped)
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Mode, r.Client, spread(r.ClientCPU, 2), spread(r.ClientUser, 2),
			versus(r.CPUVsWrk), spread(r.Segments, 2), spread(r.ReqPerSec, 0), versus(r.RateVsWrk), spread(r.ServerCPU, 2), pct(r.Busy),
			versusSaturated(r.ServerVsLoadgen), label(run.Connections, r.Busy.Median, r.ClientBusy.Median))
	}
	fmt.Fprintf(&b, "\n_`make compare-clients`, %s, against %s with %d connections, %d rounds of %.0f s per mode in changing orders; %s; the server's CPU against loadgen's rounds only where the server was 97 %% busy under both._\n",
		run.Date, run.Server, run.Connections, run.Rounds, run.Duration, interval(run.Rounds))
	return b.String()
}
