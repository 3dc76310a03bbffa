package render

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"hellobench/bench/report"
)

// HostsSection is every recorded host side by side: each stack's
// keep-alive CPU per request over nginx's on each, the range over hosts,
// and which orderings hold on every host.
func HostsSection(rep report.Report) string {
	if len(rep.Hosts) == 0 {
		return "No host recorded (results/hosts/hosts.json lists none).\n"
	}
	var b strings.Builder
	b.WriteString("Each stack's keep-alive CPU per request over nginx's, on each host recorded under results/hosts: " +
		"the median of the host's invocations, in brackets the lowest and highest bound of their intervals; " +
		"the range over hosts runs from the lowest to the highest median of any one invocation. " +
		"nginx's own CPU per request is each host's yardstick.\n\n")
	b.WriteString(hostsTable(rep.Hosts, nil))
	b.WriteString("\n" + hostsLegend(rep.Hosts) + "\n" + orderings(rep.Hosts) + "\n" + hostsSplit(rep.Hosts))
	b.WriteString("\nWhy the ratios move, and a model that predicts one host's from another's: bench/COSTS.md, section 11.\n")
	return b.String()
}

// HostModel is the model's account of why the ratios move between hosts
// (report.Predict): each host's user and kernel factors and how well they
// predict its stacks, against carrying another host's ratios over.
func HostModel(hosts []report.Host) string {
	models := report.Predict(hosts)
	letter := func(key string) string {
		return string(rune('A' + slices.IndexFunc(hosts, func(h report.Host) bool { return h.Key == key })))
	}
	var b, rows strings.Builder
	b.WriteString("Why the ratios move: a request's CPU is the server's own code (user time) and the kernel's work for it (kernel time), " +
		"and each host runs the two at its own speed. The model gives a host one factor for each, the same for every stack, " +
		"solved from its nginx and its epoll floor (almost all kernel time) alone, and predicts every stack's ratio to nginx there " +
		"from the user and kernel time that stack spent on the host that recorded the split. Its error is set against the simplest prediction: " +
		"the split host's ratios carried over unchanged.\n\n")
	b.WriteString("| host | predicted from | user factor | kernel factor | model's error, mean (worst) | carried over, mean (worst) |\n|---|---|--:|--:|--:|--:|\n")
	predicted := 0
	var beats, fails []string
	for _, m := range models {
		if m.Why != "" {
			fmt.Fprintf(&b, "| %s | – (%s) | – | – | – | – |\n", letter(m.Key), m.Why)
			continue
		}
		mean, worst, cmean, cworst := m.Errors()
		from := "host " + letter(m.From)
		if m.InSample {
			from = "itself (in sample: a fit, not a test)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s %% (%s %%) | %s %% (%s %%) |\n", letter(m.Key), from, num(m.User, 2), num(m.Kernel, 2),
			num(mean, 1), num(worst, 1), num(cmean, 1), num(cworst, 1))
		if !m.InSample {
			predicted++
			if mean < cmean {
				beats = append(beats, letter(m.Key))
			} else {
				fails = append(fails, letter(m.Key))
			}
			for _, r := range m.Rows {
				fmt.Fprintf(&rows, "| %s | %s | %s | %s | %s |\n", letter(m.Key), r.Stack, num(r.Measured, 2), num(r.Model, 2), num(r.Carried, 2))
			}
		}
	}
	if predicted > 0 {
		b.WriteString("\n" + modelVerdict(beats, fails) + "\n")
		b.WriteString("\nEach stack's ratio to nginx on a host predicted from another's split, measured beside the model's and beside the split host's own:\n\n" +
			"| host | stack | measured | model | carried over |\n|---|---|--:|--:|--:|\n" + rows.String())
	}
	return b.String()
}

// modelVerdict says in words whether the model predicts: on which hosts
// its mean error is below that of the ratios carried over, and on which
// not.
func modelVerdict(beats, fails []string) string {
	hosts := func(ls []string) string {
		return plural(len(ls), "host") + " (" + strings.Join(ls, ", ") + ")"
	}
	switch {
	case len(fails) == 0:
		return fmt.Sprintf("The model predicts better than the ratios carried over on every host it predicts, %s.", hosts(beats))
	case len(beats) == 0:
		return fmt.Sprintf("**The model does not predict:** on every host it predicts, %s, carrying the other host's ratios over unchanged does as well or better. "+
			"A ratio's range over the hosts recorded (docs/ceilings.md) is the better guide to another machine.", hosts(fails))
	}
	return fmt.Sprintf("**The model does not predict in general:** it beats the ratios carried over on %s but not on %s, "+
		"so a ratio's range over the hosts recorded (docs/ceilings.md), not the model, is the guide to another machine.", hosts(beats), hosts(fails))
}

