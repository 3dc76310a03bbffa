package render

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"hellobench/bench/report"
)

// LifeOfARequest is docs/life-of-a-request.md's generated section: for
// each traced server, the system calls of one request in order, a
// sequence diagram of them, and its calls per request; empty without
// the run.
func LifeOfARequest(rep report.Report) string {
	if len(rep.Traces) == 0 {
		return ""
	}
	s := rep.Sections[report.TraceSection]
	var b strings.Builder
	if s.Quick {
		b.WriteString("**A quick smoke run: not for publishing.**\n\n")
	}
	for _, t := range rep.Traces {
		fmt.Fprintf(&b, "### %s\n\n", t.Server)
		fmt.Fprintf(&b, "%s traced; per request, on average (calls of half a request or more): %s. One request, the middle one, call by call ([the whole trace](../results/%s/%s)):\n\n",
			plural(t.Requests, "request"), perRequest(t), report.TraceDir, t.File)
		b.WriteString("| µs | thread | call | result | took µs | what it is |\n|--:|---|---|---|--:|---|\n")
		for _, c := range t.Calls {
			fmt.Fprintf(&b, "| %s | %s | `%s` | %s | %s | %s |\n", num(c.AtUS, 0), c.Thread, c.Name, strings.ReplaceAll(c.Result, "|", `\|`), num(c.TookUS, 0), c.What)
		}
		b.WriteString("\n" + sequence(t) + "\n")
	}
	fmt.Fprintf(&b, "_`bin/report -trace`, %s%s; strace stops the server at every call, so the times are strace's, far slower than the server's own: the order of the calls and which thread makes them are the trace's news, not their µs._\n",
		s.Date, runHost(rep, s))
	return b.String()
}

// perRequest lists t's calls per request of half a call or more, the
// most first.
func perRequest(t report.Trace) string {
	names := slices.Collect(maps.Keys(t.PerRequest))
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(t.PerRequest[b], t.PerRequest[a]), strings.Compare(a, b))
	})
	var parts []string
	for _, n := range names {
		if v := t.PerRequest[n]; v >= 0.5 {
			parts = append(parts, fmt.Sprintf("`%s` %s", n, num(v, 2)))
		}
	}
	return strings.Join(parts, ", ")
}

// sequence is a Mermaid sequence diagram of t's request: each thread and
// the kernel, a wake-up an arrow from the kernel, a call one to it.
func sequence(t report.Trace) string {
	var b strings.Builder
	b.WriteString("```mermaid\nsequenceDiagram\n    participant K as kernel\n")
	var threads []string
	for _, c := range t.Calls {
		if !slices.Contains(threads, c.Thread) {
			threads = append(threads, c.Thread)
		}
	}
	slices.Sort(threads)
	for _, th := range threads {
		fmt.Fprintf(&b, "    participant %s as thread %s\n", th, th)
	}
	for _, c := range t.Calls {
		result := strings.NewReplacer(";", ",", "#", "").Replace(c.Result)
		if strings.HasPrefix(c.What, "wakes from") || strings.HasPrefix(c.What, "a sleeping thread") || strings.HasPrefix(c.What, "wakes when") {
			fmt.Fprintf(&b, "    K-->>%s: %s returns %s (woken)\n", c.Thread, c.Name, result)
			continue
		}
		fmt.Fprintf(&b, "    %s->>K: %s → %s\n", c.Thread, c.Name, result)
	}
	b.WriteString("```\n")
	return b.String()
}
