//go:build linux

package loadgen

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// synthetic returns a run of n complete requests and some failed ones,
// with latencies drawn from rnd over loadgen's whole range and past it (a
// loop clamps those, as record does), every count set and distinct. It
// appends each Total sample to all, if not nil.
func synthetic(rnd *rand.Rand, n int, start time.Time, elapsed time.Duration, all *[]int64) *Result {
	r := &Result{
		URL: "http://127.0.0.1:8080/hello/world", Host: "127.0.0.1", Port: 8080, Path: "/hello/world",
		ServerSoftware: "test", DocumentLength: 257, Concurrency: 8, KeepAlive: true, Pipeline: 2,
		Requests: n + 10, Engine: EngineEpoll, Start: start, Elapsed: elapsed,
		Complete: int64(n), Failures: Failures{Connect: 1, Receive: 2, Length: 3, Exceptions: 0, Timeout: 4},
		Non2xx: int64(n / 7), Status: map[int]int64{200: int64(n - n/7), 404: int64(n / 7)},
		KeepAliveRequests: int64(n - 3), Connections: 11, TotalBytes: int64(n) * 400, HTMLBytes: int64(n) * 257,
		Latency:    hdrhistogram.New(histMin, histMax, histSig),
		Connect:    hdrhistogram.New(histMin, histMax, histSig),
		Processing: hdrhistogram.New(histMin, histMax, histSig),
		Waiting:    hdrhistogram.New(histMin, histMax, histSig),
	}
	r.Failed = r.Failures.total()
	for i := range n {
		// Log-uniform from 1 ns to 2 h, and a few zeros.
		v := int64(math.Exp(rnd.Float64() * math.Log(2*float64(histMax))))
		if i%97 == 0 {
			v = 0
		}
		var c int64
		if i%5 == 0 {
			c = v / 3
		}
		record(r.Latency, v)
		record(r.Connect, c)
		record(r.Processing, v-c)
		record(r.Waiting, v/2)
		if all != nil {
			*all = append(*all, v)
		}
	}
	return r
}

// paced makes r a run at a rate, with a send lateness for each complete
// request and extra more sent, from 1 ns to 10 ms.
func paced(rnd *rand.Rand, r *Result, extra int) *Result {
	r.Rate = 5000
	r.SendLateness = newHist()
	for range r.Complete + int64(extra) {
		record(r.SendLateness, int64(math.Exp(rnd.Float64()*math.Log(1e7))))
	}
	return r
}

// plain is r without what a comparison of structs cannot check.
func plain(r *Result) Result {
	c := *r
	c.Latency, c.Connect, c.Processing, c.Waiting, c.Aborted, c.Start = nil, nil, nil, nil, nil, time.Time{}
	c.SendLateness = nil
	return c
}

// sameHist checks that got has want's geometry and every bucket's count.
func sameHist(t *testing.T, what string, got, want *hdrhistogram.Histogram) {
	t.Helper()
	if !got.Equals(want) {
		t.Errorf("%s: histograms differ (%d and %d values)", what, got.TotalCount(), want.TotalCount())
	}
	g, w := got.Distribution(), want.Distribution()
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s: buckets differ", what)
	}
}

// sameResult checks every field of got against want.
func sameResult(t *testing.T, got, want *Result) {
	t.Helper()
	if g, w := plain(got), plain(want); !reflect.DeepEqual(g, w) {
		t.Errorf("got  %+v\nwant %+v", g, w)
	}
	if !got.Start.Equal(want.Start) {
		t.Errorf("start %v, want %v", got.Start, want.Start)
	}
	if (got.Aborted == nil) != (want.Aborted == nil) || got.Aborted != nil && got.Aborted.Error() != want.Aborted.Error() {
		t.Errorf("aborted %v, want %v", got.Aborted, want.Aborted)
	}
	sameHist(t, "total", got.Latency, want.Latency)
	sameHist(t, "connect", got.Connect, want.Connect)
	sameHist(t, "processing", got.Processing, want.Processing)
	sameHist(t, "waiting", got.Waiting, want.Waiting)
	if (got.SendLateness == nil) != (want.SendLateness == nil) {
		t.Errorf("send lateness %v, want %v", got.SendLateness != nil, want.SendLateness != nil)
	} else if want.SendLateness != nil {
		sameHist(t, "send lateness", got.SendLateness, want.SendLateness)
	}
}

