package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAddMinWait reads testdata/minwait.txt: three blocks of three waits
// in changing orders, the last block's 100 µs falling over. Each row's
// figures are of its held blocks, its ratio to no wait taken block by
// block over the blocks both held, and the section is recorded.
func TestAddMinWait(t *testing.T) {
	var rep Report
	if err := AddMinWait(&rep, "testdata/minwait.txt"); err != nil {
		t.Fatal(err)
	}
	sec, ok := rep.Sections[MinWaitSection]
	if !ok || sec.Date != "2026-12-06 09:00 UTC" || sec.Rounds != 3 || len(sec.Commands) != 3 || sec.Machine.CPU != "Test CPU" {
		t.Errorf("section %+v", sec)
	}
	mw := rep.MinWait
	if mw == nil || mw.Server != "uring" || mw.Load != "of=25%" || len(mw.Rows) != 3 {
		t.Fatalf("min-wait run %+v", mw)
	}
	none, fifty, hundred := mw.Rows[0], mw.Rows[1], mw.Rows[2]
	if none.WaitUS != 0 || none.Rate != 12500 || none.Blocks != 3 || none.Held != 3 || none.VsNone != nil {
		t.Errorf("no wait: %+v", none)
	}
	if none.CPU.Median != 10 || none.CPU.Max != 11 || none.P50.Median != 52 || none.P99.Median != 210 || none.Busy.Median != 12.5 {
		t.Errorf("no wait's figures: CPU %+v, p50 %+v, p99 %+v, busy %+v", none.CPU, none.P50, none.P99, none.Busy)
	}
	// 9/10, 9.9/11, 9.5/10.
	if r := fifty.VsNone; fifty.WaitUS != 50 || r == nil || r.N != 3 || !near(r.Median, 0.9) || !near(r.Max, 0.95) || fifty.P99.Median != 310 {
		t.Errorf("50 µs: %+v, vs none %+v", fifty, fifty.VsNone)
	}
	// Block 2 fell over: out of the figures and the ratio; 8.5/10, 9.35/11.
	if hundred.WaitUS != 100 || hundred.Blocks != 3 || hundred.Held != 2 || hundred.FellOver != 1 || hundred.Why != "loadgen: 12 requests failed" {
		t.Errorf("100 µs: %+v", hundred)
	}
	if r := hundred.VsNone; r == nil || r.N != 2 || !near(r.Median, 0.85) || hundred.CPU.Median != (8.5+9.35)/2 || hundred.P99.Max != 420 {
		t.Errorf("100 µs: CPU %+v, vs none %+v, p99 %+v", hundred.CPU, hundred.VsNone, hundred.P99)
	}
	// What results.json holds reads back the same.
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil || back.MinWait == nil || back.MinWait.Rows[2].VsNone.Median != hundred.VsNone.Median {
		t.Errorf("results.json round trip: %v, %+v", err, back.MinWait)
	}
}

// TestAddMinWaitMissing: no file is no run, and rep is left as it was; a
// run mixing servers or loads is refused, saying so.
func TestAddMinWaitMissing(t *testing.T) {
	rep := Report{Sections: map[string]Section{"ceilings": {Date: "d"}}}
	if err := AddMinWait(&rep, "testdata/no-such.txt"); err != nil || rep.MinWait != nil || len(rep.Sections) != 1 {
		t.Errorf("a missing file: %v, %+v", err, rep)
	}
	b, err := os.ReadFile("testdata/minwait.txt")
	if err != nil {
		t.Fatal(err)
	}
	mixed := filepath.Join(t.TempDir(), "minwait.txt")
	os.WriteFile(mixed, []byte(strings.Replace(string(b), "uring/of=25%/min-wait=50us-2", "uring/r=10000/min-wait=50us-2", 1)), 0o644)
	err = AddMinWait(&rep, mixed)
	if err == nil || !strings.Contains(err.Error(), "want one server at one load") || rep.MinWait != nil {
		t.Errorf("a mixed run: %v", err)
	}
}
