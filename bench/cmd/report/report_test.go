package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"hellobench/bench"
)

const sample = `# date: 2026-12-01 10:00 UTC
# rounds: 3
# command: go test -run '^$' -bench Ceiling ./bench
goos: linux
pkg: hellobench/servers/nethttp
BenchmarkServeKeepAlive 	   20000	      6312 ns/op	    2149 B/op	      18 allocs/op
BenchmarkServeClose     	   20000	     10940 ns/op	    3232 B/op	      35 allocs/op
PASS
pkg: hellobench/bench
BenchmarkCeiling/nethttp/keepalive-2 	 20000	 95.0 cpu-%	 50 client-cpu-%	 25.00 cpu-us/req	 1149 p50-us	 12394 p99-us	 30000 req/s	 12.87 rss-MB
BenchmarkCeiling/nginx/keepalive-2 	 20000	 60.0 cpu-%	 95 client-cpu-%	 10.00 cpu-us/req	 500 p50-us	 8000 p99-us	 60000 req/s	 8.2 rss-MB
BenchmarkCeiling/floor/keepalive-2 	 20000	 97.0 cpu-%	 60 client-cpu-%	 9.00 cpu-us/req	 500 p50-us	 8000 p99-us	 60000 req/s	 8.2 rss-MB
BenchmarkCeiling/nethttp/keepalive-2 	 20000	 97.0 cpu-%	 50 client-cpu-%	 20.00 cpu-us/req	 1149 p50-us	 12394 p99-us	 40000 req/s	 12.87 rss-MB
BenchmarkCeiling/nginx/keepalive-2 	 20000	 60.0 cpu-%	 95 client-cpu-%	 21.00 cpu-us/req	 500 p50-us	 8000 p99-us	 60000 req/s	 8.2 rss-MB
BenchmarkCeiling/floor/keepalive-2 	 20000	 97.0 cpu-%	 60 client-cpu-%	 19.00 cpu-us/req	 500 p50-us	 8000 p99-us	 60000 req/s	 8.2 rss-MB
BenchmarkCeiling/nethttp/keepalive-2 	 20000	 50.0 cpu-%	 50 client-cpu-%	 30.00 cpu-us/req	 1149 p50-us	 12394 p99-us	 10000 req/s	 12.87 rss-MB
--- BENCH: BenchmarkCeiling/nethttp/keepalive-2
    ceiling_test.go:110: unsaturated
BenchmarkCeiling/nginx/keepalive-2 	 20000	 60.0 cpu-%	 95 client-cpu-%	 10.00 cpu-us/req	 500 p50-us	 8000 p99-us	 60000 req/s	 8.2 rss-MB
BenchmarkCeiling/floor/keepalive-2 	 20000	 97.0 cpu-%	 60 client-cpu-%	 29.00 cpu-us/req	 500 p50-us	 8000 p99-us	 60000 req/s	 8.2 rss-MB
BenchmarkCeiling/fcgi/close-2 	 20000	 30.0 app-us/req	 99.0 cpu-%	 80.00 cpu-us/req	 500 p50-us	 8000 p99-us	 12000 req/s	 15 rss-MB
BenchmarkSweep/nginx/c=1-2 	 1000	 40.0 cpu-%	 20 client-cpu-%	 10.00 cpu-us/req	 50 p50-us	 80 p99-us	 20000 req/s	 8.2 rss-MB
BenchmarkSweep/nginx/c=10-2 	 1000	 95.0 cpu-%	 20 client-cpu-%	 10.00 cpu-us/req	 150 p50-us	 300 p99-us	 90000 req/s	 8.2 rss-MB
BenchmarkSweep/nginx/c=5000-2 	 1000	 1 fell-over
--- BENCH: BenchmarkSweep/nginx/c=5000-2
    ceiling_test.go:60: fell over: warm-up: 12 non-2xx
BenchmarkIdle/gnet/c=1000-2 	 1	 0 ns/op	 1000 held	 950 rss-B/conn	 0.5 idle-cpu-ms/s
`

