package render

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"hellobench/bench"
	"hellobench/bench/report"
	"hellobench/internal/targets"
)

// The pick table is make bench's one run (Report.Pick): every cell a
// figure of that invocation, or a ratio of two of its figures, so that a
// reader can size a service with it and rerun it on their own machine.
// Only the range over the hosts recorded and the hostile-clients column
// come from elsewhere, each naming its source.

// gives is what the stack s gives a real application beyond the page,
// from the target table; "" for a target without the line.
func gives(s string) string {
	t, err := targets.Lookup(s)
	if err != nil {
		return ""
	}
	return t.Gives
}

// pickRefs are the pick table's references, below the stacks a reader can
// adopt, each with its status in one line.
var pickRefs = []struct{ name, status string }{
	{"nginx", "the yardstick every ratio is taken against: C, one event loop, its own parser."},
	{"uring", "this project's own server on io_uring, **not for production**: its HTTP parser and connection lifecycle are written and reviewed only here, " +
		"and it serves neither TLS nor HTTP/2. It shows what io_uring saves a server like gnet."},
	{"floor", "the least a Go server on epoll spends per request *when saturated*: it reads a request and writes a fixed answer, with no parser. " +
		"Below saturation each request also pays its own wake-ups, and the floor can cost more than nginx ([docs/load.md](docs/load.md))."},
	{"floor-uring", "the same floor on io_uring, the least uring could spend when saturated."},
}

func isRef(s string) bool {
	return slices.ContainsFunc(pickRefs, func(r struct{ name, status string }) bool { return r.name == s })
}

// handlers names the handlers each row's application is written as: the
// API a reader's code would be written against.
var handlers = map[string]string{
	"nethttp": "net/http", "chi": "net/http", "fcgi": "net/http",
	"gin": "gin", "echo": "echo", "fasthttp": "fasthttp", "fiber": "fiber", "hertz": "hertz", "nbio": "net/http",
	"gnet": "own HTTP", "uring": "own HTTP", "floor": "no parser", "floor-uring": "no parser", "nginx": "C",
}

// ratioTarget is the interval a stack's ratio to nginx must be known to
// for a reader's choice: ±2.5 %, so that two stacks 5 % apart (the
// difference worth acting on) are told apart; ±15 % for a stack five
// times nginx's cost or more (fcgi), where nothing near it is a choice.
func ratioTarget(ratio float64) float64 {
	if ratio >= 5 {
		return 0.15
	}
	return 0.025
}

// pickRow is one stack's cells in the pick table.
type pickRow struct {
	name, stack, ratio, cores, held, idle, https, hostile string
}

// pickRows are the adoptable stacks' rows, then the references'.
func pickRows(rep report.Report, run report.Report) (stacks, refs []pickRow) {
	for _, s := range report.Order() {
		t, err := targets.Lookup(s)
		if err != nil || t.Kind != targets.Server || isRef(s) {
			continue
		}
		if r, ok := pickRowOf(rep, run, t); ok {
			stacks = append(stacks, r)
		}
	}
	for _, ref := range pickRefs {
		if t, err := targets.Lookup(ref.name); err == nil {
			if r, ok := pickRowOf(rep, run, t); ok {
				refs = append(refs, r)
			}
		}
	}
	return stacks, refs
}

// pickRowOf is t's row, if the run measured its keep-alive ceiling.
func pickRowOf(rep, run report.Report, t targets.Target) (pickRow, bool) {
	p, ok := report.Find(run.Ceilings, t.Name, string(bench.KeepAlive))
	if !ok {
		return pickRow{}, false
	}
	return pickRow{name: t.Name, stack: stackCell(t), ratio: pickRatioCell(p) + hostsCell(rep, t.Name), cores: coresCell(run, t.Name),
		held: heldCell(run, t.Name), idle: idleCell(run, t.Name), https: httpsCell(run, t, p), hostile: hostileCell(rep, t)}, true
}

