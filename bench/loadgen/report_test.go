//go:build linux

package loadgen

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

var abSections = []string{
	"Server Software:", "Server Hostname:", "Server Port:", "Document Path:",
	"Document Length:", "Concurrency Level:", "Time taken for tests:",
	"Complete requests:", "Failed requests:", "Keep-Alive requests:",
	"Total transferred:", "HTML transferred:", "Requests per second:",
	"Time per request:", "Time per request:", "Transfer rate:",
	"Connection Times (µs)", "min  mean[+/-sd] median   max",
	"Connect:", "Processing:", "Waiting:", "Total:",
	"Percentage of the requests served within a certain time (µs)",
	"50%", "66%", "75%", "80%", "90%", "95%", "98%", "99%", "99.9%", "99.99%", "100%",
	"(longest request)",
}

func TestReport(t *testing.T) {
	s := newTestServer(t, func(s *testServer) { s.longEvery = 10 })
	r := run(t, "", Config{URL: s.url() + "?a=1", Requests: 100, Concurrency: 2, KeepAlive: true})
	var b bytes.Buffer
	if err := WriteReport(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	rest := strings.Join(strings.Fields(out), " ")
	for _, sec := range abSections {
		sec = strings.Join(strings.Fields(sec), " ")
		i := strings.Index(rest, sec)
		if i < 0 {
			t.Fatalf("report lacks %q (in order):\n%s", sec, out)
		}
		rest = rest[i+len(sec):]
	}
	for _, want := range []string{
		"Document Path:          /hello/world?a=1\n",
		"Document Length:        257 bytes\n",
		"Complete requests:      90\n",
		"Failed requests:        10\n",
		"   (Connect: 0, Receive: 0, Length: 10, Exceptions: 0)\n",
		"Keep-Alive requests:    100\n",
		"HTML transferred:       25710 bytes\n",
		"[µs] (mean)\n",
		"[µs] (mean, across all concurrent requests)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}

	r.AnyLength = true
	b.Reset()
	WriteReport(&b, r)
	if !strings.Contains(b.String(), "Document Length:        Variable\n") {
		t.Errorf("with any length, no Variable document length:\n%s", b.String())
	}
}

// The ms report is ab's, line for line: the same labels and words, numbers
// where ab has them, in ab's columns. Checked against Debian's ab run
// against the same server.
func TestABReport(t *testing.T) {
	ab, err := exec.LookPath("ab")
	if err != nil {
		if os.Getenv("HELLOBENCH_REQUIRE_TOOLS") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	s := newTestServer(t, nil)
	out, err := exec.Command(ab, "-k", "-n", "200", "-c", "2", s.url()).Output()
	if err != nil {
		t.Fatalf("ab: %v\n%s", err, out)
	}
	want := string(out[bytes.Index(out, []byte("Server Software:")):])

	r := run(t, "", Config{URL: s.url(), Requests: 200, Concurrency: 2, KeepAlive: true})
	var b bytes.Buffer
	if err := WriteABReport(&b, r); err != nil {
		t.Fatal(err)
	}
	got := b.String()

	wl, gl := reportLines(want), reportLines(got)
	if len(wl) != len(gl) {
		t.Fatalf("%d lines, ab has %d:\n%s\nab:\n%s", len(gl), len(wl), got, want)
	}
	for i := range wl {
		if w, g := shape(wl[i]), shape(gl[i]); w != g {
			t.Errorf("line %d: %q (%s), ab has %q (%s)", i+1, gl[i], g, wl[i], w)
		}
	}
}

// reportLines drops ab's warnings on a mean far from its median, which
// depend on the figures.
func reportLines(s string) []string {
	var out []string
	lines := strings.Split(s, "\n")
	for i := 0; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "WARNING: ") || strings.HasPrefix(lines[i], "ERROR: ") {
			i++
			continue
		}
		out = append(out, lines[i])
	}
	return out
}

var (
	number   = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)
	tableRow = regexp.MustCompile(`^(Connect|Processing|Waiting|Total):|^ *[0-9]+%`)
)

// shape is a report line's words, with N for each number, and where each
// number sits: the column it ends at in a table (right-aligned in ab), or
// the first number's start after a label (left-aligned).
func shape(line string) string {
	words := strings.Join(strings.Fields(number.ReplaceAllString(line, "N")), " ")
	locs := number.FindAllStringIndex(line, -1)
	if len(locs) == 0 {
		return words
	}
	if !tableRow.MatchString(line) {
		return words + " @" + strconv.Itoa(locs[0][0])
	}
	for _, l := range locs {
		words += " |" + strconv.Itoa(l[1])
	}
	return words
}