func parsed(t *testing.T) Report {
	t.Helper()
	all := map[string]samples{}
	why := map[string]string{}
	sec, err := parseBench(strings.NewReader(sample), all, why)
	if err != nil {
		t.Fatal(err)
	}
	if sec.Date != "2026-12-01 10:00 UTC" || sec.Rounds != 3 || len(sec.Commands) != 1 || sec.Quick {
		t.Errorf("section %+v", sec)
	}
	return build(all, why, map[string]Section{"ceilings": sec}, 50)
}

func TestBuild(t *testing.T) {
	rep := parsed(t)
	if len(rep.Ceilings) != 4 || len(rep.InMemory) != 2 || len(rep.Sweep) != 3 || len(rep.Idle) != 1 {
		t.Fatalf("%d ceilings, %d in-memory, %d sweep points, %d idle", len(rep.Ceilings), len(rep.InMemory), len(rep.Sweep), len(rep.Idle))
	}
	// Keep-alive sorts first, in the table's order: nethttp, nginx, floor.
	c := rep.Ceilings[0]
	if c.Server != "nethttp" || c.Mode != "keepalive" || c.CPU.N != 3 {
		t.Fatalf("first row %+v", c)
	}
	// Rounds kept in order; medians and ranges of them.
	if c.CPU.Median != 25 || c.CPU.Min != 20 || c.CPU.Max != 30 || c.CPU.Rounds[2] != 30 || c.ReqPerSec.Median != 30000 || c.Busy.Median != 95 || c.Label != "" {
		t.Errorf("nethttp keep-alive %+v", c)
	}
	if c.Implied.Median != 40000 {
		t.Errorf("implied ceiling %v, want 40000", c.Implied.Median)
	}
	// Against nginx round by round: 25/10, 20/21, 30/10.
	if r := c.CPUVsNginx; r == nil || r.Median != 2.5 || r.Min != 20.0/21 || r.Max != 3 {
		t.Errorf("vs nginx %+v", r)
	}
	if n := rep.Ceilings[1]; n.Server != "nginx" || n.Label != ClientBound || n.CPUVsNginx != nil {
		t.Errorf("nginx at 60 %% busy with its client at 95 %%: %+v, want client-bound", n)
	}
	if f := rep.Ceilings[3]; f.Server != "fcgi" || f.AppCPU.Median != 30 || f.CPUVsNginx != nil || f.Implied.Median != 12500 {
		t.Errorf("fcgi close row %+v", f)
	}
	if s := rep.Sweep; s[0].Conns != 1 || s[0].Label != LatencyBound || s[1].Label != "" {
		t.Errorf("sweep labels %q %q", s[0].Label, s[1].Label)
	}
	if f := rep.Sweep[2]; f.Conns != 5000 || f.FellOver != 1 || f.Why != "warm-up: 12 non-2xx" || note(f) != "fell over in 1 round: warm-up: 12 non-2xx" {
		t.Errorf("a server that fell over: %+v", f)
	}
	if i := rep.Idle[0]; i.Server != "gnet" || i.Held.Median != 1000 || i.PerConn.Median != 950 {
		t.Errorf("idle %+v", i)
	}
}

func TestLabels(t *testing.T) {
	for _, tc := range []struct {
		conns            int
		busy, clientBusy float64
		want             string
	}{
		{50, 95, 99, ""},
		{1, 40, 20, LatencyBound},
		{1, 95, 20, ""},
		{50, 80, 95, ClientBound},
		{1000, 87, 60, Unsaturated},
	} {
		if got := label(tc.conns, tc.busy, tc.clientBusy); got != tc.want {
			t.Errorf("label(%d, %v, %v) = %q, want %q", tc.conns, tc.busy, tc.clientBusy, got, tc.want)
		}
	}
}

