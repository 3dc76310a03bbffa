package plan

import (
	"strings"
	"testing"
)

// TestProfileCommands checks bin/report -profile's commands: every
// server profiled in one command, then each Go stack's in-memory
// benchmark at both lengths with every allocation recorded; -quick two
// servers, short, and net/http's and fasthttp's allocations.
func TestProfileCommands(t *testing.T) {
	cmds := Profile(false, "nethttp=50000,nginx=90000", "/r/profiles")
	// The profile, then two runs of each of the nine Go stacks with an
	// in-memory loop (not hertz's nor nbio's).
	if len(cmds) != 19 {
		t.Fatalf("%d commands, want 19: %q", len(cmds), cmds)
	}
	first := strings.Join(cmds[0], " ")
	if want := "go test -run ^$ -bench ^BenchmarkProfile$ -benchtime 1x -timeout 0 ./bench -args -ceilings nethttp=50000,nginx=90000 -profile-dir /r/profiles"; first != want {
		t.Errorf("the profile's command:\n%s\nwant\n%s", first, want)
	}
	fcgi := strings.Join(cmds[11], " ")
	if want := "go test -run ^$ -bench ^BenchmarkKeepConn$ -benchtime 2000x -benchmem -cpu 1 -trimpath -memprofile /r/profiles/fcgi_alloc_2000.pprof -memprofilerate 1 ./servers/fcgi"; fcgi != want {
		t.Errorf("fcgi's first allocation run:\n%s\nwant\n%s", fcgi, want)
	}
	q := Profile(true, "nethttp=50000,nginx=90000", "/r/profiles")
	if len(q) != 5 || !strings.HasSuffix(strings.Join(q[0], " "), "-profile-servers nethttp,nginx -profile-for 300ms") {
		t.Errorf("-quick's profile: %q", q)
	}
	if got := strings.Join(q[4], " "); !strings.Contains(got, "-benchtime 600x") || !strings.HasSuffix(got, "-memprofile /r/profiles/fasthttp_alloc_600.pprof -memprofilerate 1 ./servers/fasthttp") {
		t.Errorf("-quick's last allocation run: %s", got)
	}
}

func TestTraceCommand(t *testing.T) {
	cmds := Trace("/r/traces")
	if len(cmds) != 1 || strings.Join(cmds[0], " ") != "go test -run ^$ -bench ^BenchmarkTrace$ -benchtime 1x -timeout 0 ./bench -args -trace-dir /r/traces" {
		t.Errorf("the trace's commands: %q", cmds)
	}
}

// TestProfileRelative checks a directory named from the module root: the
// profile's benchmark, which runs in bench/, finds it one level up, and
// the allocation runs, whose profiles go test writes from the root, name
// it as it is; no command names a directory of this machine.
func TestProfileRelative(t *testing.T) {
	cmds := Profile(false, "nethttp=50000", "results/profiles")
	if got := strings.Join(cmds[0], " "); !strings.HasSuffix(got, "-profile-dir ../results/profiles") {
		t.Errorf("the profile's command: %s", got)
	}
	if got := strings.Join(cmds[1], " "); !strings.Contains(got, "-memprofile results/profiles/nethttp_alloc_2000.pprof ") {
		t.Errorf("the first allocation run: %s", got)
	}
	if got := strings.Join(Trace("results/traces")[0], " "); !strings.HasSuffix(got, "-trace-dir ../results/traces") {
		t.Errorf("the trace's command: %s", got)
	}
}
