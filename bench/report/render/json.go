package render

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"hellobench/bench"
	"hellobench/bench/report"
	"hellobench/internal/targets"
)

// This file renders the JSON endpoint's figures: the json mode of the
// ceilings beside keep-alive's page, the in-memory split of a JSON
// request, and net/http's encoders side by side.

// jsonServers are the servers with a json ceiling in rep, in table order.
func jsonServers(rep report.Report) []string {
	var names []string
	for _, t := range targets.Servers() {
		if _, ok := cpuOf(rep, t.Name, string(bench.JSON)); ok {
			names = append(names, t.Name)
		}
	}
	return names
}

// encoderName is the server's encoder, with json.Encoder's newline said.
func encoderName(server string) string {
	e, ok := targets.Encoders[server]
	if !ok {
		return "–"
	}
	s := "`" + e.Call + "`: " + e.Encoder
	if e.Newline {
		s += ", 28 bytes"
	}
	return s
}

// JSONTable is REPORT.md's JSON section: each server's /json request at
// its ceiling beside its page request, and what the JSON adds.
func JSONTable(rep report.Report) string {
	names := jsonServers(rep)
	if len(names) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Keep-alive, 50 connections, to `/json`: the object `{\"message\":\"Hello, World!\"}` built and encoded for every request " +
		"(27 bytes; 28 where the encoder ends with a newline), beside the same server's page (257 bytes). " +
		"nginx answers the same 27 bytes as a fixed string: it serializes nothing, so its row is the floor of a fixed answer, not an encoder.\n\n")
	b.WriteString("| server | encoder | /json, CPU µs/req | vs nginx | the page, CPU µs/req | /json − the page, µs |\n|---|---|--:|--:|--:|--:|\n")
	for _, s := range names {
		js, _ := cpuOf(rep, s, string(bench.JSON))
		page, ok := cpuOf(rep, s, string(bench.KeepAlive))
		p, _ := report.Find(rep.Ceilings, s, string(bench.JSON))
		adds := "–"
		if ok {
			adds = delta(bench.Diff(js, page))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", s, encoderName(s), spread(js, 2), versus(p.CPUVsNginx), spread(page, 2), adds)
	}
	if n, ok := cpuOf(rep, "nginx", string(bench.JSON)); ok {
		np, _ := cpuOf(rep, "nginx", string(bench.KeepAlive))
		fmt.Fprintf(&b, "| nginx | none: a fixed string | %s | 1 | %s | %s |\n", spread(n, 2), spread(np, 2), delta(bench.Diff(n, np)))
	}
	b.WriteString("\n" + jsonOrder(rep, names) + "\n\n" + source(rep, report.CeilingsSection) + "\n")
	return b.String()
}

// jsonOrder says in a sentence whether JSON changes the stacks' order
// against nginx: a pair counts as swapped only where the json ratios'
// intervals do not overlap and the page's medians ranked them the other
// way.
func jsonOrder(rep report.Report, names []string) string {
	ratio := func(s, mode string) (report.Figure, bool) {
		p, ok := report.Find(rep.Ceilings, s, mode)
		if !ok || p.CPUVsNginx == nil || p.CPUVsNginx.N == 0 {
			return report.Figure{}, false
		}
		return *p.CPUVsNginx, true
	}
	var swapped []string
	for i, a := range names {
		for _, c := range names[i+1:] {
			ja, ok1 := ratio(a, string(bench.JSON))
			jc, ok2 := ratio(c, string(bench.JSON))
			pa, ok3 := ratio(a, string(bench.KeepAlive))
			pc, ok4 := ratio(c, string(bench.KeepAlive))
			if !ok1 || !ok2 || !ok3 || !ok4 {
				continue
			}
			if ja.N < 6 || jc.N < 6 {
				return "Too few blocks for an interval: this run cannot say whether JSON changes the servers' order against nginx."
			}
			apart := ja.Hi < jc.Lo || jc.Hi < ja.Lo
			if apart && (ja.Median < jc.Median) != (pa.Median < pc.Median) {
				cheaper, dearer := a, c
				if jc.Median < ja.Median {
					cheaper, dearer = c, a
				}
				swapped = append(swapped, cheaper+" now costs less than "+dearer)
			}
		}
	}
	if len(swapped) == 0 {
		return "JSON changes no order: no two servers swap places against nginx with their /json intervals apart, so the pick table's page figures stand for JSON too."
	}
	slices.Sort(swapped)
	return "What JSON changes against the page's order (the /json intervals apart): " + strings.Join(swapped, "; ") + "."
}

// CostsJSON is COSTS.md's split of a JSON request, in memory: each
// stack's page request, what encoding the object adds, and the JSON
// request, with the encoder named.
func CostsJSON(rep report.Report) string {
	var b strings.Builder
	rows := 0
	b.WriteString("| stack | encoder | the page, ns/req | /json, ns/req | /json − the page, ns | allocs/req, page → /json |\n|---|---|--:|--:|--:|--:|\n")
	var missing []string
	for _, t := range targets.Servers() {
		name, pageBench := t.Name, "BenchmarkServeKeepAlive"
		if t.Name == "fcgi" {
			// Both of fcgi's benchmarks run its application alone, without
			// lighttpd, so they still compare with each other.
			name, pageBench = "fcgi, the application alone (no lighttpd)", "BenchmarkKeepConn"
		}
		page, ok1 := memory(rep, t.Name, pageBench)
		js, ok2 := memory(rep, t.Name, "BenchmarkServeJSON")
		if !ok1 || !ok2 {
			missing = append(missing, t.Name)
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s → %s |\n", name, encoderName(t.Name), spread(page.NsOp, 0),
			spread(js.NsOp, 0), nsDelta(unpaired(js.NsOp, page.NsOp)), median(page.AllocsOp, 0), median(js.AllocsOp, 0))
		rows++
	}
	if rows == 0 {
		return ""
	}
	return b.String() + noMemoryRow(missing) + "\n" + memorySource(rep) + "\n"
}

