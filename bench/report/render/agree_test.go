package render

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hellobench/bench"
	"hellobench/bench/report"
)

// TestAgree checks the comparison of separate invocations on fixed ratios:
// a median outside another's interval does not agree, overlapping
// intervals overlap, and the medians' half-range over their median.
func TestAgree(t *testing.T) {
	ratios := [][2]bench.Spread{ // nginx/aa, then gin, in each invocation
		{{Median: 1, Lo: 0.99, Hi: 1.01, N: 20}, {Median: 2.00, Lo: 1.98, Hi: 2.02, N: 20}},
		{{Median: 1, Lo: 0.99, Hi: 1.01, N: 20}, {Median: 2.03, Lo: 2.01, Hi: 2.05, N: 20}},
		{{Median: 1, Lo: 0.98, Hi: 1.02, N: 20}, {Median: 2.01, Lo: 1.99, Hi: 2.03, N: 20}},
	}
	var dirs []string
	for _, r := range ratios {
		rep := report.Report{Sections: map[string]report.Section{"ceilings": {Date: "2026-12-04 10:00 UTC", Rounds: 20}}}
		for i, server := range []string{report.Twin, "gin"} {
			rep.Ceilings = append(rep.Ceilings, report.Point{Server: server, Mode: "keepalive", CPUVsNginx: &report.Figure{Spread: r[i]}})
		}
		dirs = append(dirs, resultsDir(t, rep))
	}
	got, err := Agree(dirs)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| nginx/aa | 1.000 (0.990–1.010), tie | 1.000 (0.990–1.010), tie | 1.000 (0.980–1.020), tie | ±2.0 % | yes | ±0.0 % | yes |",
		// 2.03 lies above the first interval, though every two overlap;
		// the medians span 2.00-2.03 around 2.01.
		"| gin | 2.000 (1.980–2.020) | 2.030 (2.010–2.050) | 2.010 (1.990–2.030) | ±1.0 % | **no** | ±0.7 % | yes |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("agree is missing %q:\n%s", want, got)
		}
	}
	if !strings.Contains(got, "Here 1 of 2 rows agree and 2 overlap. By chance alone") {
		t.Errorf("agree does not count its rows against chance:\n%s", got)
	}
	if _, err := Agree([]string{t.TempDir()}); err == nil {
		t.Error("agree without a results.json: no error")
	}

	// An invocation on another host is listed apart and left out; with
	// one left there is nothing to compare.
	other := report.Report{Sections: map[string]report.Section{"ceilings": {Date: "2026-12-05 10:00 UTC", Rounds: 20,
		Machine: report.Machine{CPU: "Other CPU", Cores: 2, Kernel: "Linux 6.1"}}}}
	other.Ceilings = []report.Point{{Server: "gin", Mode: "keepalive", CPUVsNginx: &report.Figure{Spread: ratios[0][1]}}}
	got, err = Agree([]string{dirs[0], resultsDir(t, other), dirs[1]})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "Left out, run on another host than the first:\n\n- `") ||
		!strings.Contains(got, "2026-12-05 10:00 UTC, on Other CPU (2 cores), Linux 6.1, mitigations not recorded, 20 blocks") ||
		!strings.Contains(got, "| gin | 2.000 (1.980–2.020) | 2.030 (2.010–2.050) | ±1.0 % |") {
		t.Errorf("agree with a third invocation on another host:\n%s", got)
	}
	got, err = Agree([]string{dirs[0], resultsDir(t, other)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "Only one invocation ran on this host: nothing to compare.") || strings.Contains(got, "| gin |") {
		t.Errorf("agree with one invocation a host:\n%s", got)
	}
}

// TestAgreeLevels: where one invocation's usual reference in a mode is
// more than 10 % from another's, the mode's table says the host ran at
// another level; within it, nothing is said.
func TestAgreeLevels(t *testing.T) {
	gin := bench.Spread{Median: 2, Lo: 1.98, Hi: 2.02, N: 20}
	var dirs []string
	for _, usual := range []float64{7.81, 5.23, 7.74} {
		rep := report.Report{Sections: map[string]report.Section{"ceilings": {Date: "2026-12-04 10:00 UTC", Rounds: 20}},
			Usual: map[string]float64{"keepalive": 7.9, "json": usual}}
		for _, mode := range []string{"keepalive", "json"} {
			rep.Ceilings = append(rep.Ceilings, report.Point{Server: "gin", Mode: mode, CPUVsNginx: &report.Figure{Spread: gin}})
		}
		dirs = append(dirs, resultsDir(t, rep))
	}
	got, err := Agree(dirs)
	if err != nil {
		t.Fatal(err)
	}
	want := "nginx's usual CPU per request in this mode was 7.81, 5.23, 7.74 µs in invocations 1 to 3."
	if strings.Count(got, "The host's usual level was not the same") != 1 || !strings.Contains(got, want) {
		t.Errorf("agree should say once, under json, that the level moved (%q):\n%s", want, got)
	}
	if i, j := strings.Index(got, "## JSON"), strings.Index(got, want); i < 0 || j < i {
		t.Errorf("the level line is not under the JSON table:\n%s", got)
	}
}

