package main

import (
	"encoding/xml"
	"io"
	"math"
	"strings"
	"testing"
)

const sample = `# command: go test -run '^$' -bench Ceiling ./bench
goos: linux
pkg: hellobench/servers/nethttp
BenchmarkServeKeepAlive 	   20000	      6312 ns/op	    2149 B/op	      18 allocs/op
BenchmarkServeClose     	   20000	     10940 ns/op	    3232 B/op	      35 allocs/op
PASS
pkg: hellobench/bench
BenchmarkCeiling/nethttp/keepalive-2 	 20000	 95.0 cpu-%	 25.00 cpu-us/req	 1149 p50-us	 12394 p99-us	 30000 req/s	 12.87 rss-MB
BenchmarkCeiling/nethttp/keepalive-2 	 20000	 97.0 cpu-%	 20.00 cpu-us/req	 1149 p50-us	 12394 p99-us	 40000 req/s	 12.87 rss-MB
BenchmarkCeiling/nethttp/keepalive-2 	 20000	 50.0 cpu-%	 30.00 cpu-us/req	 1149 p50-us	 12394 p99-us	 10000 req/s	 12.87 rss-MB
--- BENCH: BenchmarkCeiling/nethttp/keepalive-2
    ceiling_test.go:110: client-bound
BenchmarkCeiling/nginx/keepalive-2 	 20000	 60.0 cpu-%	 10.00 cpu-us/req	 500 p50-us	 8000 p99-us	 60000 req/s	 8.2 rss-MB
BenchmarkCeiling/fcgi/close-2 	 20000	 30.0 app-us/req	 99.0 cpu-%	 80.00 cpu-us/req	 500 p50-us	 8000 p99-us	 12000 req/s	 15 rss-MB
BenchmarkSweep/nginx/c=1-2 	 1000	 40.0 cpu-%	 10.00 cpu-us/req	 50 p50-us	 80 p99-us	 20000 req/s	 8.2 rss-MB
BenchmarkSweep/nginx/c=10-2 	 1000	 95.0 cpu-%	 10.00 cpu-us/req	 150 p50-us	 300 p99-us	 90000 req/s	 8.2 rss-MB
`

func TestBuild(t *testing.T) {
	all := map[string]samples{}
	cmds, err := parseBench(strings.NewReader(sample), all)
	if err != nil {
		t.Fatal(err)
	}
	if len(cmds) != 1 || cmds[0] != "go test -run '^$' -bench Ceiling ./bench" {
		t.Errorf("commands %q", cmds)
	}
	rep := build(all, cmds)
	if len(rep.Ceilings) != 3 || len(rep.InMemory) != 2 || len(rep.Sweep) != 2 {
		t.Fatalf("%d ceilings, %d in-memory, %d sweep points", len(rep.Ceilings), len(rep.InMemory), len(rep.Sweep))
	}
	c := rep.Ceilings[0] // keepalive sorts first, nethttp before nginx
	if c.Server != "nethttp" || c.Mode != "keepalive" || c.Runs != 3 {
		t.Fatalf("first row %+v", c)
	}
	// Medians: 30000 req/s, 25 µs, 95 %: saturated.
	if c.ReqPerSec != 30000 || c.CPUPerReq != 25 || c.Busy != 95 || c.ClientBound {
		t.Errorf("medians %+v", c)
	}
	if c.Ceiling != 40000 || c.VsNginx != 0.5 || c.CeilingVsNginx != 0.4 {
		t.Errorf("ceiling %v, vs nginx %v and %v; want 40000, 0.5, 0.4", c.Ceiling, c.VsNginx, c.CeilingVsNginx)
	}
	if !c.HasMem || c.Allocs != 18 {
		t.Errorf("allocs/op %v (has %v), want 18 from ServeKeepAlive", c.Allocs, c.HasMem)
	}
	if n := rep.Ceilings[1]; n.Server != "nginx" || !n.ClientBound {
		t.Errorf("nginx at 60 %% busy: %+v, want client-bound", n)
	}
	if f := rep.Ceilings[2]; f.Server != "fcgi" || f.AppPerReq != 30 || f.VsNginx != 0 || math.Abs(f.Ceiling-12500) > 1e-9 {
		t.Errorf("fcgi close row %+v", f)
	}
	if s := rep.Sweep[0]; s.Conns != 1 || !s.ClientBound || rep.Sweep[1].ClientBound {
		t.Errorf("sweep %+v", rep.Sweep)
	}

	md := markdown(rep)
	for _, want := range []string{"| nethttp | 30000 | 0.50 | 25.00 | 40000 | 0.40 | 95 |", "| nginx | 60000 | 1.00 | 10.00 |", "client-bound", "80.00 (app 30.00)", "go test -run '^$' -bench Ceiling ./bench"} {
		if !strings.Contains(md, want) {
			t.Errorf("REPORT.md lacks %q", want)
		}
	}
	for name, svg := range map[string]string{"ceilings": ceilingsSVG(rep), "sweep": sweepSVG(rep)} {
		d := xml.NewDecoder(strings.NewReader(svg))
		for {
			_, err := d.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s.svg is not well-formed XML: %v", name, err)
			}
		}
	}
	if !strings.Contains(ceilingsSVG(rep), "nethttp") || strings.Contains(ceilingsSVG(rep), ">fcgi") {
		t.Error("ceilings.svg should show keep-alive servers with an nginx ratio only")
	}
}