// stackCell is the stack and whether it serves HTTP/2 and TLS, each said
// either way so that a reader need not read an absence.
func stackCell(t targets.Target) string {
	h2, tls := "no h2", "no TLS"
	if t.H2 {
		h2 = "h2"
	}
	if t.TLS {
		tls = "TLS"
	}
	return "**" + t.Name + "** · " + h2 + " · " + tls
}

// pickRatioCell is a keep-alive ceiling's CPU per request over nginx's, with
// its interval, and says when the interval is wider than the row's
// target (ratioTarget).
func pickRatioCell(p report.Point) string {
	switch {
	case p.CPU.N == 0 || p.Label != "":
		return or(p.Label, "never saturated: no ceiling")
	case p.Server == "nginx":
		return "1×"
	case p.CPUVsNginx == nil || p.CPUVsNginx.N == 0:
		return "no block beside nginx"
	}
	r := *p.CPUVsNginx
	cell := fmt.Sprintf("%s× (%s–%s)", num(r.Median, 2), num(r.Lo, 2), num(r.Hi, 2))
	switch hw, target := r.HalfWidth(), ratioTarget(r.Median); {
	case r.N < minKept:
		cell += fmt.Sprintf(", **unresolved**: %s kept, too few for an interval (the range shown)", plural(r.N, "block"))
	case hw > target:
		cell += fmt.Sprintf(", **unresolved**: ±%s %% on %s, target ±%s %%", num(100*hw, 1), plural(r.N, "block"), num(100*target, 1))
	}
	return cell
}

// minKept is the fewest kept blocks whose order statistics give a 95 %
// interval of the median; with fewer, the parentheses are the range.
const minKept = 6

// or is a, or b when a is empty.
func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// hostsCell is the range of a stack's ratio to nginx over every host
// recorded, the lowest to the highest median of any invocation, where
// more than one host measured it: a ratio is a property of a stack and a
// host.
func hostsCell(rep report.Report, server string) string {
	for _, r := range report.HostRanges(rep.Hosts) {
		if r.Stack == server && r.Hosts > 1 {
			return fmt.Sprintf("; %s on %d hosts", span(r.Lo, r.Hi), r.Hosts)
		}
	}
	return ""
}

// pickRate is the run's rate for the cores column (Section.Rate).
func pickRate(run report.Report) int {
	if r := run.Sections[report.PickSection].Rate; r > 0 {
		return r
	}
	return 10000
}

// coresCell is the cores a stack keeps busy at the run's rate: its CPU
// per request measured at that rate, times the rate. A stack whose
// ceiling is under the rate needs more than one core, and one core
// cannot measure what more cost.
func coresCell(run report.Report, server string) string {
	rate := pickRate(run)
	l, ok := report.FindLat(run.Load, server, fmt.Sprintf("r=%d", rate), report.CeilingConns)
	switch {
	case !ok:
		if p, ok := report.Find(run.Ceilings, server, string(bench.KeepAlive)); ok && p.Implied.N > 0 && p.Implied.Median < float64(rate)/0.9 {
			return fmt.Sprintf("over 1: the rate is past 90 %% of its ceiling (%s req/s)", num(roundTo(p.Implied.Median, 3), 0))
		}
		return "–"
	case l.FellOver > 0:
		return "fell over"
	case l.CPU == nil || l.CPU.N == 0:
		return "–"
	}
	return num(l.CPU.Median*float64(rate)/1e6, 2)
}

// heldCell is the highest rate a stack held with its p99 within the
// bound, open loop, the median of the searches: a rate below the
// ceiling, where a service's clients wait little.
func heldCell(run report.Report, server string) string {
	c, ok := report.FindCapacity(run.Capacity, server)
	switch {
	case !ok:
		return "–"
	case c.Rate.Max == 0:
		return "none"
	}
	return num(roundTo(c.Rate.Median, 3), 0)
}