// TestAgreeOtherHost: two invocations on a host other than the first's
// are compared with each other under a heading of their own, in the
// modes they measured; one alone on a third host is only listed.
func TestAgreeOtherHost(t *testing.T) {
	inv := func(cpu string, mode string, gin float64) string {
		rep := report.Report{Sections: map[string]report.Section{"ceilings": {Date: "2026-12-06 22:00 UTC", Rounds: 26,
			Machine: report.Machine{CPU: cpu, Cores: 2, Kernel: "Linux 6.18"}}}}
		for _, server := range []string{report.Twin, "gin"} {
			v := map[string]float64{report.Twin: 1, "gin": gin}[server]
			rep.Ceilings = append(rep.Ceilings, report.Point{Server: server, Mode: mode,
				CPUVsNginx: &report.Figure{Spread: bench.Spread{Median: v, Lo: v - .01, Hi: v + .01, N: 26}}})
		}
		return resultsDir(t, rep)
	}
	got, err := Agree([]string{inv("D", "keepalive", 2.3), inv("D", "keepalive", 2.31), inv("E", "json", 2.0), inv("F", "json", 2.2), inv("E", "json", 2.01)})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| gin | 2.300 (2.290–2.310) | 2.310 (2.300–2.320) |",
		"Left out, run on another host than the first:\n\n- `",
		"## Another host\n\nThese invocations ran on E (2 cores)",
		"### JSON: keep-alive to /json, 50 connections (nginx answers a fixed string)",
		"| gin | 2.000 (1.990–2.010) | 2.010 (2.000–2.020) |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("agree lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "ran on F") || strings.Contains(got, "### Keep-alive") {
		t.Errorf("a host with one invocation, or a mode none measured there, has a table:\n%s", got)
	}
}

// TestAgreeTLS checks the TLS rows of separate invocations side by side:
// the ratio to nginx with its client and half-width, the reference nginx
// left out of the ratios, and the handshake costs of nethttp and nginx.
func TestAgreeTLS(t *testing.T) {
	var dirs []string
	for i, vs := range []float64{1.48, 1.52} {
		rep := report.Report{Sections: map[string]report.Section{"tls": {Date: "2026-12-05 10:00 UTC", Rounds: 6},
			// 4 whole blocks and 3 of the rows short of 6 kept.
			"tls-keepalive": {Date: "2026-12-05 09:00 UTC", Rounds: 4, Kept: 6, Most: 10, Commands: blockCommands(7)}}}
		ratio := &report.Figure{Spread: bench.Spread{Median: vs, Lo: vs - 0.03, Hi: vs + 0.06, N: 6}}
		cpu := report.Figure{Spread: bench.Spread{Median: 160 + float64(i)*10, Lo: 150, Hi: 180, N: 6}}
		rep.TLS = []report.TLSRow{
			{Point: report.Point{Server: "nethttp", Mode: "tls-keepalive", CPUVsNginx: ratio, Blocks: make([]float64, 7)}, Client: "loadgen"},
			{Point: report.Point{Server: "nginx", Mode: "tls-keepalive", CPUVsNginx: &report.Figure{Spread: bench.Spread{Median: 1, Lo: 1, Hi: 1, N: 6}}}, Client: "loadgen"},
			{Point: report.Point{Server: "nethttp", Mode: "tls-full", CPU: cpu, CPUVsNginx: ratio, Label: "client-bound"}, Client: "wrk"},
			{Point: report.Point{Server: "gin", Mode: "tls-full", CPU: cpu}, Client: "wrk"},
		}
		dirs = append(dirs, resultsDir(t, rep))
	}
	got, err := AgreeTLS(dirs)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| nethttp | 1.48 (1.45–1.54), ±4.1 %, loadgen, 6 of 7 blocks kept | 1.52 (1.49–1.58), ±3.9 %, loadgen, 6 of 7 blocks kept | ±1.3 % |",
		"2026-12-05 09:00 UTC, 4 whole blocks of all its rows, then 3 blocks of only the rows that had kept fewer than 6 (at most 10 blocks in all)\n",
		"| nethttp | 160.0 (150.0–180.0), ±12.5 %, wrk; client-bound | 170.0 (150.0–180.0), ±11.8 %, wrk; client-bound | ±3.0 % |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "| nginx |") || strings.Contains(got, "| gin | 160.0") {
		t.Errorf("the reference's ratio, or a handshake cost other than nethttp's and nginx's, in\n%s", got)
	}
	if _, err := AgreeTLS([]string{t.TempDir()}); err == nil {
		t.Error("a directory without results: no error")
	}
}

