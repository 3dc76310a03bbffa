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
	sections map[string]section
}

// A section is one generated part of a document: its renderer and the
// runs (report sections) whose figures it shows. It opens with those
// runs named. A page tells one run: a section drawing on runs of more
// than one invocation must either be one whose job is to compare them, or
// say at its head why it joins them (a test holds every section to it).
type section struct {
	render   func(report.Report) string
	from     []string
	compares bool   // it sets invocations side by side on purpose
	joins    string // why it joins runs it shows apart, until measured again in one
}

// of is a section of one run, or of none when from is empty.
func of(r func(report.Report) string, from ...string) section {
	return section{render: r, from: from}
}

var documents = []document{
	{"README.md", map[string]section{
		// It opens with its run itself, and reads Report.Pick alone.
		"pick": of(render.PickShort),
		"json": of(render.JSONLine, report.CeilingsSection),
		"h3":   of(render.ProtocolsLine, report.ProtocolsSection)}},
	{"docs/ceilings.md", map[string]section{
		"ceilings": of(render.CeilingsPage, report.CeilingsSection),
		"newconn":  of(render.NewConnTable, report.NewConnSection),
		"hosts":    {render: render.HostsSection, compares: true}}},
	{"docs/work.md", map[string]section{"work": {render: render.WorkPage, from: []string{report.WorkSection, report.UringSection},
		joins: "Uring's rows come from make bench-work PART=uring, which measures uring again without the whole run"}}},
	{"docs/latency.md", map[string]section{"latency": of(render.LatencyPage, report.LatencySection)}},
	{"docs/load.md", map[string]section{
		"load": {render: render.CostAtLoad, from: []string{report.AtLoadSection, report.LoadSection},
			joins: "Its blocks at a quarter of each ceiling and its rounds were run apart; each table names its own run, and no figure of one is divided by the other's"},
		"capacity": of(render.CapacityTable, report.LoadSection, report.CapacitySection)}},
	{"docs/loadgen.md", map[string]section{"clients": of(render.ClientsTable)}},
	{"docs/servers.md", map[string]section{"servers-code": of(render.ServersCode)}},
	{"docs/profiles.md", map[string]section{
		"profiles":      of(render.ProfilesPage, report.ProfileSection),
		"profile-rules": of(render.RuleList)}},
	{"docs/life-of-a-request.md", map[string]section{"life": of(render.LifeOfARequest, report.TraceSection)}},
	{"bench/COSTS.md", map[string]section{
		"conditions":      of(render.Conditions, report.CeilingsSection),
		"costs-keepalive": of(render.Caption(render.CostsKeepAlive), report.CeilingsSection),
		"costs-inmemory":  of(render.Caption(render.CostsInMemory), report.CeilingsSection),
		"costs-close":     of(render.Caption(render.CostsClose), report.CeilingsSection),
		"costs-fcgi":      of(render.Caption(render.CostsFcgi), report.CeilingsSection),
		"costs-pipeline":  of(render.Caption(render.CostsPipeline), report.CeilingsSection),
		"costs-idle": {render: render.SweepOne, from: []string{report.SweepSection, report.UringSection},
			joins: "Uring's and the io_uring floor's rows come from make bench-work PART=uring, which measures them again without the whole sweep"},
		// A count run alone (why.txt) replaces make bench-load's.
		"costs-why":       of(render.CostsWhy, report.WhySection),
		"costs-readiness": of(render.CostsReadiness, report.ReadinessSection),
		"costs-tls": {render: render.TLSCosts, from: []string{report.TLSSection, report.TLSKeepAliveSection, report.TLSHandshakeSection},
			joins: "Make bench-tls's keep-alive and handshake blocks were run apart from its other modes; each mode's table is one run's, and its ratios are to the nginx beside it"},
		"costs-minwait":  of(render.MinWaitCosts, report.MinWaitSection),
		"costs-json":     of(render.CostsJSON, report.CeilingsSection),
		"costs-encoders": of(render.CostsEncoders, report.CeilingsSection),
		"costs-split": {render: render.CostsSplit, from: []string{report.CeilingsSection, report.WhySection},
			joins: "The user and kernel time come from the ceilings' run, the system calls from make bench-load's count: each column is one run's, and none is divided by another"},
		"costs-h3":    of(render.ProtocolsTable, report.ProtocolsSection),
		"costs-model": {render: func(rep report.Report) string { return render.HostModel(rep.Hosts) }, compares: true},
	}},
}

// beginMarker opens section name, saying which run writes it.
func beginMarker(name string) string {
	from := "make bench-ceilings writes it from results/results.json"
	switch name {
	case "pick":
		from = "make bench writes it from results/pick.txt"
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
		from = "make bench-profile writes it from results/results.json"
	case "life":
		from = "make bench-profile writes it from results/results.json"
	case "profile-rules":
		from = "bin/report -docs writes it from bench/report's rules"
	case "hosts", "costs-model":
		from = "bin/report writes it from results/hosts"
	case "servers-code":
		from = "bin/report -docs writes it from servers/*/main.go"
	}
	return "<!-- begin generated: " + name + " (" + from + ") -->\n"
}

func endMarker(name string) string { return "<!-- end generated: " + name + " -->" }

// splice replaces the body of every section of text with its rendering,
// and fails on a section missing or unknown.
func (d document) splice(text string, rep report.Report) (string, error) {
	for name, sec := range d.sections {
		begin, end := beginMarker(name), endMarker(name)
		i := strings.Index(text, begin)
		j := strings.Index(text, end)
		if i < 0 || j < i {
			return "", fmt.Errorf("%s: no section %q (a line %q, then %q)", d.path, name, strings.TrimSpace(begin), end)
		}
		body := sec.render(rep)
		if body == "" {
			body = "Not measured in the run results/results.json holds.\n"
		} else if head := render.RunsHead(rep, sec.from, sec.compares, sec.joins); head != "" {
			body = head + "\n" + body
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
