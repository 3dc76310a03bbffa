package bench

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hellobench/internal/deps"
	"hellobench/internal/proc"
	"hellobench/internal/targets"
)

var (
	flagWhyServers       = flag.String("why-servers", "", "BenchmarkWhy's servers (default: every stack, nginx and the floors)")
	flagReadinessServers = flag.String("readiness-servers", "floor,floor-uring,gnet,uring,nginx", "BenchmarkReadiness's servers")
	flagWhyFor           = flag.Duration("why-for", 2*time.Second, "how long BenchmarkWhy counts each load")
)

// tracefs is where the kernel's tracepoints are, which perf counts.
const tracefs = "/sys/kernel/tracing"

// BenchmarkWhy counts, per request, what a server asks of the kernel at a
// quarter of its keep-alive ceiling (open loop, -ceilings) and saturated
// (closed loop): system calls and epoll_wait calls (perf, on the kernel's
// tracepoints: counted in the kernel, not stopped at as strace does),
// the events each epoll_wait returned (perf record of its exits), and
// context switches, voluntary and not (/proc, every thread of every
// process of the server). With -block, the servers run in its order.
func BenchmarkWhy(b *testing.B) {
	cfg, client := setup(b)
	perf := perfReady(b)
	withCeilings(b, whyServers(), true, func(name string, ceil float64) {
		b.Run(name, func(b *testing.B) {
			s := start(b, cfg, name)
			for _, p := range []struct {
				label string
				rate  float64
			}{{"of=25%", ceil / 4}, {"saturated", 0}} {
				b.Run(p.label, func(b *testing.B) { counted(b, perf, client, s, whyLoad(s, p.rate)) })
			}
		})
	})
}

// whyServers are -why-servers, or every target but lighttpd's static
// file, which is no stack.
func whyServers() []string {
	if *flagWhyServers != "" {
		return strings.Split(*flagWhyServers, ",")
	}
	return slices.DeleteFunc(targets.Names(), func(n string) bool { return n == "lighttpd-static" })
}

// BenchmarkReadiness counts, per request, what the floors ask of the
// kernel saturated (closed loop), as BenchmarkWhy does, with the io_uring
// floor's io_uring_enter calls and each server's CPU split into its own
// code and the kernel's: what the readiness model (epoll) costs over
// io_uring's completions. With -block, the servers run in its order; a
// server the machine cannot run (io_uring refused) is skipped.
func BenchmarkReadiness(b *testing.B) {
	cfg, client := setup(b)
	perf := perfReady(b)
	names := strings.Split(*flagReadinessServers, ",")
	if *flagBlock >= 0 {
		names = permute(names, *flagBlock)
	}
	for _, name := range names {
		b.Run(name+"/saturated", func(b *testing.B) {
			s := start(b, cfg, name)
			counted(b, perf, client, s, whyLoad(s, 0))
		})
	}
}

// perfReady returns perf's path, with the tracepoints mounted for it to
// count, or skips b.
func perfReady(b *testing.B) string {
	perf, err := exec.LookPath("perf")
	if err != nil {
		b.Skip(deps.NotInstalled("perf"))
	}
	if err := mountTracefs(); err != nil {
		b.Skipf("no tracepoints to count with: %v", err)
	}
	return perf
}

// mountTracefs mounts the tracepoints' file system where it is not yet.
func mountTracefs() error {
	if _, err := os.Stat(filepath.Join(tracefs, "events")); err == nil {
		return nil
	}
	return syscall.Mount("nodev", tracefs, "tracefs", 0, "")
}

