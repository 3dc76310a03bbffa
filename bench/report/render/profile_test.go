package render

import (
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"hellobench/bench/report"
)

// recordedProfiles is the report of the quick run recorded under
// bench/report/testdata/profile: nethttp and nginx profiled, net/http's
// and fasthttp's allocations.
func recordedProfiles(t *testing.T) report.Report {
	t.Helper()
	var rep report.Report
	if err := report.AddProfile(&rep, "../testdata/profile/profile.txt", "../testdata/profile/profiles"); err != nil {
		t.Fatal(err)
	}
	return rep
}

// wellFormed fails t unless doc parses as XML to its end.
func wellFormed(t *testing.T, doc string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(doc))
	for {
		_, err := d.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
	}
}

func TestProfilesPage(t *testing.T) {
	rep := recordedProfiles(t)
	page := ProfilesPage(rep)
	for _, want := range []string{
		"**A quick smoke run (two servers, short runs): not for publishing.**",
		// 1205 samples of 100 µs over 14 693 requests: 8.20 µs; all
		// 2789: 18.98; one sample 0.0068 (num groups from 10 000).
		"| nethttp | saturated | " + num(48977, 0) + " | 8.20 | 1.61 | 2.00 | 0.66 | 3.68 | 0.26 | 1.69 | 0.29 | 0.59 | **18.98** | 19.20 | 2789 | 0.0068 |",
		"| nginx | saturated | 7437 | 6.86 | 1.34 | 0.67 | 0.00 | 0.27 | 0.04 | 0.45 | 0.00 | 2.91 | **12.55** | 12.75 | 280 | 0.0448 |",
		"Each sample is 100 µs of CPU time",
		// nethttp at a quarter less saturated: 84 of 230 samples over 568
		// requests less 1205 of 2789 over 14 693, and so on.
		"| nethttp | +6.59 | +0.68 | +10.15 | −0.66 | +2.13 | −0.08 | +2.35 | −0.11 | +0.46 | **+21.51** |",
		"- nethttp at 25 % of its ceiling: [flame graph](../results/profiles/nethttp_of25.svg)",
		"![CPU per request by category, one bar per server and load](../results/profile.svg)",
		"| `net/http.Header.Clone` | `net/http.(*response).WriteHeader` | 448 | 3.00 |",
		"**fasthttp**: 0 B and 0.00 allocations per request at the sites listed",
		"fasthttp reuses one `RequestCtx` per connection",
		"_`bin/report -profile`, ",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page has no %q:\n%s", want, page)
		}
	}
	if ProfilesPage(report.Report{}) != "" || ProfileSVG(report.Report{}) != "" || AllocTables(report.Report{}) != "" {
		t.Error("results without the run render something")
	}
}

func TestProfileSVG(t *testing.T) {
	doc := ProfileSVG(recordedProfiles(t))
	wellFormed(t, doc)
	// A rectangle per category with samples, each with its tooltip: 9
	// for nethttp saturated, 7 at a quarter (no GC, and routing and the
	// handler with one sample each still draw), nginx 7 and 7.
	if n := strings.Count(doc, "<title>nethttp saturated, "); n != 9 {
		t.Errorf("nethttp saturated has %d categories drawn, want 9", n)
	}
	if n := strings.Count(doc, "<title>nginx saturated, "); n != 7 {
		t.Errorf("nginx saturated has %d categories drawn, want 7", n)
	}
	if !strings.Contains(doc, "<title>nethttp saturated, kernel TCP: 8.20 µs/req</title>") || !strings.Contains(doc, ">19.0 µs</text>") {
		t.Error("nethttp saturated's kernel TCP tooltip or its total label is missing")
	}
}

func TestRuleList(t *testing.T) {
	list := RuleList(report.Report{})
	if n := strings.Count(list, "\n"); n != len(report.CategoryRules)+2 {
		t.Errorf("%d lines, want a header, a rule and a line per rule (%d)", n, len(report.CategoryRules)+2)
	}
	if !strings.Contains(list, "| 5 | (passed to the caller) | `^runtime\\.(?:mallocgc") {
		t.Errorf("the allocation rule is not fifth, passing to the caller:\n%s", list)
	}
	for _, line := range strings.Split(strings.TrimSpace(list), "\n") {
		// Every | inside a pattern is escaped: four cells a row.
		if cells := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|"); cells != 5 {
			t.Errorf("a row of %d cells, want 4: %s", cells-1, line)
		}
	}
}

func TestLifeOfARequest(t *testing.T) {
	var rep report.Report
	if err := report.AddTrace(&rep, "../testdata/trace/trace.txt", "../testdata/trace/traces"); err != nil {
		t.Fatal(err)
	}
	page := LifeOfARequest(rep)
	for _, want := range []string{
		"### nethttp\n\n11 requests traced; per request, on average (calls of half a request or more): `nanosleep` 4.18, `futex` 2.27, `epoll_pwait` 2.18, `read` 2.18, `write` 1.00, `rt_sigprocmask` 0.55.",
		"([the whole trace](../results/traces/nethttp.strace))",
		"| 189 | A | `read` | 110 | 44 | reads the request (110 bytes) |",
		"| 548 | A | `read` | -1 EAGAIN (Resource temporarily unavailable) | 24 | reads again and finds nothing",
		"```mermaid\nsequenceDiagram\n    participant K as kernel\n    participant A as thread A\n    participant B as thread B\n    K-->>A: epoll_pwait returns 1 (woken)\n    A->>K: futex → 1\n",
		"### uring\n",
		"_`bin/report -trace`, 2026-12-08 00:18 UTC",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page has no %q:\n%s", want, page)
		}
	}
	if LifeOfARequest(report.Report{}) != "" {
		t.Error("results without the run render something")
	}
}
