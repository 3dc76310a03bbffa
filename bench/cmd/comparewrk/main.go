// Command comparewrk measures loadgen against wrk side by side: it starts a
// server pinned to one CPU, then runs wrk -t1 and loadgen (GOMAXPROCS=1)
// alternately, each pinned to another CPU with the same connections and
// duration, and prints each client's CPU time per request (user+sys from
// the kernel's rusage, divided by requests completed), its requests/s, and
// the ratios loadgen/wrk of the medians over the rounds.
//
//	comparewrk [-server bin/fasthttp | -nginx] [-c 50] [-d 5s] [-rounds 3]
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"syscall"
	"time"

	"hellobench/bench/proc"
	"hellobench/page"
)

func main() {
	var (
		server  = flag.String("server", "bin/fasthttp", "server binary, started with -addr; ignored with -nginx")
		nginx   = flag.Bool("nginx", false, "serve with nginx (one worker, return 200 with the page) instead")
		addr    = flag.String("addr", "127.0.0.1:18181", "address the server listens on")
		lg      = flag.String("loadgen", "bin/loadgen", "loadgen binary")
		wrk     = flag.String("wrk", "wrk", "wrk binary")
		conns   = flag.Int("c", 50, "connections")
		dur     = flag.Duration("d", 5*time.Second, "duration of each run")
		rounds  = flag.Int("rounds", 3, "rounds of wrk then loadgen")
		srvCPU  = flag.Int("server-cpu", 0, "CPU the server is pinned to")
		cliCPU  = flag.Int("client-cpu", 1, "CPU the clients are pinned to")
		pipe    = flag.Int("pipeline", 1, "pipeline depth (wrk gets it through a Lua script)")
		verbose = flag.Bool("v", false, "print each run")
	)
	flag.Parse()
	if err := compare(config{*server, *nginx, *addr, *lg, *wrk, *conns, *dur, *rounds, *srvCPU, *cliCPU, *pipe, *verbose}); err != nil {
		fmt.Fprintf(os.Stderr, "comparewrk: %v\n", err)
		os.Exit(1)
	}
}

type config struct {
	server         string
	nginx          bool
	addr, lg, wrk  string
	conns          int
	dur            time.Duration
	rounds         int
	srvCPU, cliCPU int
	pipeline       int
	verbose        bool
}

// sample is one client run.
type sample struct {
	requests  int64
	rps       float64
	cpuPerReq float64 // µs
	srvBusy   float64 // server CPU time / wall time: 1 is a saturated core
}

func compare(c config) error {
	stopServer, srvPID, err := startServer(c)
	if err != nil {
		return err
	}
	defer stopServer()
	url := "http://" + c.addr + page.Path

	var script string
	if c.pipeline > 1 {
		script, err = pipelineScript(c.pipeline)
		if err != nil {
			return err
		}
		defer os.RemoveAll(filepath.Dir(script))
	}
	secs := strconv.FormatFloat(c.dur.Seconds(), 'f', -1, 64)
	wrkArgs := []string{"-t1", "-c" + strconv.Itoa(c.conns), "-d" + secs + "s"}
	if script != "" {
		wrkArgs = append(wrkArgs, "-s", script)
	}
	wrkArgs = append(wrkArgs, url)
	lgArgs := []string{"-k", "-c", strconv.Itoa(c.conns), "-d", secs, "-json", "-pipeline", strconv.Itoa(c.pipeline), url}

	var ws, ls []sample
	for i := range c.rounds {
		w, err := measure(c, srvPID, c.wrk, wrkArgs, parseWrk)
		if err != nil {
			return fmt.Errorf("wrk: %v", err)
		}
		l, err := measure(c, srvPID, c.lg, lgArgs, parseLoadgen)
		if err != nil {
			return fmt.Errorf("loadgen: %v", err)
		}
		ws, ls = append(ws, w), append(ls, l)
		if c.verbose {
			fmt.Printf("round %d: wrk %.0f req/s %.3f µs CPU/req (server busy %.2f); loadgen %.0f req/s %.3f µs CPU/req (server busy %.2f)\n",
				i+1, w.rps, w.cpuPerReq, w.srvBusy, l.rps, l.cpuPerReq, l.srvBusy)
		}
	}
	w, l := medians(ws), medians(ls)
	fmt.Printf("-c %d, -d %s, pipeline %d, %d rounds, medians; client pinned to CPU %d, server to CPU %d\n",
		c.conns, c.dur, c.pipeline, c.rounds, c.cliCPU, c.srvCPU)
	fmt.Printf("%-8s %12s %16s %12s\n", "client", "requests/s", "CPU µs/request", "server busy")
	fmt.Printf("%-8s %12.0f %16.3f %12.2f\n", "wrk", w.rps, w.cpuPerReq, w.srvBusy)
	fmt.Printf("%-8s %12.0f %16.3f %12.2f\n", "loadgen", l.rps, l.cpuPerReq, l.srvBusy)
	fmt.Printf("CPU per request, loadgen/wrk: %.2f (target <= 0.75)\n", l.cpuPerReq/w.cpuPerReq)
	fmt.Printf("requests/s, loadgen/wrk:      %.2f (target >= 1.00)\n", l.rps/w.rps)
	if w.srvBusy < 0.9 || l.srvBusy < 0.9 {
		fmt.Println("note: the server's core was not saturated in some runs: those figures are client-bound")
	}
	return nil
}

