package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func write(dir string, rep Report) error {
	j, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	files := map[string]string{
		"results.json": string(j) + "\n",
		"REPORT.md":    markdown(rep),
		"ceilings.svg": ceilingsSVG(rep),
	}
	if len(rep.Sweep) > 0 {
		files["sweep.svg"] = sweepSVG(rep)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func markdown(rep Report) string {
	var b strings.Builder
	m := rep.Machine
	fmt.Fprintf(&b, "# hellobench: ceilings on one core\n\n")
	fmt.Fprintf(&b, "Measured %s on %s (%d cores), %s, %s.\n\n", m.Date, m.CPU, m.Cores, m.Kernel, m.Go)
	b.WriteString("Each server runs pinned to CPU 0 with GOMAXPROCS=1 (nginx: one process; lighttpd: one process, plus the FastCGI application on the same core); " +
		"the in-repo loadgen runs pinned to CPU 1 with GOMAXPROCS=1. " +
		"**CPU µs/req** is the server's user+system CPU time (from /proc/PID/stat) over the requests served: the steadiest figure; " +
		"**ceiling** is 1e6 / that, the requests per second one core could serve. " +
		"Figures are medians of the runs; a run whose server core was under 90 % busy is **client-bound**: its req/s is not the server's ceiling.\n\n")
	b.WriteString("![Ceilings as ratios to nginx](ceilings.svg)\n\n")

	modes := map[string]string{
		"keepalive": "Keep-alive, 50 connections",
		"close":     "A new connection per request, 50 at a time (ab's default)",
		"pipeline":  "Pipelined, 16 requests in flight on each of 50 connections",
	}
	for _, mode := range []string{"keepalive", "close", "pipeline"} {
		var rows []Ceiling
		for _, c := range rep.Ceilings {
			if c.Mode == mode {
				rows = append(rows, c)
			}
		}
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(&b, "## %s\n\n", modes[mode])
		b.WriteString("| server | req/s | vs nginx | CPU µs/req | ceiling req/s | ceiling vs nginx | server CPU % | p50 µs | p99 µs | peak RSS MB | allocs/op | note |\n")
		b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n")
		for _, c := range rows {
			cpu := fmt.Sprintf("%.2f", c.CPUPerReq)
			if c.AppPerReq > 0 {
				cpu = fmt.Sprintf("%.2f (app %.2f)", c.CPUPerReq, c.AppPerReq)
			}
			note := ""
			if c.ClientBound {
				note = "client-bound"
			}
			fmt.Fprintf(&b, "| %s | %.0f | %s | %s | %.0f | %s | %.0f | %.0f | %.0f | %.1f | %s | %s |\n",
				c.Server, c.ReqPerSec, ratio(c.VsNginx), cpu, c.Ceiling, ratio(c.CeilingVsNginx),
				c.Busy, c.P50, c.P99, c.RSS, allocs(c), note)
		}
		fmt.Fprintf(&b, "\n%d requests per run, %d run(s) each.\n\n", int(rows[0].Requests), rows[0].Runs)
	}

	if c := costs(rep); c != "" {
		b.WriteString("## What a request costs\n\nServer CPU µs per request split by differences of the medians above " +
			"(bench/COSTS.md explains each layer). Shares are of the row's total; a negative difference is noise between two medians.\n\n")
		b.WriteString(c)
	}

	if len(rep.InMemory) > 0 {
		b.WriteString("## Without a network: one request through each stack's own server loop\n\n")
		b.WriteString("`testing.B` at `-cpu 1` over an in-memory connection (servers/*/bench_test.go): keep-alive requests on one connection, " +
			"and one request per connection (`Close`).\n\n")
		b.WriteString("| stack | benchmark | ns/op | B/op | allocs/op |\n|---|---|--:|--:|--:|\n")
		for _, m := range rep.InMemory {
			fmt.Fprintf(&b, "| %s | %s | %.0f | %.0f | %.0f |\n", m.Stack, strings.TrimPrefix(m.Benchmark, "Benchmark"), m.NsOp, m.BytesOp, m.AllocsOp)
		}
		b.WriteString("\n")
	}

	if len(rep.Sweep) > 0 {
		b.WriteString("## Concurrency sweep (keep-alive)\n\n![req/s and p99 by connections](sweep.svg)\n\n")
		b.WriteString("| server | connections | req/s | p99 µs | CPU µs/req | server CPU % | note |\n|---|--:|--:|--:|--:|--:|---|\n")
		for _, p := range rep.Sweep {
			note := ""
			if p.ClientBound {
				note = "client-bound"
			}
			fmt.Fprintf(&b, "| %s | %d | %.0f | %.0f | %.2f | %.0f | %s |\n", p.Server, p.Conns, p.ReqPerSec, p.P99, p.CPUPerReq, p.Busy, note)
		}
		b.WriteString("\n")
	}

	b.WriteString("## Commands\n\nRun from the repository root; `make bench` runs them through `bin/report -run`.\n\n```\n")
	for _, c := range rep.Commands {
		b.WriteString(c + "\n")
	}
	b.WriteString("```\n\nThe raw output is in bench.txt (and sweep.txt); `benchstat old.txt new.txt` compares two runs.\n")
	return b.String()
}

func ratio(r float64) string {
	if r == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", r)
}

func allocs(c Ceiling) string {
	if !c.HasMem {
		return "–"
	}
	return fmt.Sprintf("%.0f", c.Allocs)
}
