package render

import (
	"fmt"
	"slices"
	"strings"

	"hellobench/bench"
	"hellobench/bench/report"
)

// AgreeLoad sets make bench-load's figures of separate invocations side
// by side: each stack's CPU per request at a quarter of its ceiling as a
// ratio to nginx's, with its interval's half-width, and the rate held
// within the p99 bound, with the spread of the invocations' medians.
func AgreeLoad(dirs []string) (string, error) {
	reps, b, err := agreeIntro(dirs, "Cost at load repeated: separate invocations of make bench-load", "agree-load",
		report.LoadSection, "round", "make bench-load points", func(r report.Report) bool { return len(r.Load) > 0 })
	if err != nil {
		return "", err
	}
	if len(reps) < 2 {
		return b.String(), nil
	}
	if differ := ceilingsDiffer(sectionsOf(reps, report.LoadSection)); differ != "" {
		fmt.Fprintf(b, "\n**%s held the servers at shares of other keep-alive ceilings than the first (another run of make bench-ceilings): their rates are not the same loads as the first's.**\n", differ)
	}
	label := pickLabel
	fmt.Fprintf(b, "\n## CPU per request at %s of the ceiling, as a ratio to nginx's\n\n"+
		"Each cell is the ratio to nginx at %s of nginx's ceiling, paired round by round, %s, and its interval's half-width over the median.\n\n",
		pickLoad, pickLoad, interval(reps[0].Sections[report.LoadSection].Rounds))
	b.WriteString(agreeHead(len(reps), "medians' spread"))
	for _, server := range report.LatServers(reps[0].Load) {
		if server == "nginx" {
			continue
		}
		var cells []string
		var medians []float64
		for _, r := range reps {
			l, ok := report.FindLat(r.Load, server, label, report.CeilingConns)
			n, okN := report.FindLat(r.Load, "nginx", label, report.CeilingConns)
			if !ok || !okN || l.CPU == nil || n.CPU == nil {
				break
			}
			f := bench.Ratio(*l.CPU, *n.CPU)
			cells = append(cells, fmt.Sprintf("%s, ±%.1f %%", versus(&f), 100*halfWidth(f)))
			medians = append(medians, f.Median)
		}
		if len(cells) == len(reps) {
			fmt.Fprintf(b, "| %s | %s | ±%.1f %% |\n", server, strings.Join(cells, " | "), 100*halfWidth(bench.FigureOf(medians)))
		}
	}
	if len(reps[0].AtLoad) > 0 {
		agreeAtLoad(b, reps)
	}
	if len(reps[0].Capacity) > 0 {
		fmt.Fprintf(b, "\n## The rate held with p99 within %s µs\n\nEach cell is the rate in req/s, %s over the search's rounds; the last column is the invocations' medians' spread, half their range over their median, and whether it is within ±10 %%.\n\n",
			num(reps[0].Capacity[0].SLO, 0), interval(reps[0].Capacity[0].Rate.N))
		searches := make([]report.Section, len(reps))
		for i, r := range reps {
			searches[i] = searchSection(r)
		}
		b.WriteString("Each invocation's search (`make bench-load`'s, or `bin/report -capacity` run alone):\n\n")
		sectionDates(b, searches, "round", "none")
		if differ := ceilingsDiffer(searches); differ != "" {
			fmt.Fprintf(b, "\n**%s searched between shares of other keep-alive ceilings than the first's: the capacities are not comparable.**\n", differ)
		}
		b.WriteString("\n" + agreeHead(len(reps), "medians' spread"))
		var noisy []string
		for _, c := range reps[0].Capacity {
			var cells []string
			var medians []float64
			for _, r := range reps {
				if d, ok := report.FindCapacity(r.Capacity, c.Server); ok {
					cells, medians = append(cells, spread(d.Rate, 0)), append(medians, d.Rate.Median)
				}
			}
			if len(cells) == len(reps) {
				w := halfWidth(bench.FigureOf(medians))
				fmt.Fprintf(b, "| %s | %s | ±%.1f %% (%s) |\n", c.Server, strings.Join(cells, " | "), 100*w, yesNo(w <= 0.10))
				if w > 0.10 {
					noisy = append(noisy, c.Server)
				}
			}
		}
		if len(noisy) > 0 {
			fmt.Fprintf(b, "\n**Not within ±10 %%: %s.** The machine was too noisy for one search to find their rate: %s\n", strings.Join(noisy, ", "), hostStalls(reps))
		}
	}
	return b.String(), nil
}

