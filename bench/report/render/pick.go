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
// adopt: nginx, the project's own server on io_uring (no library anyone
// would adopt: it owns its HTTP), and the floors.
var pickRefs = []string{"nginx", "uring", "floor", "floor-uring"}

// handlers names the handlers each row's application is written as: the
// API a reader's code would be written against.
var handlers = map[string]string{
	"nethttp": "net/http", "chi": "net/http", "fcgi": "net/http",
	"gin": "gin", "echo": "echo", "fasthttp": "fasthttp", "fiber": "fiber", "hertz": "hertz", "nbio": "net/http",
	"gnet": "own HTTP", "uring": "own HTTP", "floor": "no parser", "floor-uring": "no parser", "nginx": "C",
}

// pickRate is the steady rate the pick table sizes a service at: the
// lowest of make bench-load's ladder, one every stack holds on one core.
const pickRate = 10000

// pickRow is one stack's cells in the pick table.
type pickRow struct {
	name, gets, ceiling, cores, held, idle, https string
}

// pickRows are the adoptable stacks' rows, then the references'.
func pickRows(rep report.Report) (stacks, refs []pickRow) {
	for _, s := range report.Order() {
		t, err := targets.Lookup(s)
		if err != nil || t.Kind != targets.Server || isRef(s) {
			continue
		}
		if r, ok := pickRowOf(rep, t); ok {
			stacks = append(stacks, r)
		}
	}
	for _, s := range pickRefs {
		if t, err := targets.Lookup(s); err == nil {
			if r, ok := pickRowOf(rep, t); ok {
				refs = append(refs, r)
			}
		}
	}
	return stacks, refs
}

func isRef(s string) bool { return slices.Contains(pickRefs, s) }

// pickRowOf is t's row, if its keep-alive ceiling was measured.
func pickRowOf(rep report.Report, t targets.Target) (pickRow, bool) {
	p, ok := report.Find(rep.Ceilings, t.Name, string(bench.KeepAlive))
	if !ok {
		return pickRow{}, false
	}
	return pickRow{name: t.Name, gets: getsOf(t), ceiling: ceilingCell(p) + hostsCell(rep, t.Name), cores: coresAt(rep, t.Name),
		held: heldCell(rep, t.Name), idle: idleCell(rep, t.Name), https: httpsCell(rep, t)}, true
}

// getsOf is what a stack gives an application: its handlers, and whether
// it serves HTTP/2 and TLS, each said either way so that a reader need not
// read an absence.
func getsOf(t targets.Target) string {
	h2, tls := "no h2", "no TLS"
	if t.H2 {
		h2 = "h2"
	}
	if t.TLS {
		tls = "TLS"
	}
	return handlers[t.Name] + " · " + h2 + " · " + tls
}

// ceilingCell is a keep-alive ceiling's CPU per request and its ratio to
// nginx, medians: "11.1 µs · 1.91×".
func ceilingCell(p report.Point) string {
	switch {
	case p.CPU.N == 0 || p.Label != "":
		return "no ceiling"
	case p.Server == "nginx":
		return fmt.Sprintf("%s µs · 1×", num(p.CPU.Median, 1))
	case p.CPUVsNginx == nil || p.CPUVsNginx.N == 0:
		return num(p.CPU.Median, 1) + " µs"
	}
	return fmt.Sprintf("%s µs · %s×", num(p.CPU.Median, 1), num(p.CPUVsNginx.Median, 2))
}

// hostsCell is the range of a stack's ratio to nginx over every host
// recorded, where more than one host measured it: a ratio is a property
// of a stack and a host.
func hostsCell(rep report.Report, server string) string {
	for _, r := range report.HostRanges(rep.Hosts) {
		if r.Stack == server && r.Hosts > 1 {
			return fmt.Sprintf(" (%s on %d hosts)", span(r.Lo, r.Hi), r.Hosts)
		}
	}
	return ""
}

