package main

import (
	"bytes"
	"flag"
	"io"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"hellobench/bench/report"
)

// TestPartTable checks that every part has a flag, section and file of
// its own, a count flag that exists, and that the flags that also run it
// are parts.
func TestPartTable(t *testing.T) {
	o, err := parsed()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, p := range parts {
		for _, key := range []string{"flag " + p.flag, "section " + p.section, "file " + p.file} {
			if prev, dup := seen[key]; dup {
				t.Errorf("-%s: %s is -%s's too", p.flag, key, prev)
			}
			seen[key] = p.flag
		}
		if p.flag == "" || p.section == "" || p.file == "" || p.usage == "" || p.plan == nil {
			t.Errorf("-%s: a row without its flag, section, file, usage or plan: %+v", p.flag, p)
		}
		if o.fs.Lookup(p.count) == nil {
			t.Errorf("-%s: its count -%s is no flag", p.flag, p.count)
		}
		for _, by := range p.by {
			if !slices.ContainsFunc(parts, func(q part) bool { return q.flag == by }) {
				t.Errorf("-%s: run by -%s, which is no part", p.flag, by)
			}
		}
	}
	// report.Read reads every section but the min-wait one, which
	// report.AddMinWait reads.
	got := slices.Sorted(maps.Keys(files("results")))
	want := []string{report.AtLoadSection, report.CapacitySection, report.CeilingsSection, report.LatencySection,
		report.LoadSection, report.NewConnSection, report.ProtocolsSection, report.ReadinessSection,
		report.ScaleSection, report.SweepSection, report.TLSSection, report.TLSHandshakeSection,
		report.TLSKeepAliveSection, report.UringSection, report.WhySection, report.WorkSection}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("report.Read's sections %q, want %q", got, want)
	}
	if f := files("results")[report.CeilingsSection]; f != "results/bench.txt" {
		t.Errorf("the ceilings' file is %q, want results/bench.txt", f)
	}
}

// TestUsage checks that report -h names every flag, every subcommand and
// every make target and part.
func TestUsage(t *testing.T) {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	var b bytes.Buffer
	fs.SetOutput(&b)
	o := newOptions(fs)
	usage(o)
	text := b.String()
	n := 0
	fs.VisitAll(func(f *flag.Flag) {
		n++
		if !strings.Contains(text, "  -"+f.Name+" ") && !strings.Contains(text, "  -"+f.Name+"\n") {
			t.Errorf("usage does not name -%s", f.Name)
		}
	})
	if n < 50 {
		t.Errorf("%d flags: fewer than the parts and their counts", n)
	}
	for name := range comparisons {
		if !strings.Contains(text, "report "+name+" ") {
			t.Errorf("usage does not name the subcommand %s", name)
		}
	}
	for _, r := range makeRuns {
		if !strings.Contains(text, "  "+r.target+" ") || (r.part != "" && !strings.Contains(text, "-part "+r.part+" ")) {
			t.Errorf("usage does not name make %s PART=%s", r.target, r.part)
		}
	}
}

// TestMakeRunsParse checks that every make run's flags are report's, with
// and without AGAIN where it takes it.
func TestMakeRunsParse(t *testing.T) {
	for _, r := range makeRuns {
		for _, again := range []string{"", "2"} {
			if (again == "" && r.againOnly) || (again != "" && !r.takesAgain()) {
				continue
			}
			if _, err := parsed("-make", r.target, "-part", r.part, "-again", again); err != nil {
				t.Errorf("make %s PART=%s AGAIN=%s: %v", r.target, r.part, again, err)
			}
		}
	}
}

// TestCompareArgs checks the subcommands' one-line errors and exit codes.
func TestCompareArgs(t *testing.T) {
	var out, errs bytes.Buffer
	if code := compareMain("agree", nil, &out, &errs); code != 2 || errs.String() != "report agree: takes DIR,DIR..., not []\n" {
		t.Errorf("report agree: exit %d, %q; want 2 and one line", code, errs.String())
	}
	errs.Reset()
	dir := t.TempDir()
	want := "report agree-load: open " + dir + "/results.json: no such file or directory\n"
	if code := compareMain("agree-load", []string{dir}, &out, &errs); code != 1 || errs.String() != want {
		t.Errorf("report agree-load EMPTYDIR: exit %d, %q; want 1 and %q", code, errs.String(), want)
	}
	if out.Len() != 0 {
		t.Errorf("failed comparisons printed %q", out.String())
	}
}

// reportCall matches bin/report and the words after it, up to the end of
// the code span or line.
var reportCall = regexp.MustCompile("bin/report((?: [^ `\n)]+)*)")

// TestPageCommands checks that every bin/report command the pages show
// names a subcommand or flags report takes.
func TestPageCommands(t *testing.T) {
	n := 0
	for _, p := range readPages(t) {
		for _, s := range codeAndProse(p.text) {
			if !s.code {
				continue
			}
			for _, m := range reportCall.FindAllStringSubmatch(s.text, -1) {
				n++
				args := strings.Fields(m[1])
				if len(args) > 0 {
					if _, ok := comparisons[args[0]]; ok {
						continue
					}
				}
				fs := flag.NewFlagSet("report", flag.ContinueOnError)
				fs.SetOutput(io.Discard)
				newOptions(fs)
				// A word in capitals (DIR, N) stands for a value.
				for i, a := range args {
					if strings.ToUpper(a) == a && !strings.HasPrefix(a, "-") {
						args[i] = "2"
					}
				}
				if err := fs.Parse(args); err != nil && err != flag.ErrHelp {
					t.Errorf("%s: bin/report%s: %v", p.path, m[1], err)
				}
			}
		}
	}
	if n < 5 {
		t.Errorf("%d bin/report commands in the pages: the pattern finds none", n)
	}
}

// TestRuns checks which parts a flag runs, in the order they run.
func TestRuns(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{"", ""},
		{"-tls", "tls-keepalive tls-handshakes tls"},
		{"-load", "load at-load"},
		{"-latency -run -why", "run why latency"},
		{"-tls-handshakes -h3", "tls-handshakes h3"},
	} {
		o, err := parsed(strings.Fields(c.args)...)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range parts {
			if o.runs(p) {
				got = append(got, p.flag)
			}
		}
		if strings.Join(got, " ") != c.want || o.running() != (c.want != "") {
			t.Errorf("report %s runs %q (running %v), want %q", c.args, got, o.running(), c.want)
		}
	}
}
