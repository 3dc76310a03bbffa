// Command versus compares servers side by side on one core: each target in
// turn is started pinned to CPU 0 with GOMAXPROCS=1 and driven by a client
// pinned to CPU 1, round after round in changing orders, and the medians
// of the rounds are printed with each target's CPU time per request as a
// ratio to the first target's (bench.Versus).
//
// Usage:
//
//	versus [-client wrk|loadgen] [-c 50] [-d 5s] [-rounds 3] [-mode keepalive] [-pairs] [-force] [-exec 'NAME=COMMAND ARGS'] target...
//
// -exec adds a program outside the project as a target NAME, its {addr}
// (host:port) or {port} replaced by where it is to listen: a yardstick
// measured beside the table's targets the same way.
//
// Targets: nethttp, gin, fasthttp, fiber, gnet, fcgi (lighttpd and the
// application's CPU are shown apart), nginx, lighttpd-static, floor; a
// server with -bare also as NAME/bare, its stack out of the box.
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
	"hellobench/internal/targets"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("versus: ")
	var v bench.VersusConfig
	flag.StringVar(&v.Client, "client", "loadgen", "load generator: `wrk` (keep-alive only) or loadgen")
	flag.IntVar(&v.Connections, "c", 50, "connections")
	flag.DurationVar(&v.Duration, "d", 5*time.Second, "duration of each measured run (wrk: whole seconds)")
	flag.IntVar(&v.Rounds, "rounds", 3, "rounds; each runs every target once")
	mode := flag.String("mode", "keepalive", "loadgen's mode: keepalive, close or pipeline")
	flag.BoolVar(&v.Pairs, "pairs", false, "compare the targets in pairs (1st/2nd, 3rd/4th, …) rather than each with the first")
	force := flag.Bool("force", false, "run even when another process is busy on the pinned CPUs")
	flag.Func("exec", "add `NAME=COMMAND ARGS` as a target: a program outside the project, its {addr} or {port} replaced by where it listens (repeatable)", func(v string) error {
		name, command, ok := strings.Cut(v, "=")
		if !ok {
			return fmt.Errorf("%q: want NAME=COMMAND ARGS", v)
		}
		return targets.AddExternal(name, strings.Fields(command))
	})
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: versus [-client wrk|loadgen] [-c 50] [-d 5s] [-rounds 3] target...\ntargets: %s; with -bare also %s\n",
			strings.Join(targets.Names(), ", "), strings.Join(targets.Guarded(), bench.BareSuffix+", ")+bench.BareSuffix)
		flag.PrintDefaults()
	}
	flag.Parse()
	v.Mode, v.Targets = bench.Mode(*mode), flag.Args()
	if err := v.Check(); err != nil {
		fmt.Fprintf(os.Stderr, "versus: %v\n", err)
		flag.Usage()
		os.Exit(2)
	}

	cfg, err := bench.DefaultConfig()
	if err != nil {
		log.Fatal(err)
	}
	// Interrupted: stop every server and client started, print nothing more.
	proc.Handle("versus", 5*time.Second, nil)
	if forced, err := cfg.CheckQuiet(*force); err != nil {
		log.Fatal(err)
	} else if forced != "" {
		log.Printf("-force: %s", forced)
	}
	run, err := bench.Versus(cfg, v, os.Stderr)
	if err != nil {
		log.Fatal(err)
	}
	if err := run.WriteTable(os.Stdout); err != nil {
		log.Fatal(err)
	}
}