// counted runs load l while perf counts the server's system calls and
// records its epoll_wait exits.
func counted(b *testing.B, perf string, client Client, s *Server, l Load) {
	var pids []string
	for _, p := range proc.Group(s.PID()) {
		pids = append(pids, strconv.Itoa(p.PID))
	}
	dir := b.TempDir()
	statFile, recFile := filepath.Join(dir, "stat"), filepath.Join(dir, "rec")
	list := strings.Join(pids, ",")
	stat := exec.Command(perf, "stat", "-x,", "-o", statFile, "-p", list, "-e", strings.Join(countedEvents(), ","))
	rec := exec.Command(perf, "record", "-q", "-o", recFile, "-p", list,
		"-e", "syscalls:sys_exit_epoll_wait,syscalls:sys_exit_epoll_pwait,syscalls:sys_exit_epoll_pwait2")
	for _, c := range []*exec.Cmd{stat, rec} {
		c.Stderr = &bytes.Buffer{}
		if err := c.Start(); err != nil {
			b.Fatal(err)
		}
		defer c.Process.Kill()
	}
	time.Sleep(300 * time.Millisecond) // perf attaches to every thread
	v0, n0, err := switches(pids)
	if err != nil {
		b.Fatal(err)
	}
	user0, sys0 := cpuTimes(pids)
	u0, err := s.Usage()
	if err != nil {
		b.Fatal(err)
	}
	st, err := client.Run(l)
	if err != nil {
		fellOver(b, err)
		return
	}
	u1, err := s.Usage()
	if err != nil {
		b.Fatal(err)
	}
	v1, n1, err := switches(pids)
	if err != nil {
		b.Fatal(err)
	}
	user1, sys1 := cpuTimes(pids)
	for _, c := range []*exec.Cmd{stat, rec} {
		c.Process.Signal(syscall.SIGINT)
		// perf writes its counts, then dies of the signal it caught, as
		// the program it measured would have.
		var exit *exec.ExitError
		if err := c.Wait(); err != nil && !(errors.As(err, &exit) && exit.Sys().(syscall.WaitStatus).Signal() == syscall.SIGINT) {
			b.Fatalf("perf: %v: %s", err, c.Stderr)
		}
	}
	calls, err := perfCounts(statFile)
	if err != nil {
		b.Fatal(err)
	}
	waits, events, err := epollExits(perf, recFile)
	if err != nil {
		b.Fatal(err)
	}
	n := float64(st.Requests)
	if n == 0 {
		b.Fatal("no request answered")
	}
	epolls := calls["syscalls:sys_enter_epoll_wait"] + calls["syscalls:sys_enter_epoll_pwait"] + calls["syscalls:sys_enter_epoll_pwait2"]
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(st.ReqPerSec, "req/s")
	b.ReportMetric(100*(u1.CPU-u0.CPU).Seconds()/st.Elapsed.Seconds(), "cpu-%")
	b.ReportMetric(calls["raw_syscalls:sys_enter"]/n, "syscalls/req")
	b.ReportMetric(epolls/n, "epoll-waits/req")
	if waits > 0 {
		b.ReportMetric(events/waits, "events/wait")
	}
	b.ReportMetric(calls["syscalls:sys_enter_io_uring_enter"]/n, "uring-enters/req")
	// The system calls by kind: reads and writes of every form, futex
	// (goroutines and threads waking each other), epoll_ctl; the rest is
	// the total less these, the epoll_waits and io_uring_enter.
	kinds := 0.0
	for _, k := range callKinds {
		c := 0.0
		for _, name := range k.calls {
			c += calls["syscalls:sys_enter_"+name]
		}
		b.ReportMetric(c/n, k.unit)
		kinds += c
	}
	b.ReportMetric((calls["raw_syscalls:sys_enter"]-kinds-epolls-calls["syscalls:sys_enter_io_uring_enter"])/n, "other-calls/req")
	b.ReportMetric(float64(v1-v0)/n, "vcsw/req")
	b.ReportMetric(float64(n1-n0)/n, "ivcsw/req")
	// In the clock's ticks (/proc's stat): a split of the CPU above into
	// the process's own code and the kernel's on its behalf.
	b.ReportMetric((user1-user0).Seconds()*1e6/n, "user-us/req")
	b.ReportMetric((sys1-sys0).Seconds()*1e6/n, "sys-us/req")
}