// A CPU figure read from few clock ticks says so, with the label if any;
// read in nanoseconds, it need not.
func TestCoarseNote(t *testing.T) {
	for _, tc := range []struct {
		cpu      float64 // µs per request
		requests int
		label    string
		want     string
	}{
		{10, 100000, "", ""}, // 100 ticks
		{0.9, 100000, "", "CPU from about 9 clock ticks a round (one tick is 11 %)"},
		{0.8, 100000, Unsaturated, "unsaturated; CPU from about 8 clock ticks a round (one tick is 12 %)"},
		{2.5, 100000, ClientBound, ClientBound}, // 25 ticks
	} {
		p := Point{CPU: figureOf([]float64{tc.cpu}), Requests: tc.requests, Label: tc.label, Coarse: true}
		if got := note(p); got != tc.want {
			t.Errorf("%v µs × %d requests, label %q: note %q, want %q", tc.cpu, tc.requests, tc.label, got, tc.want)
		}
	}
}

func TestNoise(t *testing.T) {
	// The floor against nginx: 9/10, 19/21, 29/10: a range over 1, a tie.
	rep := parsed(t)
	floor, _ := find(rep.Ceilings, "floor", "keepalive")
	if got := versus(floor.CPUVsNginx); !strings.HasSuffix(got, ", tie") {
		t.Errorf("floor vs nginx %q, want a tie", got)
	}
	// A difference that changes sign across rounds is noise, never a cost.
	d := diff(figureOf([]float64{10, 12, 11}), figureOf([]float64{11, 11, 11}))
	if got := delta(d); got != "≈ 0 (within noise)" {
		t.Errorf("delta %q", got)
	}
	if got := share(d, figureOf([]float64{10, 12, 11})); got != "≈ 0 (within noise)" {
		t.Errorf("share %q", got)
	}
	if got := delta(diff(figureOf([]float64{12, 13, 14}), figureOf([]float64{10, 10, 10}))); got != "3.00 (2.00–4.00)" {
		t.Errorf("delta %q", got)
	}
	if got := num(126882.4, 0); got != "126\u2009882" {
		t.Errorf("num %q", got)
	}
}

func TestMarkdown(t *testing.T) {
	rep := parsed(t)
	md := markdown(rep)
	for _, want := range []string{
		"| nethttp | 25.00 (20.00–30.00) | 2.50 (0.95–3.00) [range of 3], tie |",
		"client-bound",
		"80.00 (20.00–80.00)"[:5],
		"go test -run '^$' -bench Ceiling ./bench",
		"## How cost grows with connections (keep-alive)\n\nNot measured in this run.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("REPORT.md lacks %q", want)
		}
	}
	// The quick run says so.
	rep.Sections["ceilings"] = Section{Quick: true}
	if !strings.Contains(markdown(rep), "not for publishing") {
		t.Error("a quick run's report does not say it is one")
	}
}

// TestSaturationRule: a ceiling's figures come from its saturated blocks,
// ratios pair only blocks in which both servers were saturated, and a
// server never saturated gives no ceiling.
func TestSaturationRule(t *testing.T) {
	a := samples{"cpu-us/req": {10, 12, 11, 50}, "saturated": {1, 1, 1, 0}, "conns": {50, 50, 50, 200}, "cpu-%": {99, 98, 99, 40}}
	n := samples{"cpu-us/req": {5, 5, 99, 5}, "saturated": {1, 1, 0, 1}, "conns": {50, 50, 200, 50}, "cpu-%": {99, 99, 60, 99}}
	pa, pn := ceilingPoint("gin", "keepalive", 50, a, 0), ceilingPoint("nginx", "keepalive", 50, n, 0)
	if pa.CPU.N != 3 || pa.CPU.Median != 11 || len(pa.Blocks) != 4 || pa.Label != "" {
		t.Errorf("gin: CPU %+v over %d blocks, label %q; want the median of 10, 12, 11", pa.CPU.Spread, len(pa.Blocks), pa.Label)
	}
	if r := blockRatio(pa, pn); r.N != 2 || r.Median != 2.2 {
		t.Errorf("gin/nginx = %+v; want blocks 1 and 2 only: 2.0 and 2.4", r.Spread)
	}
	never := ceilingPoint("slow", "keepalive", 50, samples{"cpu-us/req": {30, 31}, "saturated": {0, 0}, "conns": {200, 200}, "cpu-%": {10, 11}, "client-cpu-%": {20, 20}}, 0)
	if never.Label != NeverSaturated || never.Implied.N != 0 || never.CPU.N != 2 {
		t.Errorf("a server never saturated: label %q, ceiling %+v, CPU %+v", never.Label, never.Implied.Spread, never.CPU.Spread)
	}
	if got := median(never.Implied, 0); got != "–" {
		t.Errorf("its ceiling reads %q, want –", got)
	}
}

