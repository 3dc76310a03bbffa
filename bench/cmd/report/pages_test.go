package main

import (
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"hellobench/internal/targets"
)

// This file holds the checks of the pages a reader reads: each a function
// over their text, so that a test can show it failing on a small bad page.

// A page is one markdown file: its path from the module root, and text.
type page struct {
	path, text string
}

// mdLink matches an inline markdown link or image: its target and fragment.
var mdLink = regexp.MustCompile(`\]\(([^)#\s]*)(#[^)\s]*)?\)`)

// brokenLinks returns an error line for every relative link of p that
// names no file or no heading of it: open returns the file of a path from
// the module root (its text when it is markdown) and whether there is one.
// A URL is not checked.
func brokenLinks(p page, open func(name string) (string, bool)) []string {
	var errs []string
	for _, m := range mdLink.FindAllStringSubmatch(prose(p.text), -1) {
		target, frag := m[1], strings.TrimPrefix(m[2], "#")
		if strings.Contains(target, ":") {
			continue // a URL or mailto
		}
		if f, err := url.PathUnescape(frag); err == nil {
			frag = f
		}
		name := p.path
		if target != "" {
			name = path.Join(path.Dir(p.path), target)
		}
		text, ok := open(name)
		switch {
		case !ok:
			errs = append(errs, fmt.Sprintf("%s: a link to %s, which does not exist", p.path, target))
		case frag != "" && strings.HasSuffix(name, ".md") && !slices.Contains(anchors(text), frag):
			errs = append(errs, fmt.Sprintf("%s: a link to %s#%s, which has no heading of that anchor", p.path, target, frag))
		}
	}
	return errs
}

// heading matches an ATX heading's text; anchorTag an HTML anchor's id.
var (
	heading   = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	anchorTag = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
	inlineURL = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	emphasis  = regexp.MustCompile(`(^|[^\p{L}\p{N}])_+([^_]+?)_+([^\p{L}\p{N}]|$)`)
)

// anchors returns the fragments a page's headings get on a code host, in
// GitHub's way: the heading's text as rendered, lower-cased, every
// character but letters, digits, spaces, hyphens and underscores dropped,
// spaces made hyphens, and -1, -2, ... after a repeated one; and the ids of
// its HTML anchors.
func anchors(text string) []string {
	var out []string
	seen := map[string]int{}
	for _, line := range strings.Split(prose(text), "\n") {
		for _, m := range anchorTag.FindAllStringSubmatch(line, -1) {
			out = append(out, m[1])
		}
		m := heading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		s := inlineURL.ReplaceAllString(m[1], "$1")
		s = emphasis.ReplaceAllString(s, "$1$2$3")
		s = strings.NewReplacer("`", "", "*", "").Replace(s)
		var b strings.Builder
		for _, r := range strings.ToLower(s) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r):
				b.WriteRune(r)
			}
		}
		slug := b.String()
		if n := seen[slug]; n > 0 {
			out = append(out, fmt.Sprintf("%s-%d", slug, n))
		} else {
			out = append(out, slug)
		}
		seen[slug]++
	}
	return out
}

// prose is text with its fenced code blocks blanked, lines kept.
func prose(text string) string {
	lines := strings.Split(text, "\n")
	in := false
	for i, l := range lines {
		fence := strings.HasPrefix(strings.TrimSpace(l), "```")
		if fence || in {
			lines[i] = ""
		}
		if fence {
			in = !in
		}
	}
	return strings.Join(lines, "\n")
}

// A makeTargets is what make accepts: each target with, for a variable
// that picks among fixed words (PART, WHAT), the words it takes.
type makeTargets map[string]map[string][]string

// helpLine is a line of make help: a target and its description.
var helpLine = regexp.MustCompile(`^  ([a-zA-Z][a-zA-Z0-9/_.-]*)\s{2,}(.*)$`)

// choice is a variable that takes one of several words in a description.
var choice = regexp.MustCompile(`\b([A-Z]+)=([a-z0-9-]+(?:\|[a-z0-9-]+)+)`)

