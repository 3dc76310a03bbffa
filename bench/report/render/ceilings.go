package render

import (
	"fmt"
	"slices"
	"strings"

	"hellobench/bench"
	"hellobench/bench/report"
	"hellobench/internal/proc"
	"hellobench/internal/targets"
)

// Conditions is the machine and the calibration of the run.
func Conditions(rep report.Report) string {
	s, ok := rep.Sections[report.CeilingsSection]
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
	b.WriteString(versionsLine(rep))
	b.WriteString(syscallLine(m))
	if s.Forced != "" {
		fmt.Fprintf(&b, "- **Forced (-force) while other processes were busy: %s. The figures include what they took.**\n", s.Forced)
	}
	b.WriteString(aaLine(rep))
	b.WriteString(HostLine(rep))
	if f, ok := cpuOf(rep, "floor", "keepalive"); ok {
		fmt.Fprintf(&b, "- Calibration: the syscall floor spent %s µs of CPU per keep-alive request on this machine; compare machines by ratios to it.\n", spread(f, 2))
	}
	if n, ok := cpuOf(rep, "nginx", "keepalive"); ok {
		fmt.Fprintf(&b, "- nginx, the C reference, spent %s µs.\n", spread(n, 2))
	}
	return b.String()
}

// cpuSource names where a section's CPU time came from.
func cpuSource(s report.Section) string {
	if s.CPUSource == "" {
		return proc.SourceTicks
	}
	return s.CPUSource
}

// referenced reports whether the ceilings were measured with reference
// rounds beside each target.
func referenced(rep report.Report) bool {
	return slices.ContainsFunc(rep.Ceilings, func(p report.Point) bool { return len(p.Ref) > 0 })
}