// roundTo rounds v to n significant digits: a rate known to a few per
// cent printed as 137 000, not 137 510.
func roundTo(v float64, n int) float64 {
	if v == 0 {
		return 0
	}
	k := math.Pow(10, float64(n)-math.Ceil(math.Log10(math.Abs(v))))
	return math.Round(v*k) / k
}

// pickIdle is the run's idle connections (Section.Idle).
func pickIdle(run report.Report) int {
	if n := run.Sections[report.PickSection].Idle; n > 0 {
		return n
	}
	return 10000
}

// idleCell is the memory one idle connection adds to a stack, in KiB,
// among the run's idle connections.
func idleCell(run report.Report, server string) string {
	for _, i := range run.Idle {
		if i.Server == server && i.Conns == pickIdle(run) && i.PerConn.N > 0 {
			return kibText(i.PerConn.Median)
		}
	}
	return "–"
}

// kibText is a number of bytes in KiB: one unit for every idle
// connection, to three significant digits.
func kibText(v float64) string {
	k := v / 1024
	if k >= 100 {
		return fmt.Sprintf("%.0f KiB", k)
	}
	return fmt.Sprintf("%.1f KiB", roundTo(k, 3))
}

// httpsCell is what TLS adds to a stack's keep-alive request, over its
// plaintext ceiling's CPU per request in the same run, and a full TLS
// 1.3 handshake counted in keep-alive requests over TLS, or says the
// stack serves no TLS.
func httpsCell(run report.Report, t targets.Target, plain report.Point) string {
	if !t.TLS {
		return "no TLS"
	}
	var ka, full *report.TLSRow
	for i, r := range run.TLS {
		switch {
		case r.Server != t.Name || r.CPU.N == 0 || r.Key != "ecdsa" && r.Key != "":
		case r.Mode == string(bench.TLSKeepAlive):
			ka = &run.TLS[i]
		case r.Mode == string(bench.TLSFull):
			full = &run.TLS[i]
		}
	}
	adds, worth := "–", "–"
	if ka != nil && plain.CPU.N > 0 {
		adds = fmt.Sprintf("%+.0f %%", 100*(ka.CPU.Median/plain.CPU.Median-1))
	}
	if ka != nil && full != nil {
		worth = fmt.Sprintf("%s requests", num(full.CPU.Median/ka.CPU.Median, 1))
	}
	if adds == "–" && worth == "–" {
		return "–"
	}
	return adds + " · " + worth
}

// hostileCell is how a stack held against hostile clients in the
// robustness suite's run: "holds", or the tests it fell short in, with a
// link to its section.
func hostileCell(rep report.Report, t targets.Target) string {
	h, ok := rep.Robustness.Find(t.Name)
	if !ok {
		return "–"
	}
	link := "(results/ROBUSTNESS.md#" + t.Name + ")"
	var short []string
	for _, f := range h.Failed {
		short = append(short, f+" (failed)")
	}
	short = append(short, h.Deviations...)
	switch {
	case len(short) == 0 && len(h.Skipped) == 0:
		return "[holds]" + link
	case len(short) == 0:
		return fmt.Sprintf("[holds; %s not run]%s", strings.Join(h.Skipped, ", "), link)
	}
	return "[" + strings.Join(short, ", ") + "]" + link
}