// parseHelp reads make help's output: serve-NAME becomes serve-X for each
// X of names. A line naming a variable (AGAIN=N) is not a target.
func parseHelp(help string, names []string) makeTargets {
	known := makeTargets{"help": nil}
	for _, line := range strings.Split(help, "\n") {
		m := helpLine.FindStringSubmatch(line)
		if m == nil || strings.Contains(m[1], "=") || m[1] == "variables" {
			continue
		}
		vars := map[string][]string{}
		for _, c := range choice.FindAllStringSubmatch(m[2], -1) {
			vars[c[1]] = strings.Split(c[2], "|")
		}
		known[m[1]] = vars
		if base, ok := strings.CutSuffix(m[1], "NAME"); ok {
			for _, n := range names {
				known[base+n] = vars
			}
		}
	}
	return known
}

// makeCall matches make and what follows it on the line: variables and
// a target.
var makeCall = regexp.MustCompile(`\bmake((?:\s+[A-Z_]+=\S*)*)\s+([a-zA-Z][a-zA-Z0-9/_.%-]*[a-zA-Z0-9])((?:\s+[A-Z_]+=[^\s()` + "`" + `]*)*)`)

// unknownTargets returns an error line for every make target p names that
// known lacks, and for every PART= or WHAT= word its target does not take.
// In code (a code span or block) every make call counts; in prose only one
// whose target has a hyphen (make bench-tls), so that "make sure" is prose.
func unknownTargets(p page, known makeTargets, tools []string) []string {
	var errs []string
	for _, part := range codeAndProse(p.text) {
		for _, m := range makeCall.FindAllStringSubmatch(part.text, -1) {
			target := m[2]
			if !part.code && !strings.Contains(target, "-") {
				continue
			}
			vars, ok := known[target]
			if tool, isBin := strings.CutPrefix(target, "bin/"); isBin {
				ok = slices.Contains(tools, tool)
			}
			if !ok {
				errs = append(errs, fmt.Sprintf("%s: make %s: no such target in make help", p.path, target))
				continue
			}
			for _, a := range strings.Fields(m[1] + " " + m[3]) {
				name, value, _ := strings.Cut(strings.TrimRight(a, ".,;:"), "=")
				words, fixed := vars[name]
				// PART=a|b names each of a and b.
				for _, v := range strings.Split(value, "|") {
					if fixed && !slices.Contains(words, v) {
						errs = append(errs, fmt.Sprintf("%s: make %s %s: %s takes %s", p.path, target, a, name, strings.Join(words, "|")))
						break
					}
				}
			}
		}
	}
	return errs
}

// A span is a stretch of a page, code or prose.
type span struct {
	text string
	code bool
}

// codeAndProse splits a page into its code (each code block and code span
// a span, a span may cross lines within its paragraph) and its prose.
func codeAndProse(text string) []span {
	var out []span
	var prose, block strings.Builder
	in := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			if in {
				out = append(out, span{block.String(), true})
				block.Reset()
			}
			in = !in
			prose.WriteString("\n")
			continue
		}
		if in {
			block.WriteString(l + "\n")
			l = ""
		}
		prose.WriteString(l + "\n")
	}
	var rest strings.Builder
	for _, para := range strings.Split(prose.String(), "\n\n") {
		for i, s := range strings.Split(para, "`") {
			if i%2 == 1 {
				out = append(out, span{s, true})
			} else {
				rest.WriteString(s + "\n")
			}
		}
	}
	return append(out, span{rest.String(), false})
}

// A cell is one figure of a table, where it stands.
type cell struct {
	where, value string
}

// disagreements returns an error line for every column label and row
// label that two tables of pages under the same heading and caption show
// with different figures. The heading and the caption, the line above a
// table, say its condition and unit (a mode, a load, a ratio or µs):
// tables under two of them answer two questions. Only a table whose first column labels its rows counts
// (its first cells all words, none repeated); a cell with no digit or a
// "–" is not a figure.
func disagreements(pages []page) []string {
	seen := map[[4]string]cell{}
	var errs []string
	for _, p := range pages {
		for _, t := range tables(p.text) {
			if !rowLabelled(t.rows) {
				continue
			}
			for _, row := range t.rows {
				for i := 1; i < min(len(row.cells), len(t.header)); i++ {
					v := norm(row.cells[i])
					if v == "–" || !strings.ContainsAny(v, "0123456789") {
						continue
					}
					key := [4]string{norm(t.heading), norm(t.caption), norm(t.header[i]), norm(row.cells[0])}
					here := cell{fmt.Sprintf("%s:%d", p.path, row.line), v}
					if prev, ok := seen[key]; !ok {
						seen[key] = here
					} else if prev.value != v {
						errs = append(errs, fmt.Sprintf("%s and %s: %q, row %q: %s against %s", prev.where, here.where, key[2], key[3], prev.value, v))
					}
				}
			}
		}
	}
	return errs
}

