package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"hellobench/bench/report"
	"hellobench/bench/report/render"
)

// A document is a hand-written file with sections generated from the
// results: between the markers of a section, every figure comes from
// results.json, and a test checks that it still does.
type document struct {
	path     string // from the module root
	sections map[string]func(report.Report) string
}

var documents = []document{
	{"README.md", map[string]func(report.Report) string{"pick": render.PickShort, "h3": render.ProtocolsLine}},
	{"docs/ceilings.md", map[string]func(report.Report) string{"ceilings": render.CeilingsPage, "newconn": render.NewConnTable, "hosts": render.HostsSection}},
	{"docs/work.md", map[string]func(report.Report) string{"work": render.WorkPage}},
	{"docs/latency.md", map[string]func(report.Report) string{"latency": render.LatencyPage}},
	{"docs/load.md", map[string]func(report.Report) string{"load": render.CostAtLoad, "capacity": render.CapacityTable}},
	{"docs/loadgen.md", map[string]func(report.Report) string{"clients": render.ClientsTable}},
	{"docs/profiles.md", map[string]func(report.Report) string{"profiles": render.ProfilesPage, "profile-rules": render.RuleList}},
	{"docs/life-of-a-request.md", map[string]func(report.Report) string{"life": render.LifeOfARequest}},
	{"bench/COSTS.md", map[string]func(report.Report) string{
		"conditions":      render.Conditions,
		"costs-keepalive": render.Caption(render.CostsKeepAlive),
		"costs-inmemory":  render.Caption(render.CostsInMemory),
		"costs-close":     render.Caption(render.CostsClose),
		"costs-fcgi":      render.Caption(render.CostsFcgi),
		"costs-pipeline":  render.Caption(render.CostsPipeline),
		"costs-idle":      render.SweepOne,
		"costs-why":       render.CostsWhy,
		"costs-readiness": render.CostsReadiness,
		"costs-tls":       render.TLSCosts,
		"costs-minwait":   render.MinWaitCosts,
		"costs-json":      render.CostsJSON,
		"costs-encoders":  render.CostsEncoders,
		"costs-split":     render.CostsSplit,
		"costs-h3":        render.ProtocolsTable,
		"costs-model":     func(rep report.Report) string { return render.HostModel(rep.Hosts) },
	}},
}

// beginMarker opens section name, saying which run writes it.
func beginMarker(name string) string {
	from := "make bench writes it from results/results.json"
	switch name {
	case "clients":
		from = "make compare WHAT=clients writes it from results/clients.json"
	case "work":
		from = "make bench-work writes it from results/results.json"
	case "latency":
		from = "make bench-latency writes it from results/results.json"
	case "load", "capacity", "costs-why":
		from = "make bench-load writes it from results/results.json"
	case "costs-readiness":
		from = "make bench-readiness writes it from results/results.json"
	case "costs-tls":
		from = "make bench-tls writes it from results/results.json"
	case "newconn":
		from = "bin/report -newconn writes it from results/results.json"
	case "costs-h3", "h3":
		from = "make bench-tls PART=h3 writes it from results/results.json"
	case "costs-minwait":
		from = "make bench-load PART=min-wait writes it from results/results.json"
	case "profiles":
		from = "bin/report -profile writes it from results/results.json"
	case "life":
		from = "bin/report -trace writes it from results/results.json"
	case "profile-rules":
		from = "bin/report -docs writes it from bench/report's rules"
	case "hosts", "costs-model":
		from = "bin/report writes it from results/hosts"
	}
	return "<!-- begin generated: " + name + " (" + from + ") -->\n"
}

func endMarker(name string) string { return "<!-- end generated: " + name + " -->" }

// splice replaces the body of every section of text with its rendering,
// and fails on a section missing or unknown.
func (d document) splice(text string, rep report.Report) (string, error) {
	for name, render := range d.sections {
		begin, end := beginMarker(name), endMarker(name)
		i := strings.Index(text, begin)
		j := strings.Index(text, end)
		if i < 0 || j < i {
			return "", fmt.Errorf("%s: no section %q (a line %q, then %q)", d.path, name, strings.TrimSpace(begin), end)
		}
		body := render(rep)
		if body == "" {
			body = "Not measured in the run results/results.json holds.\n"
		}
		text = text[:i+len(begin)] + body + text[j:]
	}
	return text, nil
}

// update rewrites the document's sections in place.
func (d document) update(root string, rep report.Report) error {
	path := filepath.Join(root, d.path)
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	text, err := d.splice(string(b), rep)
	if err != nil {
		return err
	}
	return os.WriteFile(path, []byte(text), 0o644)
}