// jsonLine says in a sentence what the JSON endpoint changes in the
// table, where the run measured it.
func jsonLine(rep report.Report) string {
	names := jsonServers(rep)
	if len(names) == 0 {
		return ""
	}
	return "JSON (`/json`, each stack's own encoder): " + jsonOrder(rep, names) + "\n\n"
}

// coresAt is the cores a stack's CPU at a steady pickRate keeps busy:
// its CPU per request there (make bench-load's ladder) times the rate.
func coresAt(rep report.Report, server string) string {
	l, ok := report.FindLat(rep.Load, server, fmt.Sprintf("r=%d", pickRate), report.CeilingConns)
	switch {
	case !ok:
		return "–"
	case l.FellOver > 0:
		return "fell over"
	case l.CPU == nil || l.CPU.N == 0:
		return "–"
	}
	return num(l.CPU.Median*pickRate/1e6, 2)
}

// heldCell is the highest rate a stack held with its p99 within make
// bench-load's bound, the median of the searches.
func heldCell(rep report.Report, server string) string {
	c, ok := report.FindCapacity(rep.Capacity, server)
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

// pickIdle is the idle connections the pick table prices memory at.
const pickIdle = 10000

// idleCell is the memory pickIdle idle connections add to a stack.
func idleCell(rep report.Report, server string) string {
	for _, i := range rep.Idle {
		if i.Server == server && i.Conns == pickIdle && i.PerConn.N > 0 {
			return mbText(i.PerConn.Median * pickIdle)
		}
	}
	return "–"
}

// mbText is a number of bytes in MB (MiB), to two significant digits.
func mbText(v float64) string {
	mb := v / (1 << 20)
	if mb >= 10 {
		return fmt.Sprintf("%.0f MB", roundTo(mb, 2))
	}
	return fmt.Sprintf("%.1f MB", mb)
}

// httpsCell is a stack's CPU per keep-alive request over TLS 1.3 and per
// request on a new connection with a full handshake (ECDSA P-256), or
// says it serves no TLS.
func httpsCell(rep report.Report, t targets.Target) string {
	if !t.TLS {
		return "no TLS"
	}
	ka, full := "–", "–"
	for _, r := range rep.TLS {
		switch {
		case r.Server != t.Name || r.Implied.N == 0:
		case r.Mode == string(bench.TLSKeepAlive):
			ka = num(r.CPU.Median, 1) + " µs"
		case r.Mode == string(bench.TLSFull):
			full = num(r.CPU.Median, 0) + " µs"
		}
	}
	if ka == "–" && full == "–" {
		return "–"
	}
	return ka + " · " + full
}

// pickTable is the figures side of the choice: the stacks a reader can
// adopt, then the references.
func pickTable(rep report.Report) string {
	stacks, refs := pickRows(rep)
	if len(stacks) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| stack | handlers · HTTP/2 · TLS | CPU/request · vs nginx | cores for %s req/s | req/s one core holds, p99 ≤ %s | memory, %s idle connections | HTTPS: CPU/request · full handshake |\n",
		num(pickRate, 0), sloText(rep), num(pickIdle, 0))
	b.WriteString("|---|---|--:|--:|--:|--:|--:|\n")
	row := func(r pickRow) {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", r.name, r.gets, r.ceiling, r.cores, r.held, r.idle, r.https)
	}
	for _, r := range stacks {
		row(r)
	}
	if len(refs) > 0 {
		b.WriteString("| *references* | | | | | | |\n")
	}
	for _, r := range refs {
		row(r)
	}
	return b.String()
}

// pickLoad is the load of make bench-load's blocks at a share of each
// stack's own ceiling: a quarter, where services commonly run.
const pickLoad = "25 %"

// pickLabel is the points of make bench-load at pickLoad.
const pickLabel = "of=25%"

// sloText is the p99 bound of make bench-load's search, as the pick table
// heads its column.
func sloText(rep report.Report) string {
	if len(rep.Capacity) == 0 {
		return "a bound"
	}
	return num(rep.Capacity[0].SLO/1000, 0) + " ms"
}