// Time per request is the mean time a request took as its sender saw it:
// with a pipeline of 8 it is about 8 × concurrency × time / requests, the
// mean latency, not ab's concurrency × time / requests; with a rate, the
// mean latency itself.
func TestTimePerRequest(t *testing.T) {
	s := newTestServer(t, func(s *testServer) { s.delay = 2 * time.Millisecond })
	r := run(t, "", Config{URL: s.url(), Requests: 400, Concurrency: 2, KeepAlive: true, Pipeline: 8})
	tpr, mean := r.TimePerRequest(), time.Duration(r.Latency.Mean())
	if want := time.Duration(2 * 8 * float64(r.Elapsed) / 400); tpr != want {
		t.Errorf("pipelined: time per request %v, want 2 × 8 × %v / 400 = %v", tpr, r.Elapsed, want)
	}
	if tpr < mean/2 || tpr > mean*2 {
		t.Errorf("pipelined: time per request %v, far from the mean latency %v", tpr, mean)
	}
	if all := r.TimePerRequestAll(); all != r.Elapsed/400 {
		t.Errorf("across all: %v, want %v", all, r.Elapsed/400)
	}

	r = run(t, "", Config{URL: s.url(), Requests: 50, Concurrency: 5, KeepAlive: true, Rate: 500})
	if tpr := r.TimePerRequest(); tpr != time.Duration(r.Latency.Mean()) || tpr < 2*time.Millisecond {
		t.Errorf("with a rate: time per request %v, want the mean latency %v", tpr, time.Duration(r.Latency.Mean()))
	}

	r = run(t, "", Config{URL: s.url(), Requests: 100, Concurrency: 4, KeepAlive: true})
	if tpr, want := r.TimePerRequest(), time.Duration(4*float64(r.Elapsed)/100); tpr != want {
		t.Errorf("ab's case: time per request %v, want 4 × %v / 100 = %v", tpr, r.Elapsed, want)
	}
}

func TestJSON(t *testing.T) {
	s := newTestServer(t, nil)
	r := run(t, "", Config{URL: s.url(), Requests: 100, Concurrency: 2, KeepAlive: true})
	var b bytes.Buffer
	if err := WriteJSON(&b, r, []*Result{r, r}); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	keys := []string{"url", "server_software", "document_path", "document_length", "concurrency",
		"keepalive", "pipeline", "requests", "duration_s", "complete", "failed", "failures",
		"non_2xx", "status", "keepalive_requests", "connections", "total_bytes", "html_bytes",
		"requests_per_sec", "time_per_request_us", "time_per_request_all_us", "latency_us",
		"connect_us", "histogram", "runs"}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	if m["complete"] != 100.0 || m["requests"] != 100.0 || m["document_length"] != 257.0 || m["keepalive"] != true {
		t.Errorf("JSON figures: %v", m)
	}
	if got, want := m["time_per_request_us"], float64(r.TimePerRequest())/1e3; got != want {
		t.Errorf("time_per_request_us %v, want %v", got, want)
	}
	if _, ok := m["aborted"]; ok {
		t.Errorf("aborted in a run that was not: %v", m["aborted"])
	}
	if st := m["status"].(map[string]any); st["200"] != 100.0 {
		t.Errorf("status %v", st)
	}
	f := m["failures"].(map[string]any)
	for _, k := range []string{"connect", "receive", "length", "exceptions", "timeout"} {
		if _, ok := f[k]; !ok {
			t.Errorf("failures lack %q", k)
		}
	}
	lat := m["latency_us"].(map[string]any)
	for _, k := range []string{"min", "mean", "stddev", "p50", "p66", "p75", "p80", "p90", "p95", "p98", "p99", "p99_9", "p99_99", "max"} {
		if v, ok := lat[k].(float64); !ok || v <= 0 && k != "stddev" {
			t.Errorf("latency_us %q = %v", k, lat[k])
		}
	}
	var total float64
	for _, b := range m["histogram"].([]any) {
		total += b.(map[string]any)["count"].(float64)
	}
	if total != 100 {
		t.Errorf("histogram counts sum to %v, want 100", total)
	}
	if runs := m["runs"].([]any); len(runs) != 2 {
		t.Errorf("%d runs", len(runs))
	}
}