// hostsSplit is the split check of each host's runs that recorded it.
func hostsSplit(hosts []report.Host) string {
	var b strings.Builder
	for i, h := range hosts {
		for _, r := range h.Runs {
			if r.Split.Rows > 0 {
				fmt.Fprintf(&b, "Host %c, %s: %s", 'A'+i, r.Date, splitText(r.Split))
			}
		}
	}
	if b.Len() == 0 {
		return "User and kernel time per request: not recorded by any host's runs (read from cgroup v1's cpuacct.usage_user and usage_sys since 2026-12-06).\n"
	}
	return b.String()
}

// hostsTable is a row per stack, a column per host (and the user's run
// first, where there is one), then the range over hosts.
func hostsTable(hosts []report.Host, run *report.HostRun) string {
	var b strings.Builder
	b.WriteString("| stack |")
	sep := "|---|"
	if run != nil {
		b.WriteString(" this run |")
		sep += "--:|"
	}
	for i := range hosts {
		fmt.Fprintf(&b, " host %c |", 'A'+i)
		sep += "--:|"
	}
	b.WriteString(" range over hosts |\n" + sep + "--:|\n")
	b.WriteString("| nginx, µs per request |")
	if run != nil {
		b.WriteString(" " + num(run.Nginx.Median, 2) + " |")
	}
	glo, ghi := 0.0, 0.0
	for i, h := range hosts {
		lo, hi := h.Yardstick()
		if i == 0 || lo < glo {
			glo = lo
		}
		ghi = max(ghi, hi)
		b.WriteString(" " + span(lo, hi) + " |")
	}
	fmt.Fprintf(&b, " %s (%s) |\n", span(glo, ghi), plural(len(hosts), "host"))
	for _, r := range report.HostRanges(hosts) {
		b.WriteString("| " + r.Stack + " |")
		if run != nil {
			b.WriteString(" " + hostRatioCell(run.Ratios[r.Stack]) + " |")
		}
		for _, h := range hosts {
			cell := "–"
			if f, ok := h.Ratio(r.Stack); ok {
				cell = num(f.Median, 2) + " (" + num(f.Lo, 2) + "–" + num(f.Hi, 2) + ")"
			}
			b.WriteString(" " + cell + " |")
		}
		fmt.Fprintf(&b, " %s (%d of %d) |\n", span(r.Lo, r.Hi), r.Hosts, len(hosts))
	}
	return b.String()
}

// hostRatioCell is one run's ratio with its interval, or a dash.
func hostRatioCell(f report.Figure) string {
	if f.N == 0 {
		return "–"
	}
	return num(f.Median, 2) + " (" + num(f.Lo, 2) + "–" + num(f.Hi, 2) + ")"
}

// span is a range, or one figure where it is one.
func span(lo, hi float64) string {
	if num(lo, 2) == num(hi, 2) {
		return num(lo, 2)
	}
	return num(lo, 2) + "–" + num(hi, 2)
}

// hostsLegend says what each host is: what its runs recorded of the
// machine, and "not recorded" for the rest.
func hostsLegend(hosts []report.Host) string {
	var b strings.Builder
	for i, h := range hosts {
		m := h.Machine
		dates := []string{}
		for _, r := range h.Runs {
			dates = append(dates, r.Date)
		}
		fmt.Fprintf(&b, "- **host %c** (`%s`): %s; %s; %s; family %s, model %s, stepping %s, microcode %s; %s; %s: %s.\n",
			'A'+i, h.Key, orNotRecorded(m.CPU), orNotRecorded(m.Kernel), syscallText(m.SyscallNS),
			orNotRecorded(m.Family), orNotRecorded(m.Model), orNotRecorded(m.Stepping), orNotRecorded(m.Microcode),
			mitigationsText(m), plural(len(h.Runs), "invocation"), strings.Join(dates, ", "))
	}
	return b.String()
}

func orNotRecorded(s string) string {
	if s == "" {
		return "not recorded"
	}
	return s
}

func syscallText(ns float64) string {
	if ns == 0 {
		return "system call cost not recorded"
	}
	return "a system call " + num(ns, 0) + " ns"
}

func mitigationsText(m report.Machine) string {
	switch {
	case len(m.Mitigations) > 0:
		return plural(len(m.Mitigations), "mitigation") + " in force"
	case m.SyscallNS > 0:
		return "no mitigation in force"
	}
	return "mitigations not recorded"
}