// unpaired is a - b for figures whose rounds are not paired (go test
// -count runs one benchmark's rounds back to back, then the next's): the
// difference of the medians, and the widest difference the two intervals
// allow as its interval.
func unpaired(a, b report.Figure) report.Figure {
	if a.N == 0 || b.N == 0 {
		return report.Figure{}
	}
	d := a.Median - b.Median
	return report.Figure{Spread: bench.Spread{Median: d, Min: a.Min - b.Max, Max: a.Max - b.Min, N: min(a.N, b.N),
		Lo: a.Lo - b.Hi, Hi: a.Hi - b.Lo, Level: a.Level * b.Level}}
}

// nsDelta is delta for nanoseconds: no decimals.
func nsDelta(f report.Figure) string {
	if f.N == 0 {
		return "–"
	}
	if f.Straddles(0) {
		return "≈ 0 (within noise)"
	}
	return spread(f, 0)
}

// encoderRows are net/http's encoder benchmarks in the table's order:
// BenchmarkEncoder's, then BenchmarkEncoderV2's (GOEXPERIMENT=jsonv2).
var encoderRows = []struct{ bench, name string }{
	{"BenchmarkEncoder/encoding-json-Encoder", "encoding/json, `json.NewEncoder(w).Encode` (28 bytes)"},
	{"BenchmarkEncoder/encoding-json-Marshal", "encoding/json, `json.Marshal`"},
	{"BenchmarkEncoder/sonic-Marshal", "sonic, `sonic.Marshal` (bytedance's JIT encoder; hertz's default)"},
	{"BenchmarkEncoder/go-json-Marshal", "goccy/go-json, `json.Marshal`"},
	{"BenchmarkEncoderV2/json-v2-MarshalWrite", "encoding/json/v2, `json.MarshalWrite(w, v)`"},
	{"BenchmarkEncoderV2/json-v2-Marshal", "encoding/json/v2, `json.Marshal`"},
	{"BenchmarkEncoderV2/encoding-json-Encoder-on-v2", "encoding/json's Encoder on v2's code (28 bytes)"},
	{"BenchmarkEncoderV2/encoding-json-Marshal-on-v2", "encoding/json's `json.Marshal` on v2's code"},
}

// CostsEncoders is COSTS.md's table of the encoders a net/http user
// chooses between, each answering /json on nethttp's own loop in memory.
func CostsEncoders(rep report.Report) string {
	base, ok := memory(rep, "nethttp", encoderRows[0].bench)
	if !ok {
		return ""
	}
	var b strings.Builder
	b.WriteString("| encoder on net/http | ns/req | vs encoding/json's Encoder, ns | B/req | allocs/req |\n|---|--:|--:|--:|--:|\n")
	for _, r := range encoderRows {
		m, ok := memory(rep, "nethttp", r.bench)
		if !ok {
			continue
		}
		vs := "(the base)"
		if r.bench != encoderRows[0].bench {
			vs = nsDelta(unpaired(m.NsOp, base.NsOp))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.name, spread(m.NsOp, 0), vs, median(m.BytesOp, 0), median(m.AllocsOp, 0))
	}
	return b.String() + "\n" + memorySource(rep) + "\n"
}

// memorySource says which run the in-memory figures come from.
func memorySource(rep report.Report) string {
	s, ok := rep.Sections[report.CeilingsSection]
	if !ok {
		return ""
	}
	n := 0
	for _, m := range rep.InMemory {
		n = max(n, m.NsOp.N)
	}
	return fmt.Sprintf("_`make bench-ceilings`, %s, in memory (`go test -bench -benchmem -cpu 1 -count %d`)%s; each cell is %s; a difference is that of the medians, its interval the widest the two intervals allow._",
		s.Date, n, runHost(rep, s), interval(n))
}

// JSONSection is REPORT.md's JSON part: the servers over loopback, then
// net/http's encoders in memory.
func JSONSection(rep report.Report) string {
	t := JSONTable(rep)
	if e := CostsEncoders(rep); e != "" {
		t += "\nnet/http's encoders side by side, in memory (bench/COSTS.md section 10):\n\n" + e
	}
	return t
}

// JSONLine is the README's sentence on the JSON endpoint, the number
// first: what a /json request adds to the page's over the stacks, then
// whether it changes their order against nginx, from the ceilings' run.
func JSONLine(rep report.Report) string {
	names := jsonServers(rep)
	type added struct {
		server string
		us     float64
	}
	var adds []added
	for _, s := range names {
		js, ok1 := cpuOf(rep, s, string(bench.JSON))
		page, ok2 := cpuOf(rep, s, string(bench.KeepAlive))
		if d := bench.Diff(js, page); ok1 && ok2 && d.N > 0 {
			adds = append(adds, added{s, d.Median})
		}
	}
	if len(adds) == 0 {
		return ""
	}
	slices.SortFunc(adds, func(a, b added) int { return cmp.Compare(a.us, b.us) })
	lo, hi := adds[0], adds[len(adds)-1]
	return fmt.Sprintf("JSON adds %s µs (%s) to %s µs (%s) of CPU to a request over the page, by median: `/json`, each stack's own encoder. %s "+
		"([docs/ceilings.md](docs/ceilings.md), `make bench-ceilings`, %s%s.)\n",
		num(lo.us, 2), lo.server, num(hi.us, 2), hi.server, jsonOrder(rep, names), rep.Sections[report.CeilingsSection].Date, runHost(rep, rep.Sections[report.CeilingsSection]))
}
