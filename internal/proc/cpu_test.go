//go:build linux

package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// rusage returns who's user+system CPU time by getrusage.
func rusage(t testing.TB, who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// burn spins until this process has used d more CPU, by getrusage.
func burn(t testing.TB, d time.Duration) {
	start := rusage(t, syscall.RUSAGE_SELF)
	for rusage(t, syscall.RUSAGE_SELF)-start < d {
	}
}

// TestBurner is not a test: TestCPUOfGroup runs the test binary as a
// burner that burns 150 ms, runs a child that burns 150 ms and exits, and
// prints its own and its child's CPU time by getrusage, then waits.
func TestBurner(t *testing.T) {
	switch os.Getenv("HELLOBENCH_BURNER") {
	case "":
		t.Skip("run by TestCPUOfGroup")
	case "child":
		burn(t, 150*time.Millisecond)
		return
	}
	burn(t, 150*time.Millisecond)
	p, err := os.StartProcess(os.Args[0], []string{os.Args[0], "-test.run", "^TestBurner$"}, &os.ProcAttr{
		Env: []string{"HELLOBENCH_BURNER=child"}, Files: []*os.File{nil, os.Stdout, os.Stderr},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("used %d\n", rusage(t, syscall.RUSAGE_SELF)+rusage(t, syscall.RUSAGE_CHILDREN))
	time.Sleep(time.Hour)
}

// TestCPUOfGroup checks the CPU time read for a started process against
// what the kernel's getrusage says it and its child used: within 1 % in
// its control group, counting the child that exited during the round.
func TestCPUOfGroup(t *testing.T) {
	if cgroups() == nil {
		t.Skipf("no control group can be made here; CPU is read from %s", CPUSource())
	}
	p, err := Start(Spec{Name: "burner", Path: os.Args[0], Args: []string{"-test.run", "^TestBurner$"}, Env: []string{"HELLOBENCH_BURNER=parent"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	var used time.Duration
	for deadline := time.Now().Add(60 * time.Second); used == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the burner never finished; output: %q", p.Output())
		}
		if _, line, ok := strings.Cut(p.Output().String(), "used "); ok {
			fmt.Sscanf(line, "%d", &used)
		}
	}
	u, err := p.Usage()
	if err != nil {
		t.Fatal(err)
	}
	if u.Source != CPUSource() {
		t.Errorf("read from %s, CPUSource says %s", u.Source, CPUSource())
	}
	// The shell that moved the burner into its group ran there first (a
	// few ms at most); otherwise the two must agree within 1 %.
	if d := (u.CPU - used).Abs(); float64(d) > 0.01*float64(used)+float64(5*time.Millisecond) {
		t.Errorf("group CPU %v, getrusage %v: off by %v", u.CPU, used, d)
	}
	// Without the group, only the live leader counts: the child's 150 ms
	// are gone, which is why the group is read.
	if live := u.ByComm[commOf(p)]; live > used-100*time.Millisecond {
		t.Errorf("the live processes used %v of the %v; the exited child should be missing", live, used)
	}
}

// commOf returns the command name the kernel gives p's leader.
func commOf(p *Process) string {
	s, err := ReadStat(p.PID())
	if err != nil {
		return ""
	}
	return s.Comm
}

func TestSchedCPU(t *testing.T) {
	before, err := schedCPU(os.Getpid())
	if err != nil {
		t.Skipf("no schedstat here: %v", err)
	}
	burn(t, 50*time.Millisecond)
	after, err := schedCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if d := after - before; d < 50*time.Millisecond || d > 5*time.Second {
		t.Errorf("schedstat grew by %v over 50 ms of CPU by getrusage", d)
	}
}

func TestParseCPUStat(t *testing.T) {
	d, err := parseCPUStat([]byte("usage_usec 16772000\nuser_usec 8584000\nsystem_usec 8188000\n"))
	if err != nil || d != 16772*time.Millisecond {
		t.Errorf("parseCPUStat = %v, %v; want 16.772s", d, err)
	}
	if _, err := parseCPUStat([]byte("user_usec 1\n")); err == nil || !strings.Contains(err.Error(), "no usage_usec") {
		t.Errorf("parseCPUStat without usage_usec: %v", err)
	}
}

// TestBusyOn finds a burner pinned to CPU 0 as busy on it, and not on
// CPU 1, where its affinity does not let it run.
func TestBusyOn(t *testing.T) {
	if _, err := ParseCPUs("0,1"); err != nil {
		t.Skip(err)
	}
	p, err := Start(Spec{Name: "burner", Path: "/bin/sh", Args: []string{"-c", "while :; do :; done"}, CPUs: "0"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	has := func(bs []Busy) bool {
		return slices.ContainsFunc(bs, func(b Busy) bool { return b.PID == p.PID() })
	}
	busy := BusyOn([]int{0}, time.Second, 5)
	if !has(busy) {
		t.Errorf("BusyOn(CPU 0) = %v, without the burner %d", busy, p.PID())
	}
	for _, b := range busy {
		if b.PID == p.PID() && (b.Comm != "sh" || b.Share < 5) {
			t.Errorf("the burner as %v", b)
		}
	}
	if busy := BusyOn([]int{1}, 300*time.Millisecond, 5); has(busy) {
		t.Errorf("BusyOn(CPU 1) = %v: the burner may not run there", busy)
	}
}

func TestGroupOwner(t *testing.T) {
	for name, want := range map[string]int{
		"fcgi-3156-16":        3156,
		"lighttpd-static-7-2": 7,
		"probe-42-1":          42,
		"fcgi-16":             0,
		"fcgi":                0,
		"x-y-1":               0,
	} {
		pid, ok := groupOwner(name)
		if ok != (want > 0) || pid != want {
			t.Errorf("groupOwner(%q) = %d, %v; want %d", name, pid, ok, want)
		}
	}
}

// TestSweepKeepsLiveHarnessGroups: a second harness starting up (another
// test package) removes the groups of harnesses that have exited, but not
// a live one's group made a moment ago and still empty.
func TestSweepKeepsLiveHarnessGroups(t *testing.T) {
	c := cgroups()
	if c == nil {
		t.Skipf("no control group can be made here; CPU is read from %s", CPUSource())
	}
	mine, err := c.make("waiting")
	if err != nil {
		t.Fatal(err)
	}
	defer removeGroup(mine)
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(c.parent, fmt.Sprintf("left-%d-1", gone.Process.Pid))
	if err := os.Mkdir(stale, 0o755); err != nil {
		t.Fatal(err)
	}
	defer removeGroup(stale)

	other := &cgroupFS{source: c.source, parent: c.parent, read: c.read}
	if !other.usable() {
		t.Fatal("a second harness found the hierarchy unusable")
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("a live harness's empty group was swept: %v", err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an exited harness's group %s was left: %v", stale, err)
	}
}