// orderings says in words which orderings hold on every host by more than
// the spread across hosts, and which flip.
func orderings(hosts []report.Host) string {
	groups, flips := report.Orderings(hosts)
	if len(groups) == 0 {
		return "No stack was measured on every host.\n"
	}
	var parts []string
	for _, g := range groups {
		parts = append(parts, strings.Join(g, ", "))
	}
	var b strings.Builder
	if len(hosts) == 1 {
		b.WriteString("One host recorded: no ordering can yet be said to hold across hosts.")
	} else {
		fmt.Fprintf(&b, "On each of the %d hosts, cheapest first, every interval of a group lies below every one of the next's: %s. "+
			"Within a group the difference is smaller than the spread across hosts or a host's own interval, and is not a ranking.", len(hosts), strings.Join(parts, " < "))
	}
	if len(flips) == 0 {
		b.WriteString(" No two stacks measured on every host swap places between hosts.")
	} else {
		var fs []string
		for _, f := range flips {
			fs = append(fs, f[0]+"/"+f[1])
		}
		fmt.Fprintf(&b, " Swapping places between hosts: %s.", strings.Join(fs, ", "))
	}
	if missing := notEverywhere(hosts); len(missing) > 0 {
		fmt.Fprintf(&b, " Not measured on every host, so not ordered: %s.", strings.Join(missing, ", "))
	}
	return b.String() + "\n"
}

// notEverywhere is the stacks some host lacks.
func notEverywhere(hosts []report.Host) []string {
	var out []string
	for _, r := range report.HostRanges(hosts) {
		if r.Hosts < len(hosts) && !slices.Contains(out, r.Stack) {
			out = append(out, r.Stack)
		}
	}
	return out
}

// CompareDir is the run in dir (its bench.txt) beside the hosts recorded
// under the results directory results.
func CompareDir(dir, results string) (string, error) {
	file := filepath.Join(dir, "bench.txt")
	if err := report.Stat(file); err != nil {
		return "", fmt.Errorf("%s holds no run: no bench.txt there (make bench-ceilings writes one)", dir)
	}
	run, m, err := report.ReadHostRun(file)
	if err != nil {
		return "", err
	}
	hosts, err := report.ReadHosts(results)
	if err != nil {
		return "", err
	}
	return Compare(run, m, hosts), nil
}

// Compare is a run's ratios beside every recorded host's, and its split
// check.
func Compare(run report.HostRun, m report.Machine, hosts []report.Host) string {
	var b strings.Builder
	fmt.Fprintf(&b, "This run: %s, %s (host key %s); nginx %s µs per keep-alive request.\n\n", run.Date, orNotRecorded(m.CPU), report.HostKey(m), num(run.Nginx.Median, 2))
	b.WriteString(hostsTable(hosts, &run))
	for s := range run.Ratios {
		if !slices.ContainsFunc(report.HostRanges(hosts), func(r report.HostRange) bool { return r.Stack == s }) {
			fmt.Fprintf(&b, "| %s | %s |%s\n", s, hostRatioCell(run.Ratios[s]), strings.Repeat(" – |", len(hosts)+1))
		}
	}
	b.WriteString("\n" + hostsLegend(hosts) + "\n" + splitText(run.Split) + "\n" + runModel(run, hosts))
	return b.String()
}

// runModel is the model's prediction of a run beside its measured ratios.
func runModel(run report.HostRun, hosts []report.Host) string {
	m := report.PredictRun(run, hosts)
	if m.Why != "" {
		return "The model (bench/COSTS.md, section 11) has no prediction for this run: " + m.Why + ".\n"
	}
	letter := slices.IndexFunc(hosts, func(h report.Host) bool { return h.Key == m.From })
	from := "this run's own split (a fit, not a test)"
	if !m.InSample && letter >= 0 {
		from = fmt.Sprintf("host %c's split", 'A'+letter)
	}
	mean, worst, cmean, cworst := m.Errors()
	var b strings.Builder
	fmt.Fprintf(&b, "The model's prediction for this run (bench/COSTS.md, section 11), from its nginx and floor and %s: user factor %s, kernel factor %s; "+
		"error %s %% on average (worst %s %%), against %s %% (worst %s %%) for that host's ratios carried over.\n\n",
		from, num(m.User, 2), num(m.Kernel, 2), num(mean, 1), num(worst, 1), num(cmean, 1), num(cworst, 1))
	b.WriteString("| stack | this run | model | carried over |\n|---|--:|--:|--:|\n")
	for _, r := range m.Rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.Stack, num(r.Measured, 2), num(r.Model, 2), num(r.Carried, 2))
	}
	return b.String()
}

// splitText says whether the run's user and kernel time add up to its
// total, flagging each benchmark where not.
func splitText(c report.SplitCheck) string {
	if c.Rows == 0 {
		return "User and kernel time: not recorded in this run.\n"
	}
	if len(c.Off) == 0 {
		return fmt.Sprintf("User + kernel time within %s %% of the total in all %s.\n", num(report.SplitTolerance, 0), plural(c.Rows, "benchmark"))
	}
	var off []string
	for _, k := range slices.Sorted(maps.Keys(c.Off)) {
		off = append(off, fmt.Sprintf("%s (%s %%)", k, num(c.Off[k], 1)))
	}
	return fmt.Sprintf("User + kernel time within %s %% of the total in %d of %s; flagged: %s.\n",
		num(report.SplitTolerance, 0), c.Rows-len(c.Off), plural(c.Rows, "benchmark"), strings.Join(off, ", "))
}