// agreeAtLoad writes the ratios to nginx at a quarter of the ceiling from
// each invocation's blocks beside a reference nginx (Report.AtLoad).
func agreeAtLoad(b *strings.Builder, reps []report.Report) {
	fmt.Fprintf(b, "\n## CPU per request at %s of the ceiling, against the reference nginx beside it\n\nmake bench-load's blocks at %s of each ceiling, in each invocation:\n\n", pickLoad, pickLoad)
	sectionDates(b, sectionsOf(reps, report.AtLoadSection), "block", "none")
	fmt.Fprintf(b, "\nEach cell is the ratio to a reference nginx held at %s of its own ceiling right before and after the server, block by block over the blocks kept, %s, and its interval's half-width over the median. "+
		"The last column is the invocations' medians' spread, half their range over their median.\n\n", pickLoad, interval(reps[0].Sections[report.AtLoadSection].Rounds))
	if differ := ceilingsDiffer(sectionsOf(reps, report.AtLoadSection)); differ != "" {
		fmt.Fprintf(b, "**%s held the servers at a quarter of other keep-alive ceilings than the first's.**\n\n", differ)
	}
	b.WriteString(agreeHead(len(reps), "medians' spread"))
	for _, p := range reps[0].AtLoad {
		if p.Server == "nginx" {
			continue // the reference's own row: 1 by definition
		}
		agreeRow(b, p.Server, len(reps), func(i int) (*report.Figure, string) {
			q, _ := report.Find(reps[i].AtLoad, p.Server, p.Mode)
			if q.CPUVsNginx == nil {
				return nil, ""
			}
			return q.CPUVsNginx, versus(q.CPUVsNginx)
		}, nil)
	}
}

// agreeRow writes a server's line of a table with a column per invocation:
// in each, fig(i)'s figure as text says, with its few blocks and its
// interval's half-width, then more(i) where given; and the spread of the
// invocations' medians. A server measured in no invocation gets no line
// (the report says why).
func agreeRow(b *strings.Builder, server string, n int, fig func(i int) (*report.Figure, string), more func(i int) string) {
	var cells []string
	var medians []float64
	for i := range n {
		f, text := fig(i)
		if f == nil || f.N == 0 {
			cells = append(cells, "–")
			continue
		}
		cell := text + fewBlocks(*f)
		if f.N > 1 {
			cell += fmt.Sprintf(", ±%.1f %%", 100*f.HalfWidth())
		}
		if more != nil {
			cell += more(i)
		}
		cells, medians = append(cells, cell), append(medians, f.Median)
	}
	if len(medians) == 0 {
		return
	}
	last := "–"
	if len(medians) > 1 {
		last = fmt.Sprintf("±%.1f %%", 100*halfWidth(bench.FigureOf(medians)))
	}
	fmt.Fprintf(b, "| %s | %s | %s |\n", server, strings.Join(cells, " | "), last)
}

// sectionsOf is each report's section name (the zero Section where it
// has none).
func sectionsOf(reps []report.Report, name string) []report.Section {
	secs := make([]report.Section, len(reps))
	for i, r := range reps {
		secs[i] = r.Sections[name]
	}
	return secs
}

// searchSection is the run a report's search for the rate within the p99
// bound came from: bin/report -capacity's, else make bench-load's, of
// whose rounds the search ran in the first only.
func searchSection(r report.Report) report.Section {
	if s, ok := r.Sections[report.CapacitySection]; ok {
		return s
	}
	s, ok := r.Sections[report.LoadSection]
	if ok && len(r.Capacity) > 0 {
		s.Rounds = r.Capacity[0].Rate.N
	}
	return s
}

// sectionDates lists, invocation by invocation, when its section ran and
// in how many blocks or rounds (unit), or none where it did not.
func sectionDates(b *strings.Builder, secs []report.Section, unit, none string) {
	for i, s := range secs {
		if s.Date != "" {
			fmt.Fprintf(b, "- %d: %s, %s\n", i+1, s.Date, blocksRun(s, unit))
		} else {
			fmt.Fprintf(b, "- %d: %s\n", i+1, none)
		}
	}
}

// ceilingsDiffer names the invocations (by number) whose section ran on
// other -ceilings than the first's, "" if none did.
func ceilingsDiffer(secs []report.Section) string {
	first := flagArg(secs[0], "-ceilings")
	var differ []string
	for i, s := range secs[1:] {
		if flagArg(s, "-ceilings") != first {
			differ = append(differ, fmt.Sprint(i+2))
		}
	}
	switch len(differ) {
	case 0:
		return ""
	case 1:
		return "Invocation " + differ[0]
	}
	return "Invocations " + strings.Join(differ, " and ")
}

