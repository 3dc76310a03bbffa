package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"hellobench/bench/report"
	"hellobench/bench/report/render"
)

// root is the module root, from this package's directory.
const root = "../../.."

// committed reads the results the documents cite.
func committed(t *testing.T) report.Report {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "results", "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep report.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("results/results.json: %v", err)
	}
	if rep.Clients, err = report.ReadClients(filepath.Join(root, "results", "clients.json")); err != nil {
		t.Fatal(err)
	}
	if rep.Hosts, err = report.ReadHosts(filepath.Join(root, "results")); err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestDocumentsMatchResults renders every generated section from
// results/results.json and compares it with the document: a figure changed
// by hand, or results changed without their documents, fails here.
func TestDocumentsMatchResults(t *testing.T) {
	rep := committed(t)
	docs := append([]document{}, documents...)
	for _, d := range docs {
		b, err := os.ReadFile(filepath.Join(root, d.path))
		if err != nil {
			t.Fatal(err)
		}
		want, err := d.splice(string(b), rep)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(b); got != want {
			t.Errorf("%s: a generated section differs from results/results.json at:\n%s\n(make bench -docs regenerates them; never edit them by hand)", d.path, firstDiff(got, want))
		}
	}
	b, err := os.ReadFile(filepath.Join(root, "results", "REPORT.md"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), render.Markdown(rep, reportParts); got != want {
		t.Errorf("results/REPORT.md differs from results/results.json at:\n%s", firstDiff(got, want))
	}
}

// firstDiff shows the first line where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return "line " + itoa(i+1) + ":\n  document: " + g[i] + "\n  results:  " + w[i]
		}
	}
	return "the documents differ in length"
}

func itoa(i int) string { return strconv.Itoa(i) }

// measured matches what reads like a measured figure: a number with a unit
// of time, rate, size or a ratio.
var measured = regexp.MustCompile(`\b\d+(\.\d+)?\s?(µs|ms|req/s|KB|MB|KiB|×)|\b[0-2]\.\d\d\b`)

// TestNoHandTypedFigures checks that outside their generated sections the
// documents (the README, every page under docs/ and bench/COSTS.md) state mechanisms, not measurements: prose that needs a figure
// refers to a generated table.
func TestNoHandTypedFigures(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no pages under docs/: %v", err)
	}
	paths := pages
	for _, d := range documents {
		paths = append(paths, filepath.Join(root, d.path))
	}
	slices.Sort(paths)
	for _, path := range slices.Compact(paths) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := filepath.Rel(root, path)
		for n, line := range handWritten(string(b)) {
			if m := measured.FindString(line); m != "" && !allowed(line) {
				t.Errorf("%s:%d: %q looks like a hand-typed measurement; generate it from the results: %s", name, n, m, line)
			}
		}
	}
}

// handWritten returns the lines outside generated sections and code
// blocks, by line number.
func handWritten(text string) map[int]string {
	lines := map[int]string{}
	inSection, inCode := false, false
	for i, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "<!-- begin generated: "):
			inSection = true
		case strings.HasPrefix(line, "<!-- end generated: "):
			inSection = false
		case strings.HasPrefix(line, "```"):
			inCode = !inCode
		case !inSection && !inCode:
			lines[i+1] = line
		}
	}
	return lines
}

// allowed lists settings, limits and versions that read like figures but
// are not measurements: a tick, a wait bound, a size limit, a Go version,
// the latency points' CPU sampling period and the stall meter's sleep.
func allowed(line string) bool {
	for _, ok := range []string{"20 µs", "100 ms tick", "8 KiB", "Go 1.22", "64 MiB", "every 20 ms", "sleep 1 ms", "5 ms by default"} {
		if strings.Contains(line, ok) {
			return true
		}
	}
	return false
}

// TestLinks checks every relative link of the pages a reader reads (the
// README, docs/, bench/COSTS.md, results/*.md): the file it names exists,
// from the page's own folder, and so does the heading its anchor names. A
// page moved, renamed or retitled breaks here, not in a reader's browser.
func TestLinks(t *testing.T) {
	for _, p := range readPages(t) {
		for _, e := range brokenLinks(p, openRoot) {
			t.Error(e)
		}
	}
}

// TestPageTargets checks that every make target the pages name is one
// make help lists, and every PART= or WHAT= one its target takes.
func TestPageTargets(t *testing.T) {
	known, tools := knownTargets(t), makeTools(t)
	for _, p := range readPages(t) {
		for _, e := range unknownTargets(p, known, tools) {
			t.Error(e)
		}
	}
}

// TestTablesAgree checks that two tables of the pages under one heading
// and caption never show one column and row label with different figures.
func TestTablesAgree(t *testing.T) {
	for _, e := range disagreements(readPages(t)) {
		t.Error(e)
	}
}

// TestOneRunPerSection holds every generated section to one invocation:
// one drawing on runs of more than one must compare them on purpose or
// say at its head why it joins them, and a section that says so must
// still join them (its note is otherwise stale).
func TestOneRunPerSection(t *testing.T) {
	rep := committed(t)
	for _, d := range documents {
		for name, sec := range d.sections {
			runs := render.RunKeys(rep, sec.from)
			switch {
			case sec.compares:
			case len(runs) > 1 && sec.joins == "":
				t.Errorf("%s, section %s: draws on %d invocations (%s) without comparing them: a page tells one run", d.path, name, len(runs), strings.Join(runs, ", "))
			case len(runs) <= 1 && sec.joins != "":
				t.Errorf("%s, section %s: says it joins runs, but draws on %d", d.path, name, len(runs))
			}
		}
	}
}

// TestRunsHead checks a section's opening line: one run named by its
// target, date and host; runs joined, with the reason; none for a
// section of no run.
func TestRunsHead(t *testing.T) {
	m := report.Machine{CPU: "AMD EPYC", Vendor: "AuthenticAMD", Family: "26", Model: "2"}
	rep := report.Report{Sections: map[string]report.Section{
		report.LoadSection:   {Date: "2026-12-05 02:01 UTC", Invocation: "a", Machine: m},
		report.AtLoadSection: {Date: "2026-12-05 02:30 UTC", Invocation: "a", Machine: m},
		report.SweepSection:  {Date: "2026-12-05 03:00 UTC", Machine: m},
	}}
	if got := render.RunsHead(rep, []string{report.LoadSection, report.AtLoadSection}, false, ""); got != "_One run: `make bench-load`, 2026-12-05 02:01 UTC, AMD EPYC, family 26 model 2._\n" {
		t.Errorf("one invocation's two files: %q", got)
	}
	got := render.RunsHead(rep, []string{report.LoadSection, report.SweepSection}, false, "Why.")
	if got != "_Runs of 2 invocations: `make bench-load`, 2026-12-05 02:01 UTC, AMD EPYC, family 26 model 2; `make bench-sweep`, 2026-12-05 03:00 UTC, AMD EPYC, family 26 model 2. Why._\n" {
		t.Errorf("two invocations: %q", got)
	}
	if got := render.RunsHead(rep, nil, false, ""); got != "" {
		t.Errorf("no run: %q", got)
	}
}