// actLine says where each figure's interval is, and how big a difference
// between two stacks is worth acting on, from the invocations of make
// bench (Report.Repeat).
func actLine(rep report.Report, docs string) string {
	where := "Each figure's interval is in " + docs + "."
	r := rep.Repeat
	if r == nil {
		return where + "\n"
	}
	first, last := slices.Min(r.Dates), slices.Max(r.Dates)
	on := ""
	if r.Hosts > 1 {
		on = fmt.Sprintf(" on %d hosts", r.Hosts)
	}
	return fmt.Sprintf("%s A difference under %.0f %% between two stacks is not worth acting on: the A/A twin's interval is ±%.1f %%, and a ratio to nginx moved by up to ±%.1f %% (%s) over %d invocations of make bench%s, %s to %s.\n",
		where, math.Ceil(100*r.Act()), 100*r.AA, 100*r.Moved, r.Server, len(r.Dates), on, first, last)
}

// runsLine names the runs the pick table comes from, in one line.
func runsLine(rep report.Report, versions string) string {
	var runs []string
	add := func(what, section, unit string) {
		if s, ok := rep.Sections[section]; ok {
			n := s.Rounds
			if s.Kept > 0 { // a stopping rule: the blocks it ran
				n = blocksIn(s)
			}
			runs = append(runs, fmt.Sprintf("%s %s (%s%s)", what, s.Date, plural(n, unit), runHost(rep, s)))
		}
	}
	add("ceilings", "ceilings", "block")
	add("load", "load", "round")
	if s := searchSection(rep); s.Date != "" {
		runs = append(runs, fmt.Sprintf("p99 search %s (%s%s)", s.Date, plural(s.Rounds, "round"), runHost(rep, s)))
	}
	add("idle", "sweep", "round")
	add("uring's idle", report.UringSection, "block")
	add("HTTPS", "tls-keepalive", "block")
	add("handshakes", "tls-handshake", "block")
	return "_Runs: " + strings.Join(runs, "; ") + "; the hosts by letter and the stacks' versions: " + versions + "._\n"
}

// mixedHosts warns, where the table's columns come from runs on more than
// one host, which columns come from which: hosts differ in speed (each
// host's nginx is its yardstick), so a column compares stacks, and two
// columns from two hosts do not compare with each other. "" when one host
// made them all.
func mixedHosts(rep report.Report) string {
	columns := []struct {
		name string
		s    report.Section
	}{
		{"CPU/request", rep.Sections["ceilings"]},
		{"cores", rep.Sections["load"]},
		{"req/s", searchSection(rep)},
		{"memory", rep.Sections["sweep"]},
		{"HTTPS", rep.Sections["tls-keepalive"]},
		{"handshake", rep.Sections["tls-handshake"]},
	}
	var hosts []string
	cols := map[string][]string{}
	for _, c := range columns {
		if c.s.Date == "" {
			continue
		}
		h := strings.TrimPrefix(runHost(rep, c.s), ", ")
		if h == "" {
			h = "a host not recorded"
		}
		if !slices.Contains(hosts, h) {
			hosts = append(hosts, h)
		}
		cols[h] = append(cols[h], c.name)
	}
	if len(hosts) < 2 {
		return ""
	}
	var parts []string
	for _, h := range hosts {
		parts = append(parts, strings.Join(cols[h], ", ")+" from "+h)
	}
	return "**Columns from more than one host**: " + strings.Join(parts, "; ") +
		". Hosts run at different speeds, so compare stacks within a column, not one column's figure with another's. "
}

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

// PickShort is the README's section: the table and three lines.
func PickShort(rep report.Report) string {
	t := pickTable(rep)
	if t == "" {
		return ""
	}
	return t + "\n" + actLine(rep, "[docs/ceilings.md](docs/ceilings.md), [docs/load.md](docs/load.md) and [bench/COSTS.md](bench/COSTS.md)") +
		"\n" + jsonLine(rep) + mixedHosts(rep) + runsLine(rep, "[results/REPORT.md](results/REPORT.md)")
}
