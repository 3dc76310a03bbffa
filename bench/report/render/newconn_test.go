package render

import (
	"strings"
	"testing"

	"hellobench/bench/report"
)

// TestNewConnTable renders bin/report -newconn's fixture: each server's
// CPU per request at the rate, its ratio to the reference nginx beside
// it, the blocks kept, and the run it comes from.
func TestNewConnTable(t *testing.T) {
	rep, err := report.Read(map[string]string{"newconn": "../testdata/newconn.txt"})
	if err != nil {
		t.Fatal(err)
	}
	got := NewConnTable(rep)
	for _, want := range []string{
		"at 5000 new connections a second",
		"| server | CPU µs/request | vs nginx beside it | server busy | blocks kept | note |\n",
		"| nethttp | 33.00 (30.00–33.60) | 1.50 (1.50–1.60) [range of 3] | 15 % | 3 of 3 | ratio not resolved to ±5 % |\n",
		"| fcgi | 84.00 (80.00–88.00) | 4.00 (4.00–4.00) [range of 2] | 42 % | 2 of 3 |  |\n",
		"| nginx | 21.00 (20.00–22.00) | – |",
		"_`make bench-load PART=newconn`, 2026-12-06 09:00 UTC, 3 blocks, on Test CPU;",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the table lacks %q:\n%s", want, got)
		}
	}
	if NewConnTable(report.Report{}) != "" {
		t.Error("a table without rows")
	}
}

// TestVersionsLine checks the report header's versions: each Go stack's
// modules as its run recorded them, the standard library's stacks on Go
// alone, and a line saying so where the run recorded none.
func TestVersionsLine(t *testing.T) {
	m := report.Machine{CPU: "Test CPU", Go: "go1.26.8", Nginx: "1.22.1", Lighttpd: "1.4.69",
		Versions: map[string][]string{"nethttp": {}, "fiber": {"github.com/gofiber/fiber/v2 v2.52.15", "github.com/valyala/fasthttp v1.79.0"}, "fasthttp": {"github.com/valyala/fasthttp v1.79.0"}}}
	rep := report.Report{Sections: map[string]report.Section{"ceilings": {Machine: m}}}
	want := "- Versions, as the run's build resolved them: fasthttp github.com/valyala/fasthttp v1.79.0; fiber github.com/gofiber/fiber/v2 v2.52.15, github.com/valyala/fasthttp v1.79.0; nethttp on go1.26.8 alone; nginx 1.22.1, lighttpd 1.4.69.\n"
	if got := versionsLine(rep); got != want {
		t.Errorf("versions line:\n%q\nwant\n%q", got, want)
	}
	m.Versions = nil
	rep.Sections["ceilings"] = report.Section{Machine: m}
	if got := versionsLine(rep); !strings.Contains(got, "not recorded by this run") {
		t.Errorf("versions line without versions: %q", got)
	}
}