// pickTable is the figures side of the choice: the stacks a reader can
// adopt, then the references.
func pickTable(rep, run report.Report) string {
	stacks, refs := pickRows(rep, run)
	if len(stacks) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| stack · HTTP/2 · TLS | [CPU per request](docs/glossary.md#cpu-per-request) at the [ceiling](docs/glossary.md#ceiling), over nginx's | cores at %s req/s | req/s held with p99 ≤ %s ([not the ceiling](docs/glossary.md#held-rate)) | memory per idle connection | HTTPS: TLS adds · a [full handshake](docs/glossary.md#full-handshake) costs | hostile clients |\n",
		num(float64(pickRate(run)), 0), sloText(run))
	b.WriteString("|---|--:|--:|--:|--:|--:|---|\n")
	row := func(r pickRow) {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", r.stack, r.ratio, r.cores, r.held, r.idle, r.https, r.hostile)
	}
	for _, r := range stacks {
		row(r)
	}
	if len(refs) > 0 {
		b.WriteString("| *[references](docs/glossary.md#reference)* | | | | | | |\n")
	}
	for _, r := range refs {
		row(r)
	}
	return b.String()
}

// sloText is the p99 bound of the run's search, as the table heads its
// column.
func sloText(run report.Report) string {
	if len(run.Capacity) == 0 {
		return "5 ms"
	}
	return num(run.Capacity[0].SLO/1000, 0) + " ms"
}

// runLine opens the pick section with the one run it shows: where, when,
// how long, and the command that makes it again.
func runLine(rep, run report.Report) string {
	s := run.Sections[report.PickSection]
	took := ""
	if s.Took > 0 {
		took = ", " + plural(int(math.Round(s.Took/60)), "minute")
	}
	quick := ""
	if s.Quick {
		quick = " **A quick smoke run: not for publishing.**"
	}
	return fmt.Sprintf("One run of `make bench` on %s, %s%s; every cell below but the range over hosts and the hostile clients comes from it, and `make bench` (`RATE=N` to price the cores at your rate) makes it again on your machine.%s\n\n",
		runHostName(rep, s), s.Date, took, quick)
}

// runHostName names the host a run was made on: its letter in the hosts
// table and its processor.
func runHostName(rep report.Report, s report.Section) string {
	m := s.Machine
	cpu := m.CPU
	if m.Family != "" {
		cpu = fmt.Sprintf("%s, family %s model %s", m.CPU, m.Family, m.Model)
	}
	if h := strings.TrimPrefix(runHost(rep, s), ", "); strings.HasPrefix(h, "host ") {
		return fmt.Sprintf("[%s](docs/glossary.md#host) (%s)", h, cpu)
	}
	return cpu
}

// notesLines are the lines under the table: what each column is, how
// sure, and the references' status.
func notesLines(rep, run report.Report) string {
	var b strings.Builder
	s := run.Sections[report.PickSection]
	aa := "–"
	if p, ok := report.Find(run.Ceilings, "nginx"+bench.TwinSuffix, string(bench.KeepAlive)); ok && p.CPUVsNginx != nil && p.CPUVsNginx.N > 0 {
		aa = fmt.Sprintf("±%s %%", num(100*p.CPUVsNginx.HalfWidth(), 1))
	}
	fmt.Fprintf(&b, "How sure: a ratio's interval is the 95 %% interval of its median over %s (keep-alive, 50 connections, each run beside a reference nginx); "+
		"nginx against itself (the [A/A row](docs/glossary.md#aa-row)) is within %s in this run. Two stacks under 5 %% apart are a [tie](docs/glossary.md#tie) for a choice.\n\n",
		plural(s.Rounds, "block"), aa)
	fmt.Fprintf(&b, "A request costs less as the rate rises (its wake-ups are shared among more requests), so the cores column is measured at %s req/s, not scaled: "+
		"price your own rate with `make bench RATE=N`, or read the ladder in [docs/load.md](docs/load.md). "+
		"The HTTPS column is TLS 1.3 with an ECDSA P-256 certificate: what keep-alive over TLS adds to the same stack's plaintext request, and a new connection's full handshake in keep-alive requests over TLS.\n\n",
		num(float64(pickRate(run)), 0))
	if r := rep.Robustness; r != nil {
		host := "a host not in the hosts table"
		for i, h := range rep.Hosts {
			if h.Key == r.Host {
				host = fmt.Sprintf("host %c", 'A'+i)
			}
		}
		size := "quick sizes"
		if r.Full {
			size = "full sizes"
		}
		fmt.Fprintf(&b, "Hostile clients: `make robust` (%s) on %s, %s: slow and never-reading clients, floods, resets; a stack named there falls short in that test.\n\n", size, host, r.Date)
	}
	b.WriteString("References:\n\n")
	for _, ref := range pickRefs {
		fmt.Fprintf(&b, "- **%s**: %s\n", ref.name, ref.status)
	}
	return b.String()
}