// A table is a markdown table's heading (the nearest above it), caption
// (the line above it), header and rows.
type table struct {
	heading string
	caption string
	header  []string
	rows    []tableRow
}

// A tableRow is a row's cells and its line, counted from 1.
type tableRow struct {
	cells []string
	line  int
}

// separator matches a table's line under its header.
var separator = regexp.MustCompile(`^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$`)

// tables returns the markdown tables of text, outside code blocks.
func tables(text string) []table {
	lines := strings.Split(prose(text), "\n")
	var out []table
	head := ""
	for i := 0; i+1 < len(lines); i++ {
		if heading.MatchString(lines[i]) {
			head = lines[i]
		}
		if !strings.HasPrefix(lines[i], "|") || !separator.MatchString(lines[i+1]) {
			continue
		}
		t := table{heading: head, header: cells(lines[i])}
		for k := i - 1; k >= 0 && !strings.HasPrefix(lines[k], "|"); k-- {
			if strings.TrimSpace(lines[k]) != "" {
				t.caption = lines[k]
				break
			}
		}
		for i += 2; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
			t.rows = append(t.rows, tableRow{cells(lines[i]), i + 1})
		}
		out = append(out, t)
	}
	return out
}

// cells splits a table line into its cells, trimmed.
func cells(line string) []string {
	parts := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
	}
	return parts
}

// rowLabelled reports whether a table's first column labels its rows:
// each first cell has a letter, and none repeats.
func rowLabelled(rows []tableRow) bool {
	var labels []string
	for _, r := range rows {
		l := norm(r.cells[0])
		if !strings.ContainsFunc(l, unicode.IsLetter) || slices.Contains(labels, l) {
			return false
		}
		labels = append(labels, l)
	}
	return len(labels) > 0
}

// norm folds runs of white space, the thin and no-break spaces of
// figures too, into one space.
func norm(s string) string {
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
}

// TestBrokenLinksFails shows the link check failing: a missing page, a
// missing heading, and a heading whose anchor is GitHub's slug pass.
func TestBrokenLinksFails(t *testing.T) {
	p := page{"README.md", "# hellobench\n\n[a](docs/load.md#load-make-bench-load) [b](docs/load.md#what-one-core-holds-p99-1) [c](results/)\n" +
		"[d](docs/lod.md) [e](docs/load.md#load) [f](#top) [g](https://example.org/x#y) [h](#hellobench) [i](docs/load.md#the_rate-µs)\n```\n[j](nowhere.md)\n```\n"}
	pages := map[string]string{
		"README.md":    p.text,
		"docs/load.md": "# Load: `make bench-load`\n\n## What *one* core holds, p99\n\n## What one core holds, p99\n\n### The_rate (_µs_)\n",
		"results":      "",
	}
	open := func(name string) (string, bool) { text, ok := pages[name]; return text, ok }
	got := brokenLinks(p, open)
	want := []string{
		"README.md: a link to docs/lod.md, which does not exist",
		"README.md: a link to docs/load.md#load, which has no heading of that anchor",
		"README.md: a link to #top, which has no heading of that anchor",
	}
	if !slices.Equal(got, want) {
		t.Errorf("brokenLinks:\n%q\nwant\n%q", got, want)
	}
}