func writeLog(t *testing.T, r *Result) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WriteLog(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A log read back holds every count and every bucket of every histogram
// exactly.
func TestLogRoundTrip(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	start := time.Date(2026, 1, 2, 3, 4, 5, 678901234, time.UTC)
	r := synthetic(rnd, 20000, start, 10*time.Second+123456789, nil)
	r.Aborted = errors.New("read tcp 127.0.0.1:1->127.0.0.1:2: connection reset by peer")
	paced(rnd, r, 17)
	r.Rate = 1234.5678
	r.Status[0] = 0 // a code out of range is kept as 0
	log := writeLog(t, r)
	got, err := ReadLog(bytes.NewReader(log))
	if err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	sameResult(t, got, r)
	if !r.Latency.ValuesAreEquivalent(r.Latency.Max(), histMax) || r.Latency.ValueAtQuantile(0) != 0 {
		t.Errorf("samples do not reach both ends of the range: %d to %d", r.Latency.ValueAtQuantile(0), r.Latency.Max())
	}

	// The header and the interval lines in HdrHistogram's form.
	lines := strings.Split(string(log), "\n")
	for i, want := range []string{
		"#[Logged with loadgen]",
		"#[Histogram log format version 1.3]",
		"#[StartTime: 1767323045.678 (seconds since epoch), 2026-01-02T03:04:05.678Z]",
		"#[BaseTime: 1767323045.678 (seconds since epoch)]",
		`#[loadgen: {"format":1,"url":"http://127.0.0.1:8080/hello/world",`,
		`"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"`,
		`0\.001,10\.123,\d+\.\d{3},HISTF[A-Za-z0-9+/=]+$`,
		`Tag=connect,0\.001,10\.123,\d+\.\d{3},HISTF[A-Za-z0-9+/=]+$`,
		`Tag=processing,0\.001,10\.123,\d+\.\d{3},HISTF[A-Za-z0-9+/=]+$`,
		`Tag=waiting,0\.001,10\.123,\d+\.\d{3},HISTF[A-Za-z0-9+/=]+$`,
		`Tag=send_lateness,0\.001,10\.123,\d+\.\d{3},HISTF[A-Za-z0-9+/=]+$`,
	} {
		if i < 6 && !strings.HasPrefix(lines[i], want) || i >= 6 && !regexp.MustCompile("^"+want).MatchString(lines[i]) {
			t.Errorf("line %d: %.100q, want %q", i+1, lines[i], want)
		}
	}
	// Interval_Max is the histogram's max in milliseconds.
	if want := fmt.Sprintf(",%.3f,", float64(r.Connect.Max())/1e6); !strings.Contains(lines[7], want) {
		t.Errorf("connect line %.60q lacks its max %s", lines[7], want)
	}
	if len(lines) != 12 || lines[11] != "" {
		t.Errorf("%d lines, want 11 and a final newline", len(lines)-1)
	}

	// Real runs, as loadgen writes them: a closed loop writes no send
	// lateness, and a log without it (as from before loadgen measured it)
	// reads as none.
	s := newTestServer(t, nil)
	for _, rate := range []float64{0, 5000} {
		r = run(t, EngineEpoll, Config{URL: s.url(), Requests: 500, Concurrency: 4, KeepAlive: true, Rate: rate})
		log := writeLog(t, r)
		if has := bytes.Contains(log, []byte("Tag=send_lateness,")); has != (rate > 0) {
			t.Errorf("rate %v: a send lateness line %v", rate, has)
		}
		got, err = ReadLog(bytes.NewReader(log))
		if err != nil {
			t.Fatal(err)
		}
		sameResult(t, got, r)
		if got.Complete != 500 || got.Start.IsZero() {
			t.Errorf("complete %d, start %v", got.Complete, got.Start)
		}
	}
	r.SendLateness = nil
	got, err = ReadLog(bytes.NewReader(writeLog(t, r)))
	if err != nil || got.SendLateness != nil {
		t.Errorf("a log without send lateness: %v, %v", got.SendLateness, err)
	}
}

// A gzip-compressed log reads as the log itself; a stream that starts as
// gzip and is not one is an error that says so.
func TestReadLogGzip(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	r := synthetic(rnd, 5000, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), 3*time.Second, nil)
	paced(rnd, r, 5)
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(writeLog(t, r))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadLog(&z)
	if err != nil {
		t.Fatal(err)
	}
	sameResult(t, got, r)

	_, err = ReadLog(bytes.NewReader([]byte{0x1f, 0x8b, 0, 0}))
	if err == nil || !strings.HasPrefix(err.Error(), "a gzip stream that does not open: ") {
		t.Errorf("a broken gzip header: %v", err)
	}
}

