//go:build linux

package proc

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestCPUGrows(t *testing.T) {
	before, err := ReadStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// Burn 100 ms of CPU, several clock ticks, as getrusage counts it: on
	// a busy machine that takes longer than 100 ms of wall time.
	used := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			t.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start, deadline := used(), time.Now().Add(30*time.Second)
	x := 0
	for used()-start < 100*time.Millisecond && time.Now().Before(deadline) {
		x++
	}
	after, err := ReadStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if d := after.CPU() - before.CPU(); d < 50*time.Millisecond || d > 5*time.Second {
		t.Fatalf("CPU time grew by %v in /proc over 100 ms of CPU by getrusage (x=%d)", d, x)
	}
	if after.PID != os.Getpid() || after.PPID != os.Getppid() || !after.Live() {
		t.Errorf("stat of this process: %+v", after)
	}
}

func TestParseStat(t *testing.T) {
	// A command name with a space and a parenthesis, as a process may choose.
	line := "42 (a b) c) S 1 42 42 0 -1 4194560 100 0 0 0 250 30 0 0 20 0 1 0 100 1000 10\n"
	s, err := parseStat(42, []byte(line))
	if err != nil {
		t.Fatal(err)
	}
	want := Stat{PID: 42, Comm: "a b) c", State: 'S', PPID: 1, PGID: 42, User: 2500 * time.Millisecond, Sys: 300 * time.Millisecond}
	if s != want {
		t.Errorf("got %+v, want %+v", s, want)
	}
	if _, err := parseStat(42, []byte("42 (x) S 1")); err == nil {
		t.Error("a short stat line parsed")
	}
}

func TestReadMemory(t *testing.T) {
	m, err := ReadMemory(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if m.RSS < 1<<20 || m.Peak < m.RSS || m.Peak > 1<<34 {
		t.Fatalf("memory %+v: not plausible for a Go test binary", m)
	}
	if _, err := ReadMemory(1 << 30); err == nil {
		t.Fatal("memory of a PID that cannot exist: no error")
	}
}

func TestParseCPUs(t *testing.T) {
	if got, err := ParseCPUs("0"); err != nil || len(got) != 1 || got[0] != 0 {
		t.Errorf("ParseCPUs(0) = %v, %v", got, err)
	}
	for _, bad := range []string{"", "x", "1-0", "-1", "0,"} {
		if _, err := ParseCPUs(bad); err == nil || !strings.Contains(err.Error(), "bad CPU list") {
			t.Errorf("ParseCPUs(%q): %v", bad, err)
		}
	}
	if _, err := ParseCPUs("1000"); err == nil || !strings.Contains(err.Error(), "CPU 1000 does not exist here: this machine has CPUs 0") {
		t.Errorf("ParseCPUs(1000): %v", err)
	}
}

// sh starts a shell script as a process group leader.
func sh(t *testing.T, script string, s Spec) *Process {
	t.Helper()
	s.Name, s.Path, s.Args = "sh", "sh", []string{"-c", script}
	p, err := Start(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Kill() })
	return p
}

