package report

import "testing"

// TestNewConn checks make bench-load PART=newconn's blocks: each server's CPU per
// request on a new connection per request at the run's rate, its ratio to
// nginx taken block by block against the reference beside it, a block in
// which it did not hold the rate left out, and the machine line's
// versions read back.
func TestNewConn(t *testing.T) {
	rep, err := Read(map[string]string{"newconn": "testdata/newconn.txt"})
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Sections["newconn"]
	if s.Rounds != 3 || len(s.Commands) != 3 || s.Date != "2026-12-06 09:00 UTC" {
		t.Errorf("newconn section: %d blocks, %d commands, %q; want 3, 3, 2026-12-06 09:00 UTC", s.Rounds, len(s.Commands), s.Date)
	}
	if v := s.Machine.Versions["fasthttp"]; len(v) != 1 || v[0] != "github.com/valyala/fasthttp v1.79.0" {
		t.Errorf("fasthttp's version: %q", v)
	}
	if len(rep.NewConn) != 4 {
		t.Fatalf("%d rows, want nethttp, fcgi, nginx, nginx/aa", len(rep.NewConn))
	}
	p, ok := Find(rep.NewConn, "nethttp", "rate=5000")
	// 30/20, 33/22 and 33.6/21: 1.5, 1.5, 1.6.
	if !ok || p.CPU.N != 3 || p.CPUVsNginx == nil || p.CPUVsNginx.N != 3 || !near(p.CPUVsNginx.Median, 1.5) || !near(p.CPU.Median, 33) {
		t.Errorf("nethttp: %+v vs nginx %+v; want 33 µs, 1.5 over 3 blocks", p.CPU, p.CPUVsNginx)
	}
	f, _ := Find(rep.NewConn, "fcgi", "rate=5000")
	// The third block did not hold 5000/s: 80/20 and 88/22 stay.
	if f.CPU.N != 2 || len(f.Blocks) != 3 || f.CPUVsNginx == nil || !near(f.CPUVsNginx.Median, 4) {
		t.Errorf("fcgi: %d of %d blocks, vs nginx %+v; want 2 of 3, 4.0", f.CPU.N, len(f.Blocks), f.CPUVsNginx)
	}
	if ConnRate(p.Mode) != "5000" || ConnRate("of=25%") != "" {
		t.Errorf("ConnRate(%q) = %q", p.Mode, ConnRate(p.Mode))
	}
	if rep.NewConn[0].Server != "nethttp" || rep.NewConn[1].Server != "fcgi" {
		t.Errorf("order: %s, %s, want the table's: nethttp, fcgi", rep.NewConn[0].Server, rep.NewConn[1].Server)
	}
}

// TestNewConnEveryHeldBlock checks that a new connection's blocks are not
// judged by the host's level as the blocks at a share of the ceiling are:
// of 8 held blocks, the 3 whose reference lies 20 % off its usual level
// and the 1 whose reference drifted count too, each ratio taken against
// its own reference.
func TestNewConnEveryHeldBlock(t *testing.T) {
	s := Samples{
		"cpu-us/req": {60, 60, 60, 60, 72, 72, 72, 66},
		"held":       {1, 1, 1, 1, 1, 1, 1, 1},
		"ref-us/req": {30, 30, 30, 30, 36, 36, 36, 33},
		"ref-drift":  {1, 1, 1, 1, 1, 1, 1, 1.2},
		"req/s":      {5000, 5000, 5000, 5000, 5000, 5000, 5000, 5000},
	}
	newConn := buildNewConn(map[string]Samples{newConnPrefix + "nethttp/rate=5000": s}, nil)
	atLoad := buildAtLoad(map[string]Samples{atLoadPrefix + "nethttp/of=25%": s}, nil)
	if len(newConn) != 1 || len(atLoad) != 1 {
		t.Fatalf("%d and %d rows, want 1 each", len(newConn), len(atLoad))
	}
	if p := newConn[0]; p.CPU.N != 8 || p.CPUVsNginx == nil || p.CPUVsNginx.N != 8 || !near(p.CPUVsNginx.Median, 2) {
		t.Errorf("new connection: %d blocks, vs nginx %+v; want 8, 2.0", p.CPU.N, p.CPUVsNginx)
	}
	if p := atLoad[0]; p.CPU.N != 4 {
		t.Errorf("at a share of the ceiling: %d blocks, want the 4 at the usual level", p.CPU.N)
	}
}
