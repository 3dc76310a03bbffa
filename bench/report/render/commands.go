package render

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"hellobench/bench/report"
)

// runs names the make invocation that writes each section: the whole
// run, and the part that writes it alone, if there is one.
var runs = map[string][2]string{
	report.PickSection:         {"make bench", ""},
	report.CeilingsSection:     {"make bench-ceilings", ""},
	report.SweepSection:        {"make bench-sweep", ""},
	report.ScaleSection:        {"make bench-scale", ""},
	report.WorkSection:         {"make bench-work", ""},
	report.LatencySection:      {"make bench-latency", ""},
	report.LoadSection:         {"make bench-load", ""},
	report.AtLoadSection:       {"make bench-load", "PART=at-load"},
	report.CapacitySection:     {"make bench-load", "PART=capacity"},
	report.WhySection:          {"make bench-load", "PART=why"},
	report.ProfileSection:      {"make bench-profile", ""},
	report.TraceSection:        {"make bench-profile", ""},
	report.ReadinessSection:    {"make bench-readiness", ""},
	report.TLSSection:          {"make bench-tls", ""},
	report.TLSKeepAliveSection: {"make bench-tls", "PART=keepalive"},
	report.TLSHandshakeSection: {"make bench-tls", "PART=handshakes"},
	report.NewConnSection:      {"make bench-load PART=newconn", ""},
	report.MinWaitSection:      {"make bench-load PART=min-wait", ""},
	report.UringSection:        {"make bench-work PART=uring", ""},
	report.ProtocolsSection:    {"make bench-tls", "PART=h3"},
}

// CommandList is REPORT.md's list of the go test commands of each section
// in sections: each command once, a block's number replaced by K and the
// blocks it ran listed beside it.
func CommandList(rep report.Report, sections []string) string {
	var b strings.Builder
	b.WriteString("Each section's go test commands, run from the repository root block by block: a command run in several blocks is listed once, with `-block K` and its blocks. " +
		"The raw output of each section is the .txt file of its name beside this report (bench.txt for the ceilings), or that file gzip-compressed (.txt.gz), which bin/report reads as it is; `benchstat old.txt new.txt` compares two runs (`gunzip -k` first).\n")
	for _, name := range sections {
		s, ok := rep.Sections[name]
		if !ok || len(s.Commands) == 0 {
			continue
		}
		file := name + ".txt"
		if name == report.CeilingsSection {
			file = "bench.txt"
		}
		fmt.Fprintf(&b, "\n%s, %s, %s:\n\n```\n", file, runLabel(name), s.Date)
		for _, g := range groupBlocks(s.Commands) {
			b.WriteString(g + "\n")
		}
		b.WriteString("```\n")
	}
	return b.String()
}

// runLabel is the make invocations that write a section, in backquotes.
func runLabel(name string) string {
	r, ok := runs[name]
	switch {
	case !ok:
		return "`bin/report`"
	case r[1] == "":
		return "`" + r[0] + "`"
	}
	return "`" + r[0] + "` or `" + r[0] + " " + r[1] + "`"
}

// blockArg is a command's block number.
var blockArg = regexp.MustCompile(`( -block )(\d+)( |$)`)

// groupBlocks lists each command once, in the order of its first run: a
// command run for several blocks with -block K and its blocks in a
// comment, one without a block run several times with their count, one
// run once as it is.
func groupBlocks(cmds []string) []string {
	var order []string
	blocks := map[string][]int{}
	times := map[string]int{}
	for _, c := range cmds {
		key, k := c, -1
		if m := blockArg.FindStringSubmatch(c); m != nil {
			key = blockArg.ReplaceAllString(c, "${1}K${3}")
			k, _ = strconv.Atoi(m[2])
		}
		if _, seen := blocks[key]; !seen {
			order = append(order, key)
			blocks[key] = nil
		}
		if k >= 0 {
			blocks[key] = append(blocks[key], k)
		}
		times[key]++
	}
	var out []string
	for _, key := range order {
		switch ks := blocks[key]; len(ks) {
		case 0:
			if n := times[key]; n > 1 {
				key += fmt.Sprintf("  # %d times", n)
			}
			out = append(out, key)
		case 1:
			out = append(out, strings.Replace(key, " -block K", " -block "+strconv.Itoa(ks[0]), 1))
		default:
			out = append(out, key+"  # K: "+spans(ks))
		}
	}
	return out
}

// spans writes block numbers as runs: 0–25, 27, 30–32.
func spans(ks []int) string {
	ks = slices.Clone(ks)
	slices.Sort(ks)
	ks = slices.Compact(ks)
	var parts []string
	for i := 0; i < len(ks); {
		j := i
		for j+1 < len(ks) && ks[j+1] == ks[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(ks[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d–%d", ks[i], ks[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// RunsHead opens a generated section with the runs it shows: each run's
// make target, date and host, so that a reader knows which one invocation
// a page tells. A section whose job is to compare runs says so; one that
// joins runs it shows apart says why. "" for a section of no run.
func RunsHead(rep report.Report, from []string, compares bool, joins string) string {
	if compares {
		return "_Sets the recorded runs side by side, each named in its row._\n"
	}
	var named, seen []string
	for _, name := range from {
		s, ok := rep.Sections[name]
		if !ok || slices.Contains(seen, runKey(s)) {
			continue
		}
		seen = append(seen, runKey(s))
		target := "bin/report"
		if r, ok := runs[name]; ok {
			target = strings.TrimSpace(r[0] + " " + r[1])
		}
		named = append(named, fmt.Sprintf("`%s`, %s, %s", target, s.Date, hostPlain(rep, s)))
	}
	switch {
	case len(named) == 0:
		return ""
	case len(named) == 1:
		return "_One run: " + named[0] + "._\n"
	}
	return "_Runs of " + plural(len(named), "invocation") + ": " + strings.Join(named, "; ") + ". " + strings.TrimSuffix(joins, ".") + "._\n"
}

// runKey tells invocations apart: the invocation a file names, or, in a
// file from before files named theirs, its date.
func runKey(s report.Section) string {
	if s.Invocation != "" {
		return s.Invocation
	}
	return s.Date
}

// RunKeys are the invocations the sections from show, one each.
func RunKeys(rep report.Report, from []string) []string {
	var keys []string
	for _, name := range from {
		if s, ok := rep.Sections[name]; ok && !slices.Contains(keys, runKey(s)) {
			keys = append(keys, runKey(s))
		}
	}
	return keys
}

// hostPlain names a run's host by its letter and processor, with no link:
// the line opens sections of pages in several folders.
func hostPlain(rep report.Report, s report.Section) string {
	m := s.Machine
	cpu := m.CPU
	if m.Family != "" {
		cpu = fmt.Sprintf("%s, family %s model %s", m.CPU, m.Family, m.Model)
	}
	if cpu == "" {
		cpu = "a processor not recorded"
	}
	if h := strings.TrimPrefix(runHost(rep, s), ", "); strings.HasPrefix(h, "host ") {
		return h + " (" + cpu + ")"
	}
	return cpu
}
