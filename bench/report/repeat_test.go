package report

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"hellobench/bench"
)

// TestReadRepeat checks the difference worth acting on: the A/A twin's
// half-width in this report, and the largest half-range of a server's
// ratio to nginx over the invocations in out/again/N, read from their
// results.json.
func TestReadRepeat(t *testing.T) {
	ka := func(server string, vs ...float64) Point {
		f := bench.FigureOf(vs)
		return Point{Server: server, Mode: "keepalive", CPUVsNginx: &f}
	}
	rep := Report{Sections: map[string]Section{"ceilings": {Date: "2026-12-05 00:59 UTC"}},
		Ceilings: []Point{ka(Twin, 0.99, 1.00, 1.01), ka("nethttp", 1.90, 1.90, 1.90), ka("gnet", 0.92, 0.92, 0.92)}}
	out := t.TempDir()
	if r, err := ReadRepeat(rep, out); r != nil || err != nil {
		t.Fatalf("no other invocation: %+v, %v; want nil", r, err)
	}
	for i, v := range []float64{2.00, 1.95} {
		// The second on another kernel: another host.
		o := Report{Sections: map[string]Section{"ceilings": {Date: "2026-12-04 1" + string(rune('0'+i)) + ":00 UTC"}},
			Machine:  Machine{Kernel: "Linux 6." + string(rune('1'+i))},
			Ceilings: []Point{ka("nethttp", v, v, v), ka("gnet", 0.92, 0.92, 0.92), ka(Twin, 1, 1, 1)}}
		dir := filepath.Join(out, "again", string(rune('2'+i)))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(o)
		if err := os.WriteFile(filepath.Join(dir, "results.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A directory of another bench's re-runs is not one of make bench's.
	if err := os.MkdirAll(filepath.Join(out, "again", "tls-2"), 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := ReadRepeat(rep, out)
	if err != nil || r == nil {
		t.Fatalf("ReadRepeat: %+v, %v", r, err)
	}
	// nethttp's medians 1.90, 2.00, 1.95: half the range 0.05 over 1.95.
	if len(r.Dates) != 3 || r.Hosts != 3 || !near(r.AA, 0.01) || r.Server != "nethttp" || !near(r.Moved, 0.05/1.95) || !near(r.Act(), 0.01+0.05/1.95) {
		t.Errorf("repeat %+v: want 3 dates on 3 hosts, A/A 0.01, nethttp moved 0.0256", r)
	}
}

// TestRepeatOfHosts: without a re-run with keep-alive ratios beside the
// report, the difference worth acting on comes from every run recorded
// under the hosts: gin moved 1.9 to 2.3 (±10 % of its median) over three
// runs on two.
func TestRepeatOfHosts(t *testing.T) {
	run := func(date string, gin float64) HostRun {
		return HostRun{Date: date, Ratios: map[string]Figure{"gin": figureOf([]float64{gin}), "gnet": figureOf([]float64{0.9})}}
	}
	twin := figureOf([]float64{0.99, 1, 1.01, 1, 0.99, 1.01})
	rep := Report{Ceilings: []Point{{Server: Twin, Mode: "keepalive", CPUVsNginx: &twin}},
		Hosts: []Host{{Key: "a", Runs: []HostRun{run("d1", 1.9), run("d2", 2.0)}}, {Key: "b", Runs: []HostRun{run("d3", 2.3)}}}}
	r := repeatOfHosts(rep)
	if r == nil || r.Server != "gin" || r.Hosts != 2 || len(r.Dates) != 3 || math.Abs(r.Moved-0.2/2.0) > 1e-9 {
		t.Fatalf("repeat %+v; want gin ±10 %% over 3 runs on 2 hosts", r)
	}
	rep.Hosts = rep.Hosts[1:]
	if r := repeatOfHosts(rep); r != nil {
		t.Errorf("one run: %+v, want none", r)
	}
}
