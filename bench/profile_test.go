package bench

import (
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

	"hellobench/bench/report/render/flame"
	"hellobench/internal/deps"
	"hellobench/internal/proc"
	"hellobench/internal/targets"
)

var (
	flagProfileServers = flag.String("profile-servers", "", "BenchmarkProfile's servers (default: every stack, nginx and the floors)")
	flagProfileFor     = flag.Duration("profile-for", 3*time.Second, "how long BenchmarkProfile records each load")
	flagProfileDir     = flag.String("profile-dir", "", "the directory BenchmarkProfile writes its folded stacks into, NAME_LOAD.folded.gz (required)")
	// 100 µs of CPU time a sample: 10 000 samples a second of a busy core,
	// some 30 000 in a 3 s run, for an overhead of about 1 %.
	flagProfilePeriod = flag.Duration("profile-period", 100*time.Microsecond, "BenchmarkProfile's sampling period, in the server's CPU time (perf record -c on cpu-clock)")
)

// profileLoads are the loads BenchmarkProfile records each server at:
// saturated, closed loop on -conns connections as BenchmarkWhy runs it,
// and at a quarter of its keep-alive ceiling, open loop, as make
// bench-load's at-load part holds it.
var profileLoads = []struct {
	label string
	share float64 // of the ceiling; 0: saturated
}{{"saturated", 0}, {"of=25%", 0.25}}

// BenchmarkProfile records each server's CPU profile, kernel and user
// frames alike, at each of profileLoads: perf record on cpu-clock with
// call graphs (frame pointers, which Go keeps, as nginx's build does not
// always: its frames below a libc call can be cut short) of every process
// of the server, while the load runs. The folded stacks go to
// -profile-dir; the benchmark reports the requests answered, the samples
// and their period, and the CPU per request /proc counted, which the
// samples are checked against. With -block, the servers run in its order.
func BenchmarkProfile(b *testing.B) {
	cfg, client := setup(b)
	perf, err := exec.LookPath("perf")
	if err != nil {
		b.Skip(deps.NotInstalled("perf"))
	}
	if *flagProfileDir == "" || *flagProfileFor <= 0 || *flagProfilePeriod < time.Microsecond {
		b.Fatalf("-profile-dir %q, -profile-for %v, -profile-period %v: want a directory, a duration and a period of 1µs or more", *flagProfileDir, *flagProfileFor, *flagProfilePeriod)
	}
	if err := os.MkdirAll(*flagProfileDir, 0o755); err != nil {
		b.Fatal(err)
	}
	withCeilings(b, profileServers(), *flagProfileServers != "", func(name string, ceil float64) {
		b.Run(name, func(b *testing.B) {
			s := start(b, cfg, name)
			for _, p := range profileLoads {
				b.Run(p.label, func(b *testing.B) {
					l := Load{URL: s.URL(), Mode: KeepAlive, Connections: *flagConns, Duration: *flagProfileFor, Rate: p.share * ceil, Spin: p.share > 0}
					profiled(b, perf, client, s, l, filepath.Join(*flagProfileDir, ProfileFile(name, p.label)))
				})
			}
		})
	})
}

// profileServers are -profile-servers, or every target but lighttpd's
// static file, which is no stack.
func profileServers() []string {
	if *flagProfileServers != "" {
		return strings.Split(*flagProfileServers, ",")
	}
	return slices.DeleteFunc(targets.Names(), func(n string) bool { return n == "lighttpd-static" })
}