// pairing says how the ceilings' ratios and differences pair their blocks.
func pairing(rep report.Report) string {
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
func aaLine(rep report.Report) string {
	var parts, noisy []string
	for _, mode := range report.ModeNames() {
		p, ok := report.Find(rep.Ceilings, report.Twin, mode)
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

// CeilingsPage is docs/ceilings.md's table: keep-alive on one core, and
// beside it, where the run measured it, the CPU per request at 10 requests
// a connection (bench.Conn10) and its ratio to nginx's.
func CeilingsPage(rep report.Report) string {
	var rows []report.Point
	conn10 := false
	for _, p := range rep.Ceilings {
		if p.Mode == "keepalive" {
			rows = append(rows, p)
		}
		conn10 = conn10 || p.Mode == string(bench.Conn10)
	}
	if len(rows) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("| server | server CPU µs/request | vs nginx | vs the floor | one core's ceiling, req/s | allocs/request (in memory) |")
	if conn10 {
		b.WriteString(" 10 a connection: CPU µs/request, vs nginx |")
	}
	b.WriteString(" note |\n|---|--:|--:|--:|--:|--:|")
	if conn10 {
		b.WriteString("--:|")
	}
	b.WriteString("---|\n")
	for _, p := range rows {
		allocs := "–"
		if m, ok := memory(rep, p.Server, "BenchmarkServeKeepAlive"); ok {
			allocs = median(m.AllocsOp, 0)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |", p.Server, spread(p.CPU, 2), versus(p.CPUVsNginx),
			versus(p.CPUVsFloor), median(p.Implied, 0), allocs)
		if conn10 {
			fmt.Fprintf(&b, " %s |", conn10Cell(rep, p.Server))
		}
		fmt.Fprintf(&b, " %s |\n", Note(p))
	}
	b.WriteString("\n" + source(rep, report.CeilingsSection) + "\n")
	return b.String()
}

// conn10Cell is server's CPU per request at 10 requests a connection and
// its ratio to nginx's, labelled where the server was never saturated (a
// row that is not a ceiling) or "–" where the run has no such row.
func conn10Cell(rep report.Report, server string) string {
	p, ok := report.Find(rep.Ceilings, server, string(bench.Conn10))
	if !ok || p.CPU.N == 0 {
		return "–"
	}
	cell := spread(p.CPU, 2) + ", " + versus(p.CPUVsNginx)
	if n := Note(p); n != "" {
		cell += " (" + n + ")"
	}
	return cell
}

// versusSaturated is versus for a ratio taken over the saturated rounds
// only, which there may be none of.
func versusSaturated(f *report.Figure) string {
	if f != nil && f.N == 0 {
		return "never both saturated"
	}
	return versus(f)
}

// hostParts says, per mode with a usual speed, where it lay and how many
// server blocks counted or were left out for the host's state.
func hostParts(rep report.Report) []string {
	var parts []string
	for _, mode := range report.ModeNames() {
		u, ok := rep.Usual[mode]
		if !ok {
			continue
		}
		n, changed, other := report.HostCounts(rep.Ceilings, mode)
		parts = append(parts, fmt.Sprintf("%s %s µs (%d of %d server blocks with a reference in it; %d left out as the host changed speed, %d at another)",
			mode, num(u, 2), n, n+changed+other, changed, other))
	}
	return parts
}

// HostLine is the report header's account of the host's state.
func HostLine(rep report.Report) string {
	parts := hostParts(rep)
	if len(parts) == 0 {
		if referenced(rep) {
			return fmt.Sprintf("- Host state: not judged, every block counts: under %d blocks, the host's usual speed cannot be told from a passing one.\n", report.HostBlocks)
		}
		return ""
	}
	return fmt.Sprintf("- Host state: the host's speed moves between levels that last many seconds, and a server's ratio to nginx differs between them, "+
		"so a ceiling block counts only at the level the reference nginx sat at most often (within ±%.0f %% of its usual CPU per request) "+
		"and only if the reference after the server was within ±%.0f %% of the one before it (the host did not change level meanwhile). Usual reference: %s.\n",
		100*report.HostTol, 100*report.HostTol, strings.Join(parts, "; "))
}

func CeilingTables(rep report.Report) string {
	var b strings.Builder
	if rep.Ceilings != nil {
		b.WriteString("![CPU per request as a ratio to nginx's](ceilings.svg)\n\n")
	}
	for _, mode := range report.ModeNames() {
		var rows []report.Point
		for _, p := range rep.Ceilings {
			if p.Mode == mode {
				rows = append(rows, p)
			}
		}
		if !shown(mode, len(rows)) {
			continue
		}
		fmt.Fprintf(&b, "### %s\n\n", modeTitles[mode])
		if len(rows) == 0 {
			b.WriteString("Not measured in this run.\n\n")
			continue
		}
		b.WriteString("| server | CPU µs/req | vs nginx | vs floor | ceiling req/s | req/s measured | server busy | client busy | p50 µs | p99 µs | peak RSS MB | note |\n")
		b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n")
		for _, p := range rows {
			cpu := spread(p.CPU, 2)
			if t, err := targets.Lookup(p.Server); err == nil && len(t.Counted) > 1 && p.AppCPU.N > 0 {
				cpu += fmt.Sprintf(", app %s", median(p.AppCPU, 2))
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
				p.Server, cpu, versus(p.CPUVsNginx), versus(p.CPUVsFloor), median(p.Implied, 0), spread(p.ReqPerSec, 0),
				pct(p.Busy), pct(p.ClientBusy), median(p.P50, 0), median(p.P99, 0), median(p.RSS, 1), Note(p))
		}
		fmt.Fprintf(&b, "\n%s\n\n", runLength(rep, rows))
	}
	return b.String()
}

// runLength says how long each ceiling run of rows was and over how many
// blocks.
func runLength(rep report.Report, rows []report.Point) string {
	if len(rows[0].Blocks) == 0 {
		return fmt.Sprintf("%s requests per round, %s.", num(float64(rows[0].Requests), 0), plural(rows[0].CPU.N, "round"))
	}
	return fmt.Sprintf("%s; a row's figures are from the blocks in which its server was saturated and the host at its usual speed.", plural(len(rows[0].Blocks), "block"))
}

// syscallLine says what one system call costs on the machine and which
// mitigations its kernel runs: what explains io_uring's margin over epoll
// differing between machines. Runs recorded before it was measured have
// none.
func syscallLine(m report.Machine) string {
	if m.SyscallNS == 0 {
		return ""
	}
	mit := "none listed"
	if len(m.Mitigations) > 0 {
		mit = strings.Join(m.Mitigations, "; ")
	}
	return fmt.Sprintf("- One system call (a raw getppid loop on the server's CPU, the median of 5 runs of a million) took %.0f ns; the kernel's CPU vulnerability entries other than \"Not affected\": %s. io_uring saves system calls, so its margin over epoll grows with this cost.\n", m.SyscallNS, mit)
}
