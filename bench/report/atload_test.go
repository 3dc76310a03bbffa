package report

import "testing"

// TestAtLoad checks make bench-load's blocks at a quarter of the ceiling:
// a server's ratio to nginx is taken block by block against the reference
// beside it, and a block in which it did not hold its rate is left out.
func TestAtLoad(t *testing.T) {
	rep, err := Read(map[string]string{"atload": "testdata/atload.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if s := rep.Sections["atload"]; s.Rounds != 3 {
		t.Errorf("atload section: %d blocks, want 3", s.Rounds)
	}
	if len(rep.AtLoad) != 3 {
		t.Fatalf("%d rows, want nethttp, nginx, nginx/aa", len(rep.AtLoad))
	}
	p, ok := Find(rep.AtLoad, "nethttp", "of=25%")
	if !ok {
		t.Fatal("no nethttp row at of=25%")
	}
	// Blocks 40/20 and 46.2/22 held; the third (63 µs, rate not held) is out.
	if p.CPU.N != 2 || len(p.Blocks) != 3 || p.CPUVsNginx == nil || p.CPUVsNginx.N != 2 || !near(p.CPUVsNginx.Median, 2.05) {
		t.Errorf("nethttp at 25 %%: %d of %d blocks, vs nginx %+v; want 2 of 3, 2.05", p.CPU.N, len(p.Blocks), p.CPUVsNginx)
	}
	aa, _ := Find(rep.AtLoad, Twin, "of=25%")
	if aa.CPUVsNginx == nil || aa.CPUVsNginx.N != 3 || !near(aa.CPUVsNginx.Median, 1.01) {
		t.Errorf("A/A at 25 %%: %+v, want 1.01 over 3 blocks", aa.CPUVsNginx)
	}
	if rep.AtLoad[0].Server != "nethttp" || rep.AtLoad[2].Server != Twin {
		t.Errorf("order: %s … %s", rep.AtLoad[0].Server, rep.AtLoad[2].Server)
	}
}

// TestAtLoadNeverHeld checks the label of a server that held its rate in
// no block.
func TestAtLoadNeverHeld(t *testing.T) {
	s := Samples{"cpu-us/req": {30, 31}, "held": {0, 0}, "ref-us/req": {10, 10}, "ref-drift": {1, 1}, "req/s": {900, 900}}
	ps := buildAtLoad(map[string]Samples{atLoadPrefix + "fcgi/of=25%": s}, nil)
	if len(ps) != 1 || ps[0].Label != NeverHeld || ps[0].CPUVsNginx != nil && ps[0].CPUVsNginx.N > 0 {
		t.Errorf("never held: %+v", ps)
	}
}

// TestCapacityFile checks that a search run alone (capacity.txt) replaces
// the search of the load.txt beside it, and that without it load.txt's
// stands.
func TestCapacityFile(t *testing.T) {
	for _, c := range []struct {
		files map[string]string
		want  float64
	}{
		{map[string]string{"load": "testdata/load-capacity.txt"}, 51000},
		{map[string]string{"load": "testdata/load-capacity.txt", "capacity": "testdata/capacity.txt"}, 71000},
		{map[string]string{"load": "testdata/load-capacity.txt", "capacity": "testdata/none.txt"}, 51000},
	} {
		rep, err := Read(c.files)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := FindCapacity(rep.Capacity, "nethttp")
		if !ok || got.Rate.N != 2 || !near(got.Rate.Median, c.want) {
			t.Errorf("%v: nethttp's rate %+v, want %v over 2 rounds", c.files, got.Rate, c.want)
		}
	}
}