// HdrHistogram's own reader (hdrhistogram-go's HistogramLogReader) reads a
// loadgen log: the untagged interval is Total, the tagged ones the others,
// each equal bucket by bucket, over the run's time.
func TestLogReadByHdrHistogram(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	start := time.Date(2026, 3, 4, 5, 6, 7, 890000000, time.UTC)
	r := paced(rnd, synthetic(rnd, 5000, start, 2500*time.Millisecond, nil), 3)
	lr := hdrhistogram.NewHistogramLogReader(bytes.NewReader(writeLog(t, r)))
	for _, want := range []struct {
		tag string
		h   *hdrhistogram.Histogram
	}{{"", r.Latency}, {"connect", r.Connect}, {"processing", r.Processing}, {"waiting", r.Waiting}, {"send_lateness", r.SendLateness}} {
		h, err := lr.NextIntervalHistogram()
		if err != nil || h == nil {
			t.Fatalf("%q: %v, %v", want.tag, h, err)
		}
		if h.Tag() != want.tag {
			t.Errorf("tag %q, want %q", h.Tag(), want.tag)
		}
		sameHist(t, want.tag, h, want.h)
		if h.StartTimeMs() != start.UnixMilli() {
			t.Errorf("%q: starts at %d ms, want %d", want.tag, h.StartTimeMs(), start.UnixMilli())
		}
		// The reader computes its end in float seconds: within 1 ms.
		if d := h.EndTimeMs() - start.Add(2500*time.Millisecond).UnixMilli(); d < -1 || d > 1 {
			t.Errorf("%q: ends at %d ms, %d ms off", want.tag, h.EndTimeMs(), d)
		}
	}
	if h, err := lr.NextIntervalHistogram(); h != nil || err != nil {
		t.Errorf("a sixth interval: %v, %v", h, err)
	}
}

// readIntervals reads a log that HdrHistogram's reference implementation
// (Java, jHiccup) wrote, as hdrhistogram-go's reader does; ReadLog says it
// is not loadgen's.
func TestReadJHiccupLog(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/HdrHistogram/hdrhistogram-go").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	path := filepath.Join(strings.TrimSpace(string(out)), "test", "tagged-Log.logV2.hlog")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	comments, ivs, err := readIntervals(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(comments) != 3 || !strings.HasPrefix(comments[2], "#[StartTime: 1441812279.474 ") {
		t.Errorf("comments %q", comments)
	}
	lr := hdrhistogram.NewHistogramLogReader(bytes.NewReader(data))
	n := 0
	for ; ; n++ {
		h, err := lr.NextIntervalHistogram()
		if err != nil {
			t.Fatal(err)
		}
		if h == nil {
			break
		}
		if n >= len(ivs) {
			t.Fatalf("only %d intervals read", len(ivs))
		}
		if ivs[n].tag != h.Tag() {
			t.Errorf("interval %d: tag %q, want %q", n, ivs[n].tag, h.Tag())
		}
		sameHist(t, "interval", ivs[n].h, h)
	}
	if n != len(ivs) || n < 40 || ivs[1].tag != "A" || ivs[0].start != 0.127 || ivs[0].length != 1.007 || ivs[0].max != 2.769 {
		t.Errorf("%d intervals, hdrhistogram-go read %d; first %+v", len(ivs), n, ivs[0])
	}
	if _, err := ReadLog(bytes.NewReader(data)); err == nil || err.Error() != "not a loadgen log: no #[loadgen: ...] line" {
		t.Errorf("ReadLog of a jHiccup log: %v", err)
	}
}