// whyLoad is BenchmarkWhy's load on s: keep-alive on -conns connections
// for -why-for, open loop at rate (the client polling between sends), or
// closed where rate is 0.
func whyLoad(s *Server, rate float64) Load {
	return Load{URL: s.URL(), Mode: KeepAlive, Connections: *flagConns, Duration: *flagWhyFor, Rate: rate, Spin: rate > 0}
}

// callKinds are the kinds of system call BenchmarkWhy counts apart, each
// a metric per request.
var callKinds = []struct {
	unit  string
	calls []string
}{
	{"reads/req", []string{"read", "readv", "recvfrom", "recvmsg", "recvmmsg"}},
	{"writes/req", []string{"write", "writev", "sendto", "sendmsg", "sendmmsg"}},
	{"futex/req", []string{"futex"}},
	{"epoll-ctl/req", []string{"epoll_ctl"}},
}

// countedEvents are perf stat's events: every system call, the
// epoll_wait family, io_uring_enter and callKinds' calls, those of them
// this kernel has a tracepoint for.
func countedEvents() []string {
	names := []string{"epoll_wait", "epoll_pwait", "epoll_pwait2", "io_uring_enter"}
	for _, k := range callKinds {
		names = append(names, k.calls...)
	}
	events := []string{"raw_syscalls:sys_enter"}
	for _, n := range names {
		if _, err := os.Stat(filepath.Join(tracefs, "events", "syscalls", "sys_enter_"+n)); err == nil {
			events = append(events, "syscalls:sys_enter_"+n)
		}
	}
	return events
}

// cpuTimes sums the user and kernel CPU time of pids, threads included.
func cpuTimes(pids []string) (user, sys time.Duration) {
	for _, pid := range pids {
		n, _ := strconv.Atoi(pid)
		if st, err := proc.ReadStat(n); err == nil {
			user += st.User
			sys += st.Sys
		}
	}
	return user, sys
}

// switches sums the voluntary and involuntary context switches of every
// thread of pids.
func switches(pids []string) (voluntary, involuntary int64, err error) {
	for _, pid := range pids {
		tasks, err := filepath.Glob(filepath.Join("/proc", pid, "task", "*", "status"))
		if err != nil || len(tasks) == 0 {
			return 0, 0, fmt.Errorf("bench: no threads of %s", pid)
		}
		for _, t := range tasks {
			b, err := os.ReadFile(t)
			if err != nil {
				continue // the thread ended
			}
			for line := range strings.Lines(string(b)) {
				k, v, _ := strings.Cut(line, ":")
				n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				switch k {
				case "voluntary_ctxt_switches":
					voluntary += n
				case "nonvoluntary_ctxt_switches":
					involuntary += n
				}
			}
		}
	}
	return voluntary, involuntary, nil
}

// perfCounts reads perf stat's CSV: event name → count.
func perfCounts(file string) (map[string]float64, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	counts := map[string]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ",")
		if len(fields) < 3 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		if v, err := strconv.ParseFloat(fields[0], 64); err == nil {
			counts[fields[2]] = v
		}
	}
	if _, ok := counts["raw_syscalls:sys_enter"]; !ok {
		return nil, errors.New("bench: perf stat counted no system calls")
	}
	return counts, nil
}

// epollExits reads perf record's epoll_wait exits: how many, and the
// events they returned in all (their return values; an error returns
// none).
func epollExits(perf, file string) (waits, events float64, err error) {
	out, err := exec.Command(perf, "script", "-i", file, "-F", "trace").Output()
	if err != nil {
		return 0, 0, fmt.Errorf("bench: perf script: %v", err)
	}
	for line := range strings.Lines(string(out)) {
		v, err := strconv.ParseInt(strings.TrimSpace(line), 0, 64)
		if err != nil {
			continue
		}
		waits++
		events += float64(max(v, 0))
	}
	return waits, events, nil
}
