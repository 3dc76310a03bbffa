package render

import (
	"fmt"
	"html"
	"regexp"
	"slices"
	"strings"

	"hellobench/bench/report"
)

// categoryColours are the categories' colours (report.Categories' order):
// Okabe and Ito's colour-blind-safe set, then grey for "other".
var categoryColours = []string{"#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000", "#BBBBBB"}

// loadName is a profile's load in words.
func loadName(load string) string {
	if share, ok := strings.CutPrefix(load, "of="); ok {
		return "at " + strings.TrimSuffix(share, "%") + " % of its ceiling"
	}
	return load
}

// ProfilesPage is docs/profiles.md's generated section: the CPU per
// request by category of every profile, the stacked bars, a flame graph
// per profile and the allocations by site; empty without the run.
func ProfilesPage(rep report.Report) string { return profiles(rep, "../results/") }

// ProfilesPart is REPORT.md's part on the profiles, beside their files.
func ProfilesPart(rep report.Report) string { return profiles(rep, "") }

// profiles is the profiles' section, its charts' links under dir.
func profiles(rep report.Report, dir string) string {
	p := rep.Profiles
	if p == nil {
		return ""
	}
	s := rep.Sections[report.ProfileSection]
	var b strings.Builder
	if s.Quick {
		b.WriteString("**A quick smoke run (two servers, short runs): not for publishing.**\n\n")
	}
	if len(p.Rows) > 0 {
		b.WriteString(ProfileTable(rep))
		if d := ProfileDelta(rep); d != "" {
			b.WriteString("\n" + d)
		}
		b.WriteString("\n![CPU per request by category, one bar per server and load](" + dir + "profile.svg)\n\n")
		b.WriteString("The flame graphs, one per profile (the folded stacks they are drawn from beside them, `.folded.gz`):\n\n")
		for _, r := range p.Rows {
			fmt.Fprintf(&b, "- %s %s: [flame graph](%s%s/%s)\n", r.Server, loadName(r.Load), dir, report.ProfileDir, strings.TrimSuffix(r.Folded, ".folded.gz")+".svg")
		}
		b.WriteString("\n")
	}
	if len(p.Allocs) > 0 {
		b.WriteString(AllocTables(rep))
	}
	fmt.Fprintf(&b, "_`bin/report -profile`, %s, one pass%s; the CPU profiles of one run each, the allocations from the in-memory benchmarks._\n", s.Date, runHost(rep, s))
	return b.String()
}