// resultsDir writes rep as a run's results.json into a new directory and
// returns it.
func resultsDir(t *testing.T, rep report.Report) string {
	t.Helper()
	dir := t.TempDir()
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "results.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestAgreeAtLoad checks make bench-load's blocks at a quarter of the
// ceiling side by side: each ratio to the reference with its half-width,
// the reference's own row left out, and a warning where an invocation
// held the servers at shares of other ceilings.
func TestAgreeAtLoad(t *testing.T) {
	var dirs []string
	for i, vs := range []float64{2.00, 2.10} {
		cmd := "go test -bench ^BenchmarkLoad$ ./bench -args -ceilings nethttp=90000,nginx=170000 -block 0"
		if i == 1 {
			cmd = strings.Replace(cmd, "90000", "50000", 1)
		}
		rep := report.Report{Sections: map[string]report.Section{
			"load":   {Date: "2026-12-05 10:00 UTC", Rounds: 6, Commands: []string{cmd}},
			"atload": {Date: "2026-12-05 11:00 UTC", Rounds: 26, Commands: []string{"go test -bench ^BenchmarkAtLoad$ ./bench -args -ceilings nethttp=90000,nginx=170000 -at 0.25"}},
		}}
		rep.Load = []report.Lat{{Server: "nethttp", Label: pickLabel, Conns: report.CeilingConns}}
		ratio := &report.Figure{Spread: bench.Spread{Median: vs, Lo: vs - 0.04, Hi: vs + 0.06, N: 12}}
		rep.AtLoad = []report.Point{
			{Server: "nethttp", Mode: pickLabel, CPUVsNginx: ratio},
			{Server: "nginx", Mode: pickLabel, CPUVsNginx: &report.Figure{Spread: bench.Spread{Median: 1, Lo: 1, Hi: 1, N: 12}}},
		}
		dirs = append(dirs, resultsDir(t, rep))
	}
	got, err := AgreeLoad(dirs)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"**Invocation 2 held the servers at shares of other keep-alive ceilings than the first",
		"- 2: 2026-12-05 11:00 UTC, 26 blocks",
		"| nethttp | 2.00 (1.96–2.06), ±3.0 % | 2.10 (2.06–2.16), ±2.9 % | ±2.4 % |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "| nginx | 1.00") || strings.Contains(got, "other keep-alive ceilings than the first's.**") {
		t.Errorf("the reference's own ratio, or a warning for the blocks' same ceilings, in\n%s", got)
	}
}

// blockCommands are n commands of blocks 0 to n-1.
func blockCommands(n int) []string {
	var cmds []string
	for k := range n {
		cmds = append(cmds, fmt.Sprintf("go test -bench ^BenchmarkTLS$ ./bench -args -for 300ms -block %d", k))
	}
	return cmds
}

// TestAgreeH3 sets two invocations of make bench-tls PART=h3 side by side
// and sorts the rows measured by whether every invocation resolved them:
// HTTP/3's ratio at ±13 % in the second misses ±5 %, the A/A and the
// handshake meet theirs, and rows neither measured are not judged.
func TestAgreeH3(t *testing.T) {
	fig := func(med, lo, hi float64) *report.Figure {
		return &report.Figure{Spread: bench.Spread{Median: med, Lo: lo, Hi: hi, N: 12}}
	}
	var dirs []string
	for i, h3 := range []*report.Figure{fig(1.60, 1.55, 1.65), fig(1.58, 1.40, 1.80)} {
		rep := report.Report{Sections: map[string]report.Section{report.ProtocolsSection: {Date: fmt.Sprintf("2026-12-06 2%d:00 UTC", i), Rounds: 12}}}
		rep.Protocols = []report.ProtoPoint{
			{Point: report.Point{Server: "h2-1", Mode: "rate=5000", CPU: *fig(60, 58, 62)}},
			{Point: report.Point{Server: "h2-1" + bench.TwinSuffix, Mode: "rate=5000", CPU: *fig(60, 58, 62)}, Base: "h2-1", VsBase: fig(1.00, 0.98, 1.02)},
			{Point: report.Point{Server: "h3-1", Mode: "rate=5000", CPU: *fig(96, 90, 100)}, Base: "h2-1", VsBase: h3},
			{Point: report.Point{Server: "h3-full", Mode: "rate=1000", CPU: *fig(600+float64(10*i), 580, 630)}, Base: "h1-tls-full"},
		}
		rep.ProtoIdle = []report.Idle{{Server: "h3", Conns: 2000, PerConn: bench.FigureOf([]float64{72 << 10, 73 << 10, 74 << 10})}}
		dirs = append(dirs, resultsDir(t, rep))
	}
	got, err := AgreeH3(dirs)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| HTTP/3, 1 stream at 5000 req/s | 1.60 (1.55–1.65)",
		"| HTTP/2, 1 stream, A/A twin at 5000 req/s | 1.00 (0.98–1.02)",
		"| HTTP/3, full handshake | 600.0 (580.0–630.0)",
		"| HTTP/3 | 73.0",
		"in every invocation: HTTP/2, 1 stream, A/A twin at 5000 req/s; HTTP/3, full handshake. Not: HTTP/3, 1 stream at 5000 req/s.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the HTTP/3 agreement lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "HTTP/3, resumed |") || strings.Contains(got, "16 streams at") {
		t.Errorf("a row no invocation measured has a line:\n%s", got)
	}
}
