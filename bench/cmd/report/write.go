package main

import (
	"encoding/json"
	"os"
	"path/filepath"

	"hellobench/bench/report"
	"hellobench/bench/report/render"
)

// reportParts are REPORT.md's sections, in order: a new bench adds its
// renderer here, its charts to write's files and its generated document
// sections to documents.
var reportParts = []render.Part{
	{From: []string{report.PickSection}, Title: "Which stack to pick (make bench)", Render: render.PickLong},
	{From: []string{report.CeilingsSection}, Title: "Ceilings", Render: render.CeilingTables},
	{From: []string{report.CeilingsSection}, Title: "What a request costs", Render: render.CostSections},
	{From: []string{report.CeilingsSection}, Title: "Without a network: each stack's own server loop", Render: render.InMemoryTable},
	{From: []string{report.CeilingsSection}, Title: "A JSON answer per request", Render: render.JSONSection},
	{From: []string{report.SweepSection}, Title: "How cost grows with connections (keep-alive)", Render: render.SweepSection},
	{From: []string{report.SweepSection, report.UringSection}, Title: "Idle connections: memory and CPU", Render: render.IdleSection},
	{From: []string{report.ScaleSection}, Title: "More cores (make bench-scale)", Render: render.ScaleSection},
	{From: []string{report.WorkSection, report.UringSection}, Title: "When the stack matters (make bench-work)", Render: render.WorkSection},
	{From: []string{report.LatencySection}, Title: "Latency at a steady load (make bench-latency)", Render: render.LatencySection},
	{From: []string{report.LoadSection, report.AtLoadSection}, Title: "What a request costs below the ceiling (make bench-load)", Render: render.CostAtLoad},
	{From: []string{report.LoadSection, report.CapacitySection}, Title: "The rate one core holds within a p99 bound (make bench-load)", Render: render.CapacityTable},
	{From: []string{report.LoadSection}, Title: "What the kernel is asked per request, below the ceiling and at it (make bench-load)", Render: render.CostsWhy},
	{From: []string{report.ReadinessSection}, Title: "What the readiness model costs over io_uring (make bench-readiness)", Render: render.CostsReadiness},
	{From: []string{report.TLSSection, report.TLSKeepAliveSection, report.TLSHandshakeSection}, Title: "What TLS and HTTP/2 cost (make bench-tls)", Render: render.TLSCosts},
	{From: []string{report.ProtocolsSection}, Title: "HTTP/1.1 over TLS, HTTP/2 and HTTP/3 on one server (make bench-tls PART=h3)", Render: render.ProtocolsTable},
	{From: []string{report.NewConnSection}, Title: "A new connection per request at a fixed rate (bin/report -newconn)", Render: render.NewConnTable},
	{From: []string{report.MinWaitSection}, Title: "What waiting for a batch buys below the ceiling (make bench-load PART=min-wait)", Render: render.MinWaitPart},
	{From: []string{report.CeilingsSection}, Title: "Every host side by side", Render: render.HostsSection},
	{From: []string{report.CeilingsSection}, Title: "Why the ratios move between hosts", Render: func(rep report.Report) string { return render.HostModel(rep.Hosts) }},
	{From: []string{report.CeilingsSection, report.LoadSection, report.WhySection}, Title: "Where the time goes: user, kernel and system calls", Render: render.CostsSplit},
	{From: []string{report.ProfileSection}, Title: "Where the time goes, by function (make bench-profile)", Render: render.ProfilesPart},
}

// write writes results.json, REPORT.md and the charts into dir; a chart
// with no data is not written, and an old one is removed.
func write(dir string, rep report.Report) error {
	// Compact: results/ is kept small, and a tool reads it as well.
	j, err := json.Marshal(rep)
	if err != nil {
		return err
	}
	files := map[string]string{
		"results.json": string(j) + "\n",
		"REPORT.md":    render.Markdown(rep, reportParts),
		"ceilings.svg": render.CeilingsSVG(rep),
		"pick.svg":     render.PickSVG(rep),
		"profile.svg":  render.ProfileSVG(rep),
		"sweep.svg":    render.SweepSVG(rep),
		"cpu.svg":      render.CPUSVG(rep),
		"memory.svg":   render.MemorySVG(rep),
		"work.svg":     render.WorkSVG(rep),
		"latency.svg":  render.LatencySVG(rep),
		"load.svg":     render.LoadSVG(rep),
		"minwait.svg":  render.MinWaitSVG(rep),
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		if text == "" {
			os.Remove(path)
			continue
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}