// waitOutput waits until the process has written want.
func waitOutput(t *testing.T, p *Process, want string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(p.Output().String(), want); {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the output %q", want, p.Output())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestStartPinned(t *testing.T) {
	p := sh(t, `grep Cpus_allowed_list /proc/self/status; ulimit -n; echo "procs=$GOMAXPROCS x=$X"`, Spec{CPUs: "0", Procs: 3, NoFile: 256, Env: []string{"X=1"}})
	if code, err := p.ExitCode(); code != 0 || err != nil {
		t.Fatalf("exit %d, %v: %s", code, err, p.Output())
	}
	out := p.Output().String()
	for _, want := range []string{"Cpus_allowed_list:\t0\n", "\n256\n", "procs=3 x=1"} {
		if !strings.Contains(out, want) {
			t.Errorf("output %q lacks %q", out, want)
		}
	}
}

func TestStopGraceful(t *testing.T) {
	// A leader that stops on TERM, taking its child with it.
	p := sh(t, `sleep 300 & child=$!; trap 'kill $child; exit 0' TERM; echo up; wait`, Spec{})
	waitOutput(t, p, "up")
	if n := len(Group(p.PID())); n != 2 {
		t.Fatalf("%d processes in the group, want 2", n)
	}
	if err := p.Stop(syscall.SIGTERM, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	if code, err := p.ExitCode(); code != 0 || err != nil {
		t.Errorf("exit %d, %v", code, err)
	}
	if left := Group(p.PID()); len(left) != 0 {
		t.Errorf("left behind: %+v", left)
	}
}

func TestStopReportsLeftovers(t *testing.T) {
	// The leader exits on TERM but leaves its child running.
	p := sh(t, `sleep 300 & trap 'exit 0' TERM; echo up; wait`, Spec{})
	waitOutput(t, p, "up")
	err := p.Stop(syscall.SIGTERM, 2*time.Second)
	if err == nil || !strings.Contains(err.Error(), "left 1 processes running") || !strings.Contains(err.Error(), "sleep") {
		t.Errorf("got %v, want an error naming the sleep left behind", err)
	}
	if left := Group(p.PID()); len(left) != 0 {
		t.Errorf("still left behind after Stop: %+v", left)
	}
}

func TestStopKillsStubborn(t *testing.T) {
	p := sh(t, `trap '' TERM; echo up; while :; do sleep 0.05; done`, Spec{})
	waitOutput(t, p, "up")
	start := time.Now()
	err := p.Stop(syscall.SIGTERM, 300*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "still running 300ms after terminated: killed") {
		t.Errorf("got %v, want the stubborn leader reported", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Stop took %v", d)
	}
	if code, _ := p.ExitCode(); code != -1 {
		t.Errorf("exit code %d, want -1 (killed)", code)
	}
}

func TestWaitListeningExited(t *testing.T) {
	p := sh(t, `echo "cannot bind" >&2; exit 3`, Spec{})
	err := p.WaitListening("127.0.0.1:1", nil, 5*time.Second)
	if err == nil || !strings.Contains(err.Error(), "sh exited before listening on 127.0.0.1:1 (exit status 3)") || !strings.Contains(err.Error(), "cannot bind") {
		t.Errorf("got %v", err)
	}
}

func TestRun(t *testing.T) {
	pids := filepath.Join(t.TempDir(), "pids")
	// A child left running by a command that ran fine: Run kills it. The
	// shell's loop is user-mode time.
	out, cpu, err := Run(Spec{Name: "sh", Path: "sh", Args: []string{"-c", `sleep 300 & echo $! > ` + pids + `; i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; echo done`}})
	if err != nil || string(out) != "done\n" || cpu.User <= 0 || cpu.CPU() != cpu.User+cpu.Sys {
		t.Errorf("Run: %q, %v, %v", out, cpu, err)
	}
	b, _ := os.ReadFile(pids)
	if pid, _ := strconv.Atoi(strings.TrimSpace(string(b))); pid == 0 || Alive(pid) {
		t.Errorf("child %q not killed", b)
	}
	_, _, err = Run(Spec{Name: "sh", Path: "sh", Args: []string{"-c", "echo partial; echo broken >&2; exit 4"}})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 4 || ee.Stderr != "broken" {
		t.Errorf("Run of a failing command: %v", err)
	}
}

func TestParseSNMP(t *testing.T) {
	snmp := "Ip: Forwarding DefaultTTL\nIp: 1 64\nTcp: RtoAlgorithm ActiveOpens InSegs OutSegs\nTcp: 1 12 4071 3907\nUdp: InDatagrams OutSegs\nUdp: 5 6\n"
	if n, err := parseSNMP([]byte(snmp), "Tcp", "OutSegs"); err != nil || n != 3907 {
		t.Errorf("Tcp OutSegs: %d, %v; want 3907", n, err)
	}
	for _, bad := range []string{"Tcp: OutSegs\n", "Tcp: OutSegs\nTcp: x\n", "Tcp: InSegs\nTcp: 4\n"} {
		if n, err := parseSNMP([]byte(bad), "Tcp", "OutSegs"); err == nil {
			t.Errorf("%q: %d, want an error", bad, n)
		}
	}
	// The live counter grows with a connection's segments.
	before, err := TCPSegments()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if after, err := TCPSegments(); err != nil || after < before+2 {
		t.Errorf("segments %d after a connect and close, %d before (%v)", after, before, err)
	}
}

// A listener of this process is among its sockets and listening on its
// port; the machine facts are read.
func TestSockets(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	lns, err := Listening(ln.Addr().(*net.TCPAddr).Port)
	if err != nil || len(lns) != 1 {
		t.Fatalf("listening on %s: %v, %v; want one socket", ln.Addr(), lns, err)
	}
	mine, err := Sockets(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	for inode := range lns {
		if !mine[inode] {
			t.Errorf("socket %s listening on %s is not among this process's %v", inode, ln.Addr(), mine)
		}
	}
	if k := Kernel(); k == "" {
		t.Error("no kernel release")
	}
}