// A file that is not a whole loadgen log is an error that says why.
func TestReadLogErrors(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	r := synthetic(rnd, 1000, time.Unix(1767225600, 0), time.Second, nil)
	log := string(writeLog(t, r))
	lines := strings.SplitAfter(log, "\n")
	meta := lines[4]
	without := func(i int) string { return strings.Replace(log, lines[i], "", 1) }
	other := hdrhistogram.New(1, 1000000, 2)
	other.RecordValue(5)
	enc, err := other.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	payload := lines[6][strings.LastIndex(lines[6], ",")+1:]
	short := newHist() // one fewer sent than complete
	for range 999 {
		short.RecordValue(1000)
	}
	b999, err := short.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	enc999 := "0.000,1.000,0.001," + string(b999) + "\n"
	for _, tc := range []struct{ name, log, want string }{
		{"empty", "", "not a loadgen log"},
		{"text", "hello\n", "line 1: not an interval histogram"},
		{"no meta", without(4), "not a loadgen log"},
		{"two logs", log + log, "two loadgen comments"},
		{"bad json", strings.Replace(log, `"format":1,`, `"format":1,,`, 1), "invalid loadgen comment"},
		{"unknown field", strings.Replace(log, `"format":1,`, `"format":1,"x":2,`, 1), "invalid loadgen comment"},
		{"format 2", strings.Replace(log, `"format":1,`, `"format":2,`, 1), "loadgen log format 2"},
		{"no total", without(6), "no total (untagged) histogram"},
		{"no waiting", without(9), "no waiting histogram"},
		{"two connect", log + lines[7], "line 11: a second connect histogram"},
		{"unknown tag", log + "Tag=x," + lines[6], `line 11: unknown tag "x"`},
		{"geometry", strings.Replace(log, payload, string(enc)+"\n", 1), "not loadgen's 1 to 3600000000000 with 3"},
		{"base64", strings.Replace(log, payload, "HISTF!!!\n", 1), "line 7: invalid histogram"},
		{"truncated", strings.Replace(log, payload, payload[:len(payload)/2]+"\n", 1), "line 7: invalid histogram"},
		{"number", strings.Replace(log, lines[6], "x"+lines[6], 1), `line 7: invalid number "x0.000"`},
		{"complete", strings.Replace(log, `"complete":1000,`, `"complete":1001,`, 1), "histogram holds 1000 requests, but the log counts 1001 complete"},
		{"failed", strings.Replace(log, `"failed":10,`, `"failed":11,`, 1), "11 failed requests, but 10 by kind"},
		{"tag alone", log + "Tag=connect\n", "line 11: a tag and no interval"},
		{"lateness closed", log + "Tag=send_lateness," + lines[6], "a send lateness histogram in a run without a rate"},
		{"lateness short", strings.Replace(log, `"rate":0,`, `"rate":10,`, 1) + "Tag=send_lateness," + enc999, "the send_lateness histogram holds 999 requests sent, fewer than the 1000 complete"},
		{"two lateness", strings.Replace(log, `"rate":0,`, `"rate":10,`, 1) + "Tag=send_lateness," + lines[6] + "Tag=send_lateness," + lines[6], "line 12: a second send_lateness histogram"},
		{"meta unclosed", strings.Replace(log, meta, strings.TrimSuffix(meta, "]\n")+"\n", 1), "invalid loadgen comment"},
	} {
		if _, err := ReadLog(strings.NewReader(tc.log)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := ReadLog(strings.NewReader(log)); err != nil {
		t.Errorf("the log itself: %v", err)
	}
}

// HdrHistogram's reference implementation, Java's HistogramLogProcessor
// (Debian's libhdrhistogram-java), reads a loadgen log: each histogram's
// count, mean, standard deviation and max, in ns, are loadgen's.
func TestLogReadByJava(t *testing.T) {
	const jar = "/usr/share/java/hdrhistogram.jar"
	java, err := exec.LookPath("java")
	if err == nil {
		_, err = os.Stat(jar)
	}
	if err != nil {
		if os.Getenv("HELLOBENCH_REQUIRE_TOOLS") == "1" {
			t.Fatalf("java and HdrHistogram's jar (libhdrhistogram-java): %v", err)
		}
		t.Skipf("java and HdrHistogram's jar (libhdrhistogram-java): %v", err)
	}
	rnd := rand.New(rand.NewPCG(11, 12))
	r := paced(rnd, synthetic(rnd, 3000, time.Date(2026, 7, 8, 9, 10, 11, 0, time.UTC), 5*time.Second, nil), 40)
	path := filepath.Join(t.TempDir(), "run.hlog")
	if err := os.WriteFile(path, writeLog(t, r), 0o644); err != nil {
		t.Fatal(err)
	}
	java1 := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(java, append([]string{"-cp", jar, "org.HdrHistogram.HistogramLogProcessor", "-i", path}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", cmd.Args, err, out)
		}
		return string(out)
	}
	if out := java1("-listtags"); !strings.Contains(out, "connect") || !strings.Contains(out, "processing") || !strings.Contains(out, "waiting") || !strings.Contains(out, "send_lateness") {
		t.Errorf("-listtags:\n%s", out)
	}
	footer := regexp.MustCompile(`#\[Mean += +([\d.]+), StdDeviation += +([\d.]+)\]\n#\[Max += +([\d.]+), Total count += +(\d+)\]`)
	for _, x := range []struct {
		tag string
		h   *hdrhistogram.Histogram
	}{{"", r.Latency}, {"connect", r.Connect}, {"processing", r.Processing}, {"waiting", r.Waiting}, {"send_lateness", r.SendLateness}} {
		args := []string{"-outputValueUnitRatio", "1"}
		if x.tag != "" {
			args = append(args, "-tag", x.tag)
		}
		out := java1(args...)
		m := footer.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("%q: no summary in\n%s", x.tag, out)
		}
		want := []string{fmt.Sprintf("%.3f", x.h.Mean()), fmt.Sprintf("%.3f", x.h.StdDev()),
			fmt.Sprintf("%.3f", float64(x.h.Max())), fmt.Sprint(x.h.TotalCount())}
		if !reflect.DeepEqual(m[1:], want) {
			t.Errorf("%q: Java read mean, sd, max, count %q; loadgen's %q", x.tag, m[1:], want)
		}
	}
}