// TestUnknownTargetsFails shows the target check failing: an unknown
// target in code and in prose, a word PART does not take; a known target
// with its variables, serve-NAME, bin/TOOL and prose that only says
// "make" pass.
func TestUnknownTargetsFails(t *testing.T) {
	help := "  serve-NAME       serve it\n  bench-tls        TLS; PART=keepalive|handshakes\n  bench            ceilings\n" +
		"  AGAIN=N          once more\n  variables        CPU=0\n"
	known := parseHelp(help, []string{"nethttp", "nginx"})
	p := page{"docs/x.md", "`make bench-tls AGAIN=2 PART=keepalive` and `make FORCE=1 bench` and `make serve-nginx TLS=1`, `make\nbin/loadgen`;\n" +
		"the stacks make more calls; make bench-tls-again runs it; `make serve-fasthttp`; `make bench-tls PART=keepalive|handshakes`; (make bench-tls PART=handshakes), make bench-tls PART=keepalive.\n```\nmake bench-tls PART=rsa\nmake help\n```\n"}
	got := unknownTargets(p, known, []string{"loadgen"})
	want := []string{
		"docs/x.md: make bench-tls PART=rsa: PART takes keepalive|handshakes",
		"docs/x.md: make serve-fasthttp: no such target in make help",
		"docs/x.md: make bench-tls-again: no such target in make help",
	}
	if !slices.Equal(got, want) {
		t.Errorf("unknownTargets:\n%q\nwant\n%q", got, want)
	}
}

// TestDisagreementsFails shows the table check failing: two tables under
// one heading and caption with the same column and row labels and
// different figures. White space, "–", words, a table under another
// caption and one whose first column is not a label pass.
func TestDisagreementsFails(t *testing.T) {
	a := page{"docs/a.md", "## At 25 %\n\n| stack | CPU µs | note |\n|---|--:|---|\n| nethttp | 21.41 (20.78–21.77) | fast |\n| gin | 6.02 | – |\n"}
	b := page{"docs/b.md", "## At 25 %\n\n| stack | CPU  µs | note |\n|---|---|---|\n| nethttp | 19.73 (18.68–20.08) | slow |\n| gin | – | – |\n" +
		"\n| connections | CPU µs |\n|--:|--:|\n| 1 | 30.1 |\n| 50 | 19.0 |\n"}
	c := page{"docs/c.md", "## At 25 %\n\nKeep-alive:\n\n| stack | CPU µs |\n|---|---|\n| gin | 5.00 |\n| nethttp | 19.73\u2009(18.68–20.08) |\n" +
		"\n## At 25 %\n\n| stack | CPU µs |\n|---|---|\n| gin | 6.02 |\n"}
	got := disagreements([]page{a, b, c})
	want := []string{`docs/a.md:5 and docs/b.md:5: "CPU µs", row "nethttp": 21.41 (20.78–21.77) against 19.73 (18.68–20.08)`}
	if !slices.Equal(got, want) {
		t.Errorf("disagreements:\n%q\nwant\n%q", got, want)
	}
}

// readPages reads the pages a reader reads: the README, docs/*.md,
// bench/COSTS.md and results/*.md, by path from the module root.
func readPages(t *testing.T) []page {
	t.Helper()
	var names []string
	for _, pattern := range []string{"README.md", "docs/*.md", "bench/COSTS.md", "results/*.md"} {
		m, err := globRoot(pattern)
		if err != nil || len(m) == 0 {
			t.Fatalf("no page %s: %v", pattern, err)
		}
		names = append(names, m...)
	}
	var pages []page
	for _, n := range names {
		b, err := os.ReadFile(path.Join(root, n))
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, page{n, string(b)})
	}
	return pages
}

// knownTargets runs make help in the module root and reads its targets,
// serve-NAME for every target of the table.
func knownTargets(t *testing.T) makeTargets {
	t.Helper()
	cmd := exec.Command("make", "--no-print-directory", "-s", "help")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("make help: %v", err)
	}
	return parseHelp(string(out), targets.Names())
}

// makeTools reads the Makefile's TOOLS, the bin/TOOL targets.
func makeTools(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(path.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^TOOLS\s*:?=\s*(.*)$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("Makefile: no TOOLS line")
	}
	return strings.Fields(string(m[1]))
}

// globRoot is filepath.Glob from the module root, the names relative to it.
func globRoot(pattern string) ([]string, error) {
	m, err := filepath.Glob(filepath.Join(root, pattern))
	for i := range m {
		m[i], _ = filepath.Rel(root, m[i])
	}
	return m, err
}

// openRoot reads a path from the module root: its text when it is a
// markdown file, and whether it exists.
func openRoot(name string) (string, bool) {
	fi, err := os.Stat(filepath.Join(root, name))
	if err != nil {
		return "", false
	}
	if fi.IsDir() || !strings.HasSuffix(name, ".md") {
		return "", true
	}
	b, err := os.ReadFile(filepath.Join(root, name))
	return string(b), err == nil
}
