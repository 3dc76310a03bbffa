package report

import (
	"errors"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"hellobench/bench"
)

// parsed is the report of testdata/ceilings.txt, read as the report
// command reads a bench.txt.
func parsed(t *testing.T) Report {
	t.Helper()
	rep, err := Read(map[string]string{"ceilings": "testdata/ceilings.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if sec := rep.Sections["ceilings"]; sec.Date != "2026-12-01 10:00 UTC" || sec.Rounds != 3 || len(sec.Commands) != 1 || sec.Quick {
		t.Errorf("section %+v", sec)
	}
	return rep
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
	if f := rep.Sweep[2]; f.Conns != 5000 || f.FellOver != 1 || f.Why != "warm-up: 12 non-2xx" {
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

// TestSaturationRule: a ceiling's figures come from its saturated blocks,
// ratios pair only blocks in which both servers were saturated, and a
// server never saturated gives no ceiling.
func TestSaturationRule(t *testing.T) {
	a := Samples{"cpu-us/req": {10, 12, 11, 50}, "saturated": {1, 1, 1, 0}, "conns": {50, 50, 50, 200}, "cpu-%": {99, 98, 99, 40}}
	n := Samples{"cpu-us/req": {5, 5, 99, 5}, "saturated": {1, 1, 0, 1}, "conns": {50, 50, 200, 50}, "cpu-%": {99, 99, 60, 99}}
	pa, pn := ceilingPoint("gin", "keepalive", 50, a, 0), ceilingPoint("nginx", "keepalive", 50, n, 0)
	if pa.CPU.N != 3 || pa.CPU.Median != 11 || len(pa.Blocks) != 4 || pa.Label != "" {
		t.Errorf("gin: CPU %+v over %d blocks, label %q; want the median of 10, 12, 11", pa.CPU.Spread, len(pa.Blocks), pa.Label)
	}
	if r := blockRatio(pa, pn); r.N != 2 || r.Median != 2.2 {
		t.Errorf("gin/nginx = %+v; want blocks 1 and 2 only: 2.0 and 2.4", r.Spread)
	}
	never := ceilingPoint("slow", "keepalive", 50, Samples{"cpu-us/req": {30, 31}, "saturated": {0, 0}, "conns": {200, 200}, "cpu-%": {10, 11}, "client-cpu-%": {20, 20}}, 0)
	if never.Label != NeverSaturated || never.Implied.N != 0 || never.CPU.N != 2 {
		t.Errorf("a server never saturated: label %q, ceiling %+v, CPU %+v", never.Label, never.Implied.Spread, never.CPU.Spread)
	}
}

// TestReferenceRounds checks the ratio to nginx against the reference
// rounds beside each run: block by block, leaving out the blocks whose
// server or reference was not saturated, and the blocks scaled to the
// mode's usual reference speed for the other ratios and differences.
func TestReferenceRounds(t *testing.T) {
	gin := ceilingPoint("gin", "keepalive", 50, Samples{
		"cpu-us/req": {20, 30, 24, 99, 22}, "ref-us/req": {10, 15, 12, 10, 0},
		"saturated": {1, 1, 1, 0, 1}, "conns": {50, 50, 50, 200, 50}, "cpu-%": {99, 99, 99, 60, 99}}, 0)
	floor := ceilingPoint("floor", "keepalive", 50, Samples{
		"cpu-us/req": {5, 9, 6, 5, 5}, "ref-us/req": {10, 15, 12, 12, 12},
		"saturated": {1, 1, 1, 1, 1}, "conns": {50, 50, 50, 50, 50}, "cpu-%": {99, 99, 99, 99, 99}}, 0)
	nginx := ceilingPoint("nginx", "keepalive", 50, Samples{
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
	if d := diff(BlockCPU(ps[0]), BlockCPU(ps[1])); d.N != 4 || d.Median != 17.5 {
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
	all := map[string]Samples{
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

	s := Samples{"cpu-us/req": {20, 28, 30, 21, 22}, "ref-us/req": {10, 14, 10, 10.2, 9.8},
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
	if u, c, o := HostCounts(ps, "keepalive"); u != 3 || c != 1 || o != 1 {
		t.Errorf("host counts = %d usual, %d changed, %d other; want 3, 1, 1", u, c, o)
	}
	off := ceilingPoint("off", "keepalive", 50, Samples{"cpu-us/req": {30, 31}, "ref-us/req": {14, 14},
		"saturated": {1, 1}, "conns": {50, 50}, "cpu-%": {99, 99}}, 10)
	if off.Label != NeverUsual || off.Implied.N != 0 {
		t.Errorf("a server saturated only at another speed: label %q, ceiling %+v", off.Label, off.Implied.Spread)
	}
}

// TestChance checks the simulated rates of agreement by chance: two
// estimates of one median each fall inside the other's 95 % interval far
// less often than 95 % of the time, and a third invocation lowers it;
// intervals overlap nearly always.
func TestChance(t *testing.T) {
	a3, o3 := Chance(16, 3)
	a2, _ := Chance(16, 2)
	if a3 < 0.4 || a3 > 0.85 || o3 < 0.95 || a2 <= a3 {
		t.Errorf("chance(16 blocks): 3 invocations agree %.2f, overlap %.2f; 2 agree %.2f", a3, o3, a2)
	}
	if a, o := Chance(16, 1); a != 1 || o != 1 {
		t.Errorf("one invocation agrees with itself: %v, %v", a, o)
	}
	agree, overlap := Agreement([]Figure{
		{Spread: bench.Spread{Median: 1, Lo: 0.9, Hi: 1.1}},
		{Spread: bench.Spread{Median: 1.15, Lo: 1.05, Hi: 1.25}},
	})
	if agree || !overlap {
		t.Errorf("1 (0.9-1.1) and 1.15 (1.05-1.25): agree %v, overlap %v; want false, true", agree, overlap)
	}
}

// TestReadNothing: files without a result are ErrNoResults, which bin/report
// takes as a run of -min-wait alone when its file is there.
func TestReadNothing(t *testing.T) {
	_, err := Read(map[string]string{"ceilings": filepath.Join(t.TempDir(), "bench.txt")})
	if !errors.Is(err, ErrNoResults) {
		t.Fatalf("Read of no file: %v, want ErrNoResults", err)
	}
}