// TestReferenceRounds checks the ratio to nginx against the reference
// rounds beside each run: block by block, leaving out the blocks whose
// server or reference was not saturated, and the blocks scaled to the
// mode's usual reference speed for the other ratios and differences.
func TestReferenceRounds(t *testing.T) {
	gin := ceilingPoint("gin", "keepalive", 50, samples{
		"cpu-us/req": {20, 30, 24, 99, 22}, "ref-us/req": {10, 15, 12, 10, 0},
		"saturated": {1, 1, 1, 0, 1}, "conns": {50, 50, 50, 200, 50}, "cpu-%": {99, 99, 99, 60, 99}}, 0)
	floor := ceilingPoint("floor", "keepalive", 50, samples{
		"cpu-us/req": {5, 9, 6, 5, 5}, "ref-us/req": {10, 15, 12, 12, 12},
		"saturated": {1, 1, 1, 1, 1}, "conns": {50, 50, 50, 50, 50}, "cpu-%": {99, 99, 99, 99, 99}}, 0)
	nginx := ceilingPoint("nginx", "keepalive", 50, samples{
		"cpu-us/req": {10, 10, 10, 10, 10}, "ref-us/req": {10, 15, 12, 12, 12},
		"saturated": {1, 1, 1, 1, 1}, "conns": {50, 50, 50, 50, 50}, "cpu-%": {99, 99, 99, 99, 99}}, 0)
	if len(gin.Ref) != 5 {
		t.Fatalf("gin's reference rounds: %v, want 5", gin.Ref)
	}
	ps := []Point{gin, floor, nginx}
	atRefSpeed(ps, map[string]float64{"keepalive": 12})
	compare(ps)
	// Blocks 0-2 only: block 3 was not saturated, block 4 had no reference.
	if r := ps[0].CPUVsNginx; r == nil || r.N != 3 || r.Median != 2 || r.Lo != 2 || r.Hi != 2 {
		t.Errorf("gin/reference = %+v; want 2, 2, 2", r)
	}
	// At a usual reference speed of 12, gin's blocks are 24, 24, 24, the
	// floor's 6, 7.2, 6; in block 4 gin had no reference and stays 22.
	if r := ps[0].CPUVsFloor; r == nil || r.N != 4 || r.Median != 4 || r.Max != 4.4 {
		t.Errorf("gin/floor at the reference speed = %+v; want 4, 10/3, 4, 4.4", r)
	}
	if d := diff(blockCPU(ps[0]), blockCPU(ps[1])); d.N != 4 || d.Median != 17.5 {
		t.Errorf("gin - floor at the reference speed = %+v; want 18, 16.8, 18, 17", d.Spread)
	}
	if ps[2].CPUVsNginx != nil {
		t.Errorf("nginx has a ratio to itself: %+v", ps[2].CPUVsNginx)
	}
}