// measure runs one client and reads its CPU time from the kernel's rusage.
func measure(c config, srvPID int, name string, args []string, parse func([]byte) (int64, float64, error)) (sample, error) {
	cmd := proc.Pinned(c.cliCPU, name, args...)
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	srv0, err := proc.TotalCPU(srvPID)
	if err != nil {
		return sample{}, err
	}
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		return sample{}, fmt.Errorf("%v: %s", err, bytes.TrimSpace(errb.Bytes()))
	}
	wall := time.Since(t0)
	srv1, err := proc.TotalCPU(srvPID)
	if err != nil {
		return sample{}, err
	}
	n, rps, err := parse(out.Bytes())
	if err != nil {
		return sample{}, err
	}
	if n == 0 {
		return sample{}, fmt.Errorf("no requests completed: %s", out.Bytes())
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return sample{
		requests:  n,
		rps:       rps,
		cpuPerReq: float64(cpu.Microseconds()) / float64(n),
		srvBusy:   (srv1 - srv0).Seconds() / wall.Seconds(),
	}, nil
}

var (
	wrkCount = regexp.MustCompile(`(\d+) requests in`)
	wrkRate  = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
)

func parseWrk(out []byte) (int64, float64, error) {
	m, r := wrkCount.FindSubmatch(out), wrkRate.FindSubmatch(out)
	if m == nil || r == nil {
		return 0, 0, fmt.Errorf("unexpected output %q", out)
	}
	n, _ := strconv.ParseInt(string(m[1]), 10, 64)
	rps, _ := strconv.ParseFloat(string(r[1]), 64)
	return n, rps, nil
}

func parseLoadgen(out []byte) (int64, float64, error) {
	var j struct {
		Complete       int64   `json:"complete"`
		Failed         int64   `json:"failed"`
		RequestsPerSec float64 `json:"requests_per_sec"`
	}
	if err := json.Unmarshal(out, &j); err != nil {
		return 0, 0, fmt.Errorf("bad JSON: %v", err)
	}
	return j.Complete + j.Failed, j.RequestsPerSec, nil
}

func medians(s []sample) sample {
	med := func(f func(sample) float64) float64 {
		v := make([]float64, len(s))
		for i, x := range s {
			v[i] = f(x)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	return sample{
		rps:       med(func(x sample) float64 { return x.rps }),
		cpuPerReq: med(func(x sample) float64 { return x.cpuPerReq }),
		srvBusy:   med(func(x sample) float64 { return x.srvBusy }),
	}
}

// startServer starts the server pinned and waits until it accepts.
func startServer(c config) (stop func(), pid int, err error) {
	var cmd *exec.Cmd
	var dir string
	if c.nginx {
		dir, err = os.MkdirTemp("", "comparewrk-nginx")
		if err != nil {
			return nil, 0, err
		}
		conf := filepath.Join(dir, "nginx.conf")
		body := string(page.HTML)
		cfg := fmt.Sprintf(`daemon off;
master_process off;
worker_processes 1;
pid %s/nginx.pid;
error_log stderr error;
events { worker_connections 4096; }
http {
	access_log off;
	client_body_temp_path %[1]s;
	keepalive_requests 1000000;
	server {
		listen %s;
		location = %s {
			default_type "%s";
			return 200 '%s';
		}
	}
}
`, dir, c.addr, page.Path, page.ContentType, body)
		if err := os.WriteFile(conf, []byte(cfg), 0o644); err != nil {
			return nil, 0, err
		}
		cmd = proc.Pinned(c.srvCPU, "nginx", "-e", "stderr", "-p", dir, "-c", conf)
	} else {
		cmd = proc.Pinned(c.srvCPU, c.server, "-addr", c.addr)
		cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, 0, err
	}
	stop = func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
	for range 100 {
		if conn, err := net.Dial("tcp", c.addr); err == nil {
			conn.Close()
			return stop, cmd.Process.Pid, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop()
	return nil, 0, fmt.Errorf("server on %s did not start", c.addr)
}

// pipelineScript writes a wrk Lua script sending depth requests per write,
// as TechEmpower's pipeline.lua does.
func pipelineScript(depth int) (string, error) {
	dir, err := os.MkdirTemp("", "comparewrk-lua")
	if err != nil {
		return "", err
	}
	f := filepath.Join(dir, "pipeline.lua")
	lua := fmt.Sprintf(`init = function(args)
  local r = {}
  for i = 1, %d do r[i] = wrk.format() end
  req = table.concat(r)
end
request = function() return req end
`, depth)
	return f, os.WriteFile(f, []byte(lua), 0o644)
}