// PickShort is the README's section: the run, the table, and the lines
// under it; a line saying so when make bench has not run.
func PickShort(rep report.Report) string {
	if rep.Pick == nil {
		return "No `make bench` run is recorded yet: run it to make this table.\n"
	}
	t := pickTable(rep, *rep.Pick)
	if t == "" {
		return "The `make bench` run recorded measured no stack.\n"
	}
	return runLine(rep, *rep.Pick) + t + "\n" + notesLines(rep, *rep.Pick)
}

// PickShortfalls are the pick table's cells left unresolved, and how many
// blocks in all the run would need to resolve them, for the command's
// last lines: on a noisy host a run may keep too few blocks.
func PickShortfalls(run report.Report) []string {
	s := run.Sections[report.PickSection]
	blocks := s.Rounds
	// The time a ceiling block took, from go test's account of each.
	var perBlock float64
	for i, c := range s.Commands {
		if strings.Contains(c, "-bench Ceiling") && i < len(s.Durations) {
			perBlock += s.Durations[i] / float64(blocks)
		}
	}
	var lines []string
	for _, p := range run.Ceilings {
		if p.Mode != string(bench.KeepAlive) || p.CPUVsNginx == nil || p.CPUVsNginx.N == 0 || strings.Contains(p.Server, "/") {
			continue
		}
		r := *p.CPUVsNginx
		hw, target := r.HalfWidth(), ratioTarget(r.Median)
		var need int
		switch {
		case r.N < minKept:
			// Too few kept for an interval: the blocks that would keep
			// minKept at this run's rate of keeping them.
			need = int(math.Ceil(float64(blocks) * minKept / float64(max(r.N, 1))))
		case hw > target:
			// An interval narrows as the square root of the blocks kept.
			need = int(math.Ceil(float64(blocks) * (hw / target) * (hw / target)))
		default:
			continue
		}
		more := ""
		if perBlock > 0 {
			more = fmt.Sprintf(", about %s minutes more", num(math.Ceil(float64(need-blocks)*perBlock/60), 0))
		}
		width := "±" + num(100*hw, 1) + " %"
		if r.N < minKept {
			width = "no interval"
		}
		lines = append(lines, fmt.Sprintf("%s: ratio to nginx %s on %d of %d blocks kept, target ±%s %%: about %d blocks (-pick-blocks %d)%s",
			p.Server, width, r.N, blocks, num(100*target, 1), need, need, more))
	}
	return lines
}

// pickLoad is the load of make bench-load's blocks at a share of each
// stack's own ceiling: a quarter, where services commonly run.
const pickLoad = "25 %"

// pickLabel is the points of make bench-load at pickLoad.
const pickLabel = "of=25%"

// runHost names the recorded host a section's run was made on, by its
// letter in the hosts table ("host C"), or its processor where no host
// record matches: a table whose columns come from runs on two hosts says
// so.
func runHost(rep report.Report, s report.Section) string {
	key := report.HostKey(s.Machine)
	for i, h := range rep.Hosts {
		if h.Key == key {
			return fmt.Sprintf(", host %c", 'A'+i)
		}
	}
	m := s.Machine
	switch {
	case m.CPU == "":
		return ""
	case m.Family != "":
		return fmt.Sprintf(", on %s family %s model %s", m.CPU, m.Family, m.Model)
	}
	return ", on " + m.CPU
}
