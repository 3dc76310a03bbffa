package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// uringFiles are testdata's make bench-work and make bench-sweep runs
// (2 blocks of gnet's and uring's 10 ms wait; 3 rounds of nginx's,
// uring's and the io_uring floor's idle connections) and make bench-work
// PART=uring's run after them (4 blocks of uring's wait and idle rows).
var uringFiles = map[string]string{"work": "testdata/work-uring.txt", "sweep": "testdata/sweep-uring.txt", UringSection: "testdata/uring.txt"}

// TestUringRows checks that uring.txt replaces, of work.txt and
// sweep.txt, exactly the rows it holds, with its own blocks, and leaves
// the others' rows and rounds alone.
func TestUringRows(t *testing.T) {
	rep, err := Read(uringFiles)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Wait) != 2 || len(rep.Idle) != 3 {
		t.Fatalf("%d wait rows and %d idle rows, want 2 and 3", len(rep.Wait), len(rep.Idle))
	}
	for _, c := range []struct {
		server, source string
		n              int
		cpu, little    float64
	}{
		{"gnet", "", 2, 8.05, 90.05},
		{"uring", UringSection, 4, 5.15, 98.15},
	} {
		p := waitRow(t, rep, c.server)
		if p.Source != c.source || p.CPU.N != c.n || !near(p.CPU.Median, c.cpu) || !near(p.Little.Median, c.little) {
			t.Errorf("%s's wait: source %q, %d blocks, CPU %v µs/req, %v %% of the limit; want %q, %d, %v, %v",
				c.server, p.Source, p.CPU.N, p.CPU.Median, p.Little.Median, c.source, c.n, c.cpu, c.little)
		}
	}
	for _, c := range []struct {
		server, source string
		n              int
		cpu, perConn   float64
	}{
		{"nginx", "", 3, 0.11, 3001},
		{"uring", UringSection, 4, 0.315, 2600},
		{"floor-uring", UringSection, 4, 0.215, 4900},
	} {
		i := idleRow(t, rep, c.server)
		if i.Source != c.source || i.IdleCPU.N != c.n || !near(i.IdleCPU.Median, c.cpu) || !near(i.PerConn.Median, c.perConn) {
			t.Errorf("%s's idle connections: source %q, %d rounds, %v ms/s, %v B/conn; want %q, %d, %v, %v",
				c.server, i.Source, i.IdleCPU.N, i.IdleCPU.Median, i.PerConn.Median, c.source, c.n, c.cpu, c.perConn)
		}
	}
	if s := rep.Sections[UringSection]; s.Rounds != 4 || s.Date != "2026-12-06 01:00 UTC" || rep.Sections["work"].Rounds != 2 || rep.Sections["sweep"].Rounds != 3 {
		t.Errorf("sections: uring %d blocks on %s, work %d, sweep %d; want 4 on 2026-12-06 01:00 UTC, 2, 3",
			s.Rounds, s.Date, rep.Sections["work"].Rounds, rep.Sections["sweep"].Rounds)
	}
}

// TestUringRowsOlder checks that a work.txt written after uring.txt (a
// whole make bench-work since, which measured uring again) keeps its
// uring row, while the older sweep.txt's are still replaced.
func TestUringRowsOlder(t *testing.T) {
	b, err := os.ReadFile(uringFiles["work"])
	if err != nil {
		t.Fatal(err)
	}
	later := filepath.Join(t.TempDir(), "work.txt")
	text := strings.Replace(string(b), "# date: 2026-12-05 03:43 UTC", "# date: 2026-12-07 09:00 UTC", 1)
	if err := os.WriteFile(later, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"work": later, "sweep": uringFiles["sweep"], UringSection: uringFiles[UringSection]}
	rep, err := Read(files)
	if err != nil {
		t.Fatal(err)
	}
	if p := waitRow(t, rep, "uring"); p.Source != "" || p.CPU.N != 2 || !near(p.CPU.Median, 9.05) {
		t.Errorf("uring's wait: source %q, %d blocks, %v µs/req; want the later work.txt's 2 blocks, 9.05", p.Source, p.CPU.N, p.CPU.Median)
	}
	if i := idleRow(t, rep, "uring"); i.Source != UringSection || i.IdleCPU.N != 4 {
		t.Errorf("uring's idle connections: source %q, %d rounds; want uring.txt's 4", i.Source, i.IdleCPU.N)
	}
}

func waitRow(t *testing.T, rep Report, server string) Point {
	t.Helper()
	for _, p := range rep.Wait {
		if p.Server == server {
			return p
		}
	}
	t.Fatalf("no wait row of %s", server)
	return Point{}
}

func idleRow(t *testing.T, rep Report, server string) Idle {
	t.Helper()
	for _, i := range rep.Idle {
		if i.Server == server {
			return i
		}
	}
	t.Fatalf("no idle row of %s", server)
	return Idle{}
}