// profiled runs load l on s while perf samples every thread of its
// processes, and writes the folded stacks to file.
func profiled(b *testing.B, perf string, client Client, s *Server, l Load, file string) {
	var pids []string
	for _, p := range proc.Group(s.PID()) {
		pids = append(pids, strconv.Itoa(p.PID))
	}
	dir := b.TempDir()
	rec := filepath.Join(dir, "perf.data")
	ctl, err := newPerfControl(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer ctl.Close()
	// -D -1: perf starts with its events off, and samples from the enable
	// command on, whenever it has attached to every thread.
	cmd := exec.Command(perf, "record", "-q", "-e", "cpu-clock", "-c", fmt.Sprint(flagProfilePeriod.Nanoseconds()), "-g",
		"-D", "-1", "--control", "fifo:"+ctl.ctlPath+","+ctl.ackPath, "-o", rec, "-p", strings.Join(pids, ","))
	cmd.Stderr = &bytes.Buffer{}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer cmd.Process.Kill()
	if err := ctl.send("enable"); err != nil {
		b.Fatalf("perf record: %v: %s", err, cmd.Stderr)
	}
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
	if err := ctl.send("disable"); err != nil {
		b.Fatalf("perf record: %v: %s", err, cmd.Stderr)
	}
	cmd.Process.Signal(syscall.SIGINT)
	// perf writes its data, then dies of the signal it caught.
	var exit *exec.ExitError
	if err := cmd.Wait(); err != nil && !(errors.As(err, &exit) && exit.Sys().(syscall.WaitStatus).Signal() == syscall.SIGINT) {
		b.Fatalf("perf record: %v: %s", err, cmd.Stderr)
	}
	script := exec.Command(perf, "script", "-i", rec, "--no-inline", "-F", "comm,tid,period,ip,sym,dso")
	script.Stderr = &bytes.Buffer{}
	out, err := script.Output()
	if err != nil {
		b.Fatalf("perf script: %v: %s", err, script.Stderr)
	}
	folded, err := FoldPerf(bytes.NewReader(out))
	if err != nil {
		b.Fatal(err)
	}
	var samples int64
	for _, n := range folded {
		samples += n
	}
	if st.Requests == 0 || samples == 0 {
		b.Fatalf("%d requests answered, %d samples: nothing to profile", st.Requests, samples)
	}
	if err := WriteFolded(file, folded); err != nil {
		b.Fatal(err)
	}
	// The flame graph beside it, for the page to show.
	title := fmt.Sprintf("%s, %s: CPU profile (perf, kernel and user)", s.Name, b.Name()[strings.LastIndex(b.Name(), "/")+1:])
	key := fmt.Sprintf("%d samples of %v of CPU time each, %d requests; width: share of the samples; the root at the bottom; orange: kernel, aqua: Go's runtime",
		samples, *flagProfilePeriod, st.Requests)
	if err := os.WriteFile(strings.TrimSuffix(file, ".folded.gz")+".svg", []byte(flame.SVG(folded, title, key)), 0o644); err != nil {
		b.Fatal(err)
	}
	n := float64(st.Requests)
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(l.Rate, "rate")
	b.ReportMetric(st.ReqPerSec, "req/s")
	b.ReportMetric(n, "requests")
	b.ReportMetric(float64(samples), "samples")
	b.ReportMetric(float64(flagProfilePeriod.Nanoseconds())/1e3, "period-us")
	// /proc's count over the same run: the samples' CPU per request
	// should be near it (perf's window is a little longer, and idle).
	b.ReportMetric((u1.CPU-u0.CPU).Seconds()*1e6/n, "cpu-us/req")
}

// perfControl is perf record's control and acknowledgement FIFOs
// (--control): a command sent returns once perf has carried it out.
type perfControl struct {
	ctlPath, ackPath string
	ctl, ack         *os.File
}

// newPerfControl makes the FIFOs in dir and opens them read-write, which
// never blocks, so that perf finds a reader and a writer at its end.
func newPerfControl(dir string) (*perfControl, error) {
	c := &perfControl{ctlPath: filepath.Join(dir, "ctl"), ackPath: filepath.Join(dir, "ack")}
	for _, p := range []string{c.ctlPath, c.ackPath} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			return nil, fmt.Errorf("bench: perf's control: %v", err)
		}
	}
	var err error
	if c.ctl, err = os.OpenFile(c.ctlPath, os.O_RDWR, 0); err != nil {
		return nil, err
	}
	if c.ack, err = os.OpenFile(c.ackPath, os.O_RDWR, 0); err != nil {
		c.ctl.Close()
		return nil, err
	}
	return c, nil
}

// send sends perf a command and waits for its acknowledgement, 10 s at
// most: perf that has not answered by then has not started.
func (c *perfControl) send(cmd string) error {
	if _, err := c.ctl.WriteString(cmd + "\n"); err != nil {
		return err
	}
	c.ack.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 16)
	n, err := c.ack.Read(buf)
	if err != nil {
		return fmt.Errorf("no acknowledgement of %q: %v", cmd, err)
	}
	if got := strings.TrimRight(string(buf[:n]), "\n\x00"); got != "ack" {
		return fmt.Errorf("%q acknowledged with %q", cmd, got)
	}
	return nil
}

func (c *perfControl) Close() {
	c.ctl.Close()
	c.ack.Close()
}