// TestHostStates checks the host's usual state: the level most reference
// rounds lie at, the blocks left out at another level or while the host
// changed speed, and a ceiling's figures and ratio from the rest only.
func TestHostStates(t *testing.T) {
	if got := usualSpeed([]float64{7.3, 9.5, 9.6, 9.7, 13.4, 13.5, 9.4}); got != 9.55 {
		t.Errorf("usual speed = %v; want 9.55, the median of the four near 9.5", got)
	}
	if got := usualSpeed([]float64{2, 2, 1, 1}); got != 1 {
		t.Errorf("usual speed on a tie = %v; want 1, the lower level", got)
	}
	if got := usualSpeed(nil); got != 0 {
		t.Errorf("usual speed of nothing = %v; want 0", got)
	}
	all := map[string]samples{
		ceilingPrefix + "gin/keepalive":      {refUnit: {10, 10, 14, 0, 0, 0}},
		ceilingPrefix + "nginx/aa/keepalive": {refUnit: {10.2, 10.1, 14, 0, 0, 0}},
		ceilingPrefix + "gin/pipeline":       {refUnit: {3, 3, 3, 3, 3, 3}},
		ceilingPrefix + "gin/close":          {refUnit: {0, 0, 0, 0, 0, 0}},
		ceilingPrefix + "gin/short":          {refUnit: {3, 3, 3, 3, 3}},
	}
	if got := usualSpeeds(all); len(got) != 2 || got["keepalive"] != 10.05 || got["pipeline"] != 3 {
		t.Errorf("usual speeds = %v; want keepalive 10.05, pipeline 3, none for close (no reference) or short (5 blocks)", got)
	}
	host := hostStates([]float64{10, 14, 10, 0, 10, 10.4}, []float64{1.01, 1, 1.2, 0, 0, 0.96}, 10)
	want := []string{hostUsual, HostOther, HostChanged, hostUsual, hostUsual, hostUsual}
	if !slices.Equal(host, want) {
		t.Errorf("host states = %q; want %q", host, want)
	}
	if hostStates([]float64{10, 14}, nil, 0) != nil {
		t.Error("host states without a usual speed: want none, every block counts")
	}

	s := samples{"cpu-us/req": {20, 28, 30, 21, 22}, "ref-us/req": {10, 14, 10, 10.2, 9.8},
		"ref-drift": {1, 1, 1.3, 1.02, 0.99}, "saturated": {1, 1, 1, 1, 0}, "conns": {50, 50, 50, 50, 50},
		"cpu-%": {99, 99, 99, 99, 80}}
	gin := ceilingPoint("gin", "keepalive", 50, s, 10)
	// Block 1 ran at another speed, block 2 while the host changed, block
	// 4 unsaturated: the figures are of blocks 0 and 3.
	if gin.CPU.N != 2 || gin.CPU.Median != 20.5 || gin.Label != "" {
		t.Errorf("gin's CPU = %+v, label %q; want blocks 0 and 3: 20, 21", gin.CPU.Spread, gin.Label)
	}
	ps := []Point{gin}
	compare(ps)
	if r := ps[0].CPUVsNginx; r == nil || r.N != 2 || math.Abs(r.Median-2.0294) > 1e-3 {
		t.Errorf("gin/reference = %+v; want blocks 0 and 3: 2, 21/10.2", r)
	}
	if u, c, o := hostCounts(ps, "keepalive"); u != 3 || c != 1 || o != 1 {
		t.Errorf("host counts = %d usual, %d changed, %d other; want 3, 1, 1", u, c, o)
	}
	if got := hostLine(Report{Ceilings: ps}); !strings.Contains(got, "not judged") {
		t.Errorf("host line without usual speeds = %q; want it to say the state was not judged", got)
	}
	if got := hostLine(Report{Ceilings: ps, Usual: map[string]float64{"keepalive": 10}}); !strings.Contains(got, "keepalive 10.00 µs (3 of 5 server blocks with a reference in it; 1 left out as the host changed speed, 1 at another)") {
		t.Errorf("host line = %q", got)
	}
	off := ceilingPoint("off", "keepalive", 50, samples{"cpu-us/req": {30, 31}, "ref-us/req": {14, 14},
		"saturated": {1, 1}, "conns": {50, 50}, "cpu-%": {99, 99}}, 10)
	if off.Label != NeverUsual || off.Implied.N != 0 {
		t.Errorf("a server saturated only at another speed: label %q, ceiling %+v", off.Label, off.Implied.Spread)
	}
}