// hostStalls says how long the host's own stalls were at the load points
// of every invocation (the range of the points' medians): a search step
// whose second holds a few such stalls misses a p99 bound of a few
// milliseconds however fast the server.
func hostStalls(reps []report.Report) string {
	var p99, p999, most, held []float64
	for _, r := range reps {
		for _, c := range r.Capacity {
			if c.HostP99.N > 0 {
				held = append(held, c.HostP99.Median)
			}
		}
		if _, alone := r.Sections[report.CapacitySection]; alone {
			continue // its load points are of another invocation than its search
		}
		for _, l := range r.Load {
			if l.HostP99 != nil {
				p99, p999, most = append(p99, l.HostP99.Median), append(p999, l.HostP999.Median), append(most, l.HostMax.Median)
			}
		}
	}
	span := func(v []float64) string { return num(slices.Min(v), 0) + "–" + num(slices.Max(v), 0) + " µs" }
	var says []string
	if len(p99) > 0 {
		says = append(says, fmt.Sprintf("at the load points of the invocations whose search ran with them the host's own stalls (the stall meter's later CPU) reached p99 %s, p99.9 %s and at most %s", span(p99), span(p999), span(most)))
	}
	if len(held) > 0 {
		says = append(says, fmt.Sprintf("at the last step each search held, its stall p99 was %s", span(held)))
	}
	if len(says) == 0 {
		return "the host's stalls were not measured."
	}
	return strings.Join(says, "; ") + ". A step is one second, and it fails on one p99 over the bound: " +
		"a stall of a few milliseconds, or a queue it leaves behind, in a second at a rate the server holds can push it over, and the bisection then searches below that rate."
}

// agreeHead is the head of a table with a column per invocation.
func agreeHead(n int, last string) string {
	var b strings.Builder
	b.WriteString("| server |")
	for i := range n {
		fmt.Fprintf(&b, " %d |", i+1)
	}
	b.WriteString(" " + last + " |\n|---|" + strings.Repeat("--:|", n+1) + "\n")
	return b.String()
}

// halfWidth is half of f's interval over its median (for a few
// invocations' medians, below six, their range).
func halfWidth(f report.Figure) float64 {
	if f.Median == 0 {
		return 0
	}
	return (f.Hi - f.Lo) / 2 / f.Median
}

// agreeIntro reads the results of separate invocations in dirs, each of
// which must have what has, and heads the page: its title, the
// subcommand that made it (flag), and the invocations compared, those on another host than the
// first's listed apart and left out (sameHost). Fewer than two left: the
// page says so, and the caller has nothing more to write.
func agreeIntro(dirs []string, title, flag, section, unit, what string, has func(report.Report) bool) ([]report.Report, *strings.Builder, error) {
	reps, err := report.ReadReports(dirs)
	if err != nil {
		return nil, nil, err
	}
	for i, r := range reps {
		if !has(r) {
			return nil, nil, fmt.Errorf("%s: no %s", dirs[i], what)
		}
	}
	b := new(strings.Builder)
	fmt.Fprintf(b, "# %s\n\nGenerated by `bin/report %s`; do not edit. %s\n\n", title, flag, invocationsNote)
	kept, keptDirs, other := sameHost(reps, dirs, section, unit)
	for i, r := range kept {
		s := r.Sections[section]
		fmt.Fprintf(b, "- %d: `%s`, %s, %s, %s\n", i+1, keptDirs[i], s.Date, hostOf(s.Machine), plural(s.Rounds, unit))
	}
	leftOut(b, len(kept), other)
	return kept, b, nil
}

// sameHost splits the invocations into those run on the first one's host
// (hostGroups' first group), with their directories, and a line for each
// of the others: two hosts' figures are two figures, not one measured
// twice.
func sameHost(reps []report.Report, dirs []string, section, unit string) (kept []report.Report, keptDirs, other []string) {
	for gi, g := range hostGroups(reps, section) {
		for _, i := range g {
			if gi > 0 {
				other = append(other, invocationLine(dirs[i], reps[i].Sections[section], unit))
				continue
			}
			kept, keptDirs = append(kept, reps[i]), append(keptDirs, dirs[i])
		}
	}
	return kept, keptDirs, other
}

// invocationLine names one invocation: its directory, date, host and blocks.
func invocationLine(dir string, s report.Section, unit string) string {
	return fmt.Sprintf("`%s`, %s, %s, %s", dir, s.Date, hostOf(s.Machine), plural(s.Rounds, unit))
}

// leftOut lists the invocations sameHost left out and, with fewer than two
// kept, says there is nothing to compare.
func leftOut(b *strings.Builder, kept int, other []string) {
	if len(other) > 0 {
		b.WriteString("\nLeft out, run on another host than the first:\n\n- " + strings.Join(other, "\n- ") + "\n")
	}
	if kept < 2 {
		b.WriteString("\nOnly one invocation ran on this host: nothing to compare. The same bench with AGAIN=2, then AGAIN=3, on this host makes the others.\n")
	}
}
