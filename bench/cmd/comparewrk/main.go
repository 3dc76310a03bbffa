// Command comparewrk measures loadgen against wrk side by side: it starts
// one server pinned to CPU 0 (GOMAXPROCS=1), then runs wrk -t1 and loadgen
// (GOMAXPROCS=1) alternately, each pinned to CPU 1 with the same
// connections and duration, and prints each client's CPU time per request
// (user+sys from the kernel's rusage, divided by requests completed), its
// requests/s, the server's CPU time per request and busy share under it,
// and the ratios loadgen/wrk of the medians over the rounds.
//
// Against a server cheaper per request than wrk (nginx), wrk cannot keep the
// server's core busy and the requests/s ratio shows what the client costs;
// against a dearer one (fasthttp), both clients saturate the server and the
// ratio is near 1 whatever the clients cost.
//
//	comparewrk [-server nginx] [-mode keepalive|pipeline] [-c 50] [-d 5s] [-rounds 3]
package main

import (
	"flag"
	"fmt"
	"log"
	"os/exec"
	"time"

	"hellobench/bench"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("comparewrk: ")
	server := flag.String("server", "nginx", "the `server` both clients load: any bench target (fasthttp, gnet, ...)")
	mode := flag.String("mode", "keepalive", "keepalive, or pipeline (16 requests per write)")
	conns := flag.Int("c", 50, "connections")
	dur := flag.Duration("d", 5*time.Second, "duration of each run (whole seconds for wrk)")
	rounds := flag.Int("rounds", 3, "rounds of wrk then loadgen")
	flag.Parse()
	m := bench.Mode(*mode)
	if m != bench.KeepAlive && m != bench.Pipeline {
		log.Fatalf("-mode %q: want keepalive or pipeline", *mode)
	}
	if *rounds < 1 || *conns < 1 || *dur <= 0 {
		log.Fatal("-rounds, -c and -d must be positive")
	}
	if err := compare(*server, bench.Load{Mode: m, Connections: *conns, Duration: *dur}, *rounds); err != nil {
		log.Fatal(err)
	}
}

func compare(server string, load bench.Load, rounds int) error {
	cfg, err := bench.DefaultConfig()
	if err != nil {
		return err
	}
	wrk, err := exec.LookPath("wrk")
	if err != nil {
		return fmt.Errorf("wrk not installed (Debian package wrk): %v", err)
	}
	lg, err := cfg.Binary("loadgen")
	if err != nil {
		return err
	}
	clients := []bench.Client{bench.Wrk{Bin: wrk, CPUs: cfg.ClientCPUs}, bench.Loadgen{Bin: lg, CPUs: cfg.ClientCPUs}}

	s, err := cfg.Start(server, "")
	if err != nil {
		return err
	}
	defer s.Stop()
	load.URL = s.URL()

	runs := make([][]bench.Result, len(clients))
	for i := range rounds {
		for j, c := range clients {
			r, err := bench.Measure(s, c, load)
			if err != nil {
				return err
			}
			runs[j] = append(runs[j], r)
			fmt.Printf("round %d %-8s %8.0f req/s  client %6.3f µs CPU/req  server %6.3f µs CPU/req, %3.0f%% busy\n",
				i+1, c.Name(), r.ReqPerSec, r.ClientCPUPerRequest(), r.CPUPerRequest(), r.Busy())
		}
	}

	fmt.Printf("\n%s, %s, -c %d, %s per run, median of %d rounds; server on CPUs %q, clients on CPUs %q\n",
		server, load.Mode, load.Connections, load.Duration, rounds, cfg.ServerCPUs, cfg.ClientCPUs)
	fmt.Printf("%-8s %12s %16s %16s %12s\n", "client", "requests/s", "CPU µs/request", "server µs/req", "server busy")
	var rps, cpu, busy [2]float64
	for j, c := range clients {
		rps[j] = bench.Median(runs[j], func(r bench.Result) float64 { return r.ReqPerSec })
		cpu[j] = bench.Median(runs[j], bench.Result.ClientCPUPerRequest)
		busy[j] = bench.Median(runs[j], bench.Result.Busy)
		srv := bench.Median(runs[j], bench.Result.CPUPerRequest)
		fmt.Printf("%-8s %12.0f %16.3f %16.3f %11.0f%%\n", c.Name(), rps[j], cpu[j], srv, busy[j])
	}
	fmt.Printf("CPU per request, loadgen/wrk: %.2f (target <= 0.75)\n", cpu[1]/cpu[0])
	fmt.Printf("requests/s, loadgen/wrk:      %.2f (target >= 1.00)\n", rps[1]/rps[0])
	for j, c := range clients {
		if busy[j] < bench.Saturated {
			fmt.Printf("note: under %s the server's core was %.0f%% busy: %s, not the server, set that req/s\n", c.Name(), busy[j], c.Name())
		}
	}
	if busy[0] >= bench.Saturated && busy[1] >= bench.Saturated {
		fmt.Println("note: both clients kept the server's core busy: the req/s ratio follows the server's CPU per request under each client's arrival pattern")
	}
	return nil
}