// TestAgree checks the comparison of separate invocations on fixed ratios:
// a median outside another's interval does not agree, overlapping
// intervals overlap, and the medians' half-range over their median.
func TestAgree(t *testing.T) {
	ratios := [][2]bench.Spread{ // nginx/aa, then gin, in each invocation
		{{Median: 1, Lo: 0.99, Hi: 1.01, N: 20}, {Median: 2.00, Lo: 1.98, Hi: 2.02, N: 20}},
		{{Median: 1, Lo: 0.99, Hi: 1.01, N: 20}, {Median: 2.03, Lo: 2.01, Hi: 2.05, N: 20}},
		{{Median: 1, Lo: 0.98, Hi: 1.02, N: 20}, {Median: 2.01, Lo: 1.99, Hi: 2.03, N: 20}},
	}
	var dirs []string
	for _, r := range ratios {
		rep := Report{Sections: map[string]Section{"ceilings": {Date: "2026-12-04 10:00 UTC", Rounds: 20}}}
		for i, server := range []string{twin, "gin"} {
			rep.Ceilings = append(rep.Ceilings, Point{Server: server, Mode: "keepalive", CPUVsNginx: &Figure{Spread: r[i]}})
		}
		dir := t.TempDir()
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "results.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	got, err := agree(dirs)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| nginx/aa | 1.000 (0.990–1.010), tie | 1.000 (0.990–1.010), tie | 1.000 (0.980–1.020), tie | ±2.0 % | yes | ±0.0 % | yes |",
		// 2.03 lies above the first interval, though every two overlap;
		// the medians span 2.00-2.03 around 2.01.
		"| gin | 2.000 (1.980–2.020) | 2.030 (2.010–2.050) | 2.010 (1.990–2.030) | ±1.0 % | **no** | ±0.7 % | yes |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("agree is missing %q:\n%s", want, got)
		}
	}
	if !strings.Contains(got, "Here 1 of 2 rows agree and 2 overlap. By chance alone") {
		t.Errorf("agree does not count its rows against chance:\n%s", got)
	}
	if _, err := agree([]string{t.TempDir()}); err == nil {
		t.Error("agree without a results.json: no error")
	}
}

// TestChance checks the simulated rates of agreement by chance: two
// estimates of one median each fall inside the other's 95 % interval far
// less often than 95 % of the time, and a third invocation lowers it;
// intervals overlap nearly always.
func TestChance(t *testing.T) {
	a3, o3 := chance(16, 3)
	a2, _ := chance(16, 2)
	if a3 < 0.4 || a3 > 0.85 || o3 < 0.95 || a2 <= a3 {
		t.Errorf("chance(16 blocks): 3 invocations agree %.2f, overlap %.2f; 2 agree %.2f", a3, o3, a2)
	}
	if a, o := chance(16, 1); a != 1 || o != 1 {
		t.Errorf("one invocation agrees with itself: %v, %v", a, o)
	}
	agree, overlap := agreement([]Figure{
		{Spread: bench.Spread{Median: 1, Lo: 0.9, Hi: 1.1}},
		{Spread: bench.Spread{Median: 1.15, Lo: 1.05, Hi: 1.25}},
	})
	if agree || !overlap {
		t.Errorf("1 (0.9-1.1) and 1.15 (1.05-1.25): agree %v, overlap %v; want false, true", agree, overlap)
	}
}

func TestQuickServers(t *testing.T) {
	for _, c := range []struct{ ceilings, want string }{
		{"nethttp=49652,nginx=98000,fasthttp=76628", "nethttp,nginx"},
		{"nginx=98000,fasthttp=76628,nethttp=49652", "nethttp,nginx"},
		// nginx unsaturated in the quick block: the next one with a ceiling.
		{"nethttp=49652,fasthttp=76628,floor=113443", "nethttp,fasthttp"},
		{"floor=113443,gin=48123", "gin"},
	} {
		if got := quickServers(c.ceilings); got != c.want {
			t.Errorf("quickServers(%q) = %q, want %q", c.ceilings, got, c.want)
		}
	}
}