// ProfileTable is the CPU per request by category, a row per profile:
// µs per request in each category, their sum (the samples' total) and
// /proc's count over the same run.
func ProfileTable(rep report.Report) string {
	p := rep.Profiles
	if p == nil || len(p.Rows) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("| server | load | req/s | " + strings.Join(report.Categories, " | ") + " | sum | /proc | samples | one sample |\n")
	b.WriteString("|---|---|--:|" + strings.Repeat("--:|", len(report.Categories)+4) + "\n")
	for _, r := range p.Rows {
		cells := []string{r.Server, loadName(r.Load), num(r.ReqPerSec, 0)}
		for _, c := range r.Categories {
			cells = append(cells, num(c.USPerReq, 2))
		}
		cells = append(cells, "**"+num(r.Profiled(), 2)+"**", num(r.CPU, 2), num(float64(r.Samples), 0), num(r.Resolution(), 4))
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	b.WriteString("\nreq/s is the rate the server answered at while perf recorded; the rest is µs of the server's CPU time per request. Each sample is " + periodText(p) + " of CPU time; a category is its samples × the period ÷ the requests, " +
		"so the categories add up to the sum exactly, but for the rounding of each cell to 0.01 µs. " +
		"The profile's grain is one sample, the last column: a category is known to about its own square root of samples (a category of 100 samples to ±10 %). " +
		"The /proc column is the server's CPU per request counted by the kernel over the same run: the samples' sum should be near it.\n")
	return b.String()
}

// ProfileDelta is what a request costs more at a quarter of the ceiling
// than saturated, by category, a row per server profiled at both: the
// price of a request that arrives alone and pays its own wake-up.
func ProfileDelta(rep report.Report) string {
	p := rep.Profiles
	if p == nil {
		return ""
	}
	var rows []string
	for _, sat := range p.Rows {
		if sat.Load != "saturated" {
			continue
		}
		i := slices.IndexFunc(p.Rows, func(r report.ProfileRow) bool { return r.Server == sat.Server && r.Load != "saturated" })
		if i < 0 {
			continue
		}
		low := p.Rows[i]
		cells := []string{sat.Server}
		for k, c := range low.Categories {
			cells = append(cells, signed(c.USPerReq-sat.Categories[k].USPerReq))
		}
		cells = append(cells, "**"+signed(low.Profiled()-sat.Profiled())+"**")
		rows = append(rows, "| "+strings.Join(cells, " | ")+" |\n")
	}
	if len(rows) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("What a request costs more below the ceiling than at it: each category's µs per request at a quarter of the ceiling less saturated, from the same run. " +
		"Saturated, one wake-up and one wait for readiness serve many requests; at a quarter, a request more often arrives alone and pays them itself, " +
		"so the difference is mostly the scheduler's and the netpoller's (the wake-up) and the system calls around them. " +
		"Each cell is two profiles' difference, so its grain is the two rows' one sample added.\n\n")
	b.WriteString("| server | " + strings.Join(report.Categories, " | ") + " | sum |\n|---|" + strings.Repeat("--:|", len(report.Categories)+1) + "\n")
	for _, r := range rows {
		b.WriteString(r)
	}
	return b.String()
}

// signed is v to 0.01 with its sign.
func signed(v float64) string {
	if v >= 0 {
		return "+" + num(v, 2)
	}
	return "−" + num(-v, 2)
}

// periodText is the sampling period of the rows, "100 µs" (or every
// period, if they differ).
func periodText(p *report.Profiles) string {
	var ps []string
	for _, r := range p.Rows {
		if t := num(r.PeriodUS, 0) + " µs"; !slices.Contains(ps, t) {
			ps = append(ps, t)
		}
	}
	return strings.Join(ps, " or ")
}

// ProfileSVG is the stacked bars of the CPU per request by category, a
// bar per profile; empty without the run.
func ProfileSVG(rep report.Report) string {
	p := rep.Profiles
	if p == nil || len(p.Rows) == 0 {
		return ""
	}
	top := 96.0
	var s svg
	s.heading("CPU per request by category (perf, kernel and user)", "µs of the server's CPU time per request; one bar per server and load, from one run")
	most := 0.0
	for _, r := range p.Rows {
		most = max(most, r.Profiled())
	}
	ticks := linTicks(most)
	xs := axis{lo: 0, hi: ticks[len(ticks)-1], from: plotL + 40, to: barR + 120}
	// The legend: the categories in two rows.
	for i, c := range report.Categories {
		x, y := 10+float64(i%5)*180, 58+float64(i/5)*18
		s.add(`<rect x="%.1f" y="%.1f" width="12" height="12" fill="%s"/>`, x, y, categoryColours[i])
		s.text(x+17, y+10, "", c)
	}
	bottom := top + float64(len(p.Rows))*rowH
	s.xGrid(xs, ticks, func(v float64) string { return num(v, 0) }, top, bottom)
	for k, r := range p.Rows {
		y := top + float64(k)*rowH
		label := r.Server
		if r.Load != "saturated" {
			label = "¼ ceiling"
		}
		attrs := anchorEnd
		if r.Load == "saturated" {
			attrs += bold
		}
		s.text(xs.from-8, y+rowH/2+4, attrs, label)
		x := xs.from
		for i, c := range r.Categories {
			w := xs.at(c.USPerReq) - xs.from
			if w <= 0 {
				continue
			}
			s.add(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s</title></rect>`,
				x, y+3, w, rowH-6, categoryColours[i], html.EscapeString(fmt.Sprintf("%s %s, %s: %s µs/req", r.Server, r.Load, c.Category, num(c.USPerReq, 2))))
			x += w
		}
		s.text(x+6, y+rowH/2+4, "", num(r.Profiled(), 1)+" µs")
	}
	s.text(xs.from, bottom+32, dim, "bold: saturated (closed loop); ¼ ceiling: open loop at a quarter of its keep-alive ceiling")
	return s.done(bottom + 44)
}

// RuleList is docs/profiles.md's list of the rules that sort a sample
// into a category (report.CategoryRules), in the order they are tried.
func RuleList(report.Report) string {
	var b strings.Builder
	b.WriteString("| # | category | functions (regular expression on the name; `_[k]`: a kernel function) | what it catches |\n|--:|---|---|---|\n")
	for i, r := range report.CategoryRules {
		cat := r.Category
		if cat == "" {
			cat = "(passed to the caller)"
		}
		fmt.Fprintf(&b, "| %d | %s | `%s` | %s |\n", i+1, cat, pipes.ReplaceAllString(r.Pattern.String(), `\|`), r.Why)
	}
	return b.String()
}

// pipes are the | of a pattern, which a table cell must escape.
var pipes = regexp.MustCompile(`\|`)
