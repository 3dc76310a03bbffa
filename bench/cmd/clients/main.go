// Command clients compares the HTTP/1.1 load generators at hand (loadgen,
// wrk -t1, h2load, bombardier, hey) against one server: it starts the
// server once, pinned to CPU 0 with GOMAXPROCS=1, warms it up once, then in
// each mode runs every client in turn, round after round, each pinned to
// CPU 1 with GOMAXPROCS=1, the same connections and duration. It prints a
// line per run to standard error, then per mode and client the client's
// CPU time per request (user+sys from rusage), its requests/s, the
// server's CPU time per request and busy share, and the client's CPU per
// request and requests/s as ratios to wrk's, taken round by round; and it
// writes all of it, every round included, as JSON for the report.
//
// A client that is not installed or cannot run a mode has rows that say
// why.
//
// Usage:
//
//	clients [-server nginx] [-c 50] [-d 3s] [-rounds 5] [-modes keepalive,pipeline,close]
//	        [-clients loadgen,wrk,h2load,bombardier,hey] [-out results/clients.json]
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	"hellobench/bench"
	"hellobench/internal/proc"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("clients: ")
	server := flag.String("server", "nginx", "the `target` every client loads")
	conns := flag.Int("c", 50, "connections of each client")
	dur := flag.Duration("d", 3*time.Second, "duration of each measured run (whole seconds while wrk runs)")
	rounds := flag.Int("rounds", 5, "rounds; each runs every client once")
	modes := flag.String("modes", "keepalive,pipeline,close", "the modes, comma-separated, in order")
	clients := flag.String("clients", strings.Join(bench.ClientNames, ","), "the clients, comma-separated, in the order each round runs them")
	out := flag.String("out", "results/clients.json", "the JSON `file` to write")
	force := flag.Bool("force", false, "run even when another process is busy on the pinned CPUs")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "clients: unexpected argument %q\n", flag.Arg(0))
		flag.Usage()
		os.Exit(2)
	}
	cc := bench.ClientsConfig{Server: *server, Connections: *conns, Duration: *dur, Rounds: *rounds, Clients: split(*clients)}
	for _, m := range split(*modes) {
		cc.Modes = append(cc.Modes, bench.Mode(m))
	}
	if err := cc.Check(); err != nil {
		log.Fatal(err)
	}
	cfg, err := bench.DefaultConfig()
	if err != nil {
		log.Fatal(err)
	}
	// Interrupted: stop every server and client started, print nothing more.
	proc.Handle("clients", 5*time.Second, nil)
	if forced, err := cfg.CheckQuiet(*force); err != nil {
		log.Fatal(err)
	} else if forced != "" {
		log.Printf("-force: %s", forced)
	}
	run, err := bench.CompareClients(cfg, cc, os.Stderr)
	if len(run.Rows) > 0 {
		if err := run.Save(*out); err != nil {
			log.Fatal(err)
		}
		fmt.Println()
		run.WriteTable(os.Stdout)
		fmt.Printf("\nwritten to %s\n", *out)
	}
	if err != nil {
		log.Fatal(err)
	}
}

func split(s string) []string {
	var v []string
	for _, f := range strings.Split(s, ",") {
		v = append(v, strings.TrimSpace(f))
	}
	return v
}
