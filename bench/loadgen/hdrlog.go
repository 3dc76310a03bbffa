//go:build linux

package loadgen

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// A run's log, as WriteLog writes it, is an HdrHistogram interval log in
// the form HdrHistogram's HistogramLogWriter writes (log format version
// 1.3), so HdrHistogram's own tools read it (Java's HistogramLogProcessor,
// hdrhistogram-go's HistogramLogReader):
//
//	#[Logged with loadgen]
//	#[Histogram log format version 1.3]
//	#[StartTime: 1767225600.123 (seconds since epoch), 2026-01-01T00:00:00.123Z]
//	#[BaseTime: 1767225600.123 (seconds since epoch)]
//	#[loadgen: {"format":1,"url":"http://...","start":"...","complete":...}]
//	"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"
//	0.000,10.002,3.456,HISTFAAA...
//	Tag=connect,0.000,10.002,0.120,HISTFAAA...
//	Tag=processing,0.000,10.002,3.400,HISTFAAA...
//	Tag=waiting,0.000,10.002,3.390,HISTFAAA...
//	Tag=send_lateness,0.000,10.002,0.052,HISTFAAA...
//
// The run is one interval, from its start to its end. The untagged
// histogram is Total, the latency that the report's percentiles are of, so
// a tool that reads untagged intervals only (HistogramLogProcessor without
// -tag) reads it; connect, processing and waiting are the report's other
// Connection Times, each of every complete request. send_lateness, written
// with a rate only, is Result.SendLateness: it counts every request sent,
// so at least the complete ones.
// Values are nanoseconds; Interval_Max is in milliseconds, as the writer's
// default ratio makes it. Each histogram is in the V2 compressed encoding
// (a zlib-deflated V2 encoding, base64), with loadgen's geometry: 1 ns to
// 1 h, 3 significant digits.
//
// The "#[loadgen: ...]" comment holds the run's exact counts and settings as
// one line of JSON; HdrHistogram's readers skip it as a comment. Its start
// is the run's start to the nanosecond, by this host's clock.
const (
	logFormat     = 1 // of the loadgen comment; ReadLog reads this one only
	logVersion    = "1.3"
	logMetaPrefix = "#[loadgen: "
	logLegend     = `"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"`
)

// The tags of the histograms beside Total, in the order written.
const (
	tagConnect    = "connect"
	tagProcessing = "processing"
	tagWaiting    = "waiting"
	tagLateness   = "send_lateness"
)

// logMeta is the loadgen comment: everything in a Result but its
// histograms.
type logMeta struct {
	Format            int           `json:"format"`
	URL               string        `json:"url"`
	Host              string        `json:"host"`
	Port              int           `json:"port"`
	Path              string        `json:"path"`
	ServerSoftware    string        `json:"server_software"`
	DocumentLength    int64         `json:"document_length"`
	AnyLength         bool          `json:"any_length"`
	Concurrency       int           `json:"concurrency"`
	KeepAlive         bool          `json:"keepalive"`
	Pipeline          int           `json:"pipeline"`
	PerConn           int           `json:"per_conn,omitempty"`
	Rate              float64       `json:"rate"`
	Requests          int           `json:"requests"`
	Engine            string        `json:"engine"`
	Start             time.Time     `json:"start"`
	ElapsedNS         int64         `json:"elapsed_ns"`
	Complete          int64         `json:"complete"`
	Failed            int64         `json:"failed"`
	Failures          Failures      `json:"failures"`
	Non2xx            int64         `json:"non_2xx"`
	Status            map[int]int64 `json:"status"`
	KeepAliveRequests int64         `json:"keepalive_requests"`
	Connections       int64         `json:"connections"`
	TotalBytes        int64         `json:"total_bytes"`
	HTMLBytes         int64         `json:"html_bytes"`
	Aborted           string        `json:"aborted,omitempty"`
}

// WriteLog writes r as an HdrHistogram interval log, described above, for
// ReadLog and Merge on another host, or HdrHistogram's tools.
func WriteLog(w io.Writer, r *Result) error {
	if r.Start.IsZero() {
		return errors.New("the run has no start time")
	}
	m := logMeta{
		Format: logFormat, URL: r.URL, Host: r.Host, Port: r.Port, Path: r.Path,
		ServerSoftware: r.ServerSoftware, DocumentLength: r.DocumentLength, AnyLength: r.AnyLength,
		Concurrency: r.Concurrency, KeepAlive: r.KeepAlive, Pipeline: r.Pipeline, PerConn: r.PerConn, Rate: r.Rate,
		Requests: r.Requests, Engine: r.Engine, Start: r.Start, ElapsedNS: int64(r.Elapsed),
		Complete: r.Complete, Failed: r.Failed, Failures: r.Failures, Non2xx: r.Non2xx,
		Status: r.Status, KeepAliveRequests: r.KeepAliveRequests, Connections: r.Connections,
		TotalBytes: r.TotalBytes, HTMLBytes: r.HTMLBytes,
	}
	if r.Aborted != nil {
		m.Aborted = r.Aborted.Error()
	}
	meta, err := json.Marshal(m)
	if err != nil {
		return err
	}

	// The interval's timestamps are seconds from BaseTime, as Java's writer
	// prints them: %.3f, so the base is the start in whole milliseconds.
	ms := r.Start.UnixMilli()
	base := float64(ms) / 1e3
	start := float64(r.Start.UnixNano()-ms*1e6) / 1e9
	length := r.Elapsed.Seconds()

	var b strings.Builder
	fmt.Fprintf(&b, "#[Logged with loadgen]\n")
	fmt.Fprintf(&b, "#[Histogram log format version %s]\n", logVersion)
	fmt.Fprintf(&b, "#[StartTime: %.3f (seconds since epoch), %s]\n", base, time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z07:00"))
	fmt.Fprintf(&b, "#[BaseTime: %.3f (seconds since epoch)]\n", base)
	fmt.Fprintf(&b, "%s%s]\n", logMetaPrefix, meta)
	fmt.Fprintf(&b, "%s\n", logLegend)
	for _, x := range []struct {
		tag string
		h   *hdrhistogram.Histogram
	}{{"", r.Latency}, {tagConnect, r.Connect}, {tagProcessing, r.Processing}, {tagWaiting, r.Waiting}, {tagLateness, r.SendLateness}} {
		if x.h == nil {
			continue // no lateness without a rate
		}
		enc, err := x.h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			return fmt.Errorf("encoding the %s histogram: %w", histName(x.tag), err)
		}
		if x.tag != "" {
			fmt.Fprintf(&b, "Tag=%s,", x.tag)
		}
		fmt.Fprintf(&b, "%.3f,%.3f,%.3f,%s\n", start, length, float64(x.h.Max())/1e6, enc)
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// histName is what a tag's histogram is called in messages.
func histName(tag string) string {
	if tag == "" {
		return "total (untagged)"
	}
	return tag
}

// logInterval is one histogram line of an interval log.
type logInterval struct {
	tag           string
	start, length float64 // seconds, start from the log's BaseTime
	max           float64 // in the log's unit, milliseconds for loadgen's
	h             *hdrhistogram.Histogram
	line          int
}

// readIntervals reads an interval log: its comments, in order, and its
// histograms. It reads any HdrHistogram interval log, not only loadgen's.
func readIntervals(rd io.Reader) (comments []string, ivs []logInterval, err error) {
	sc := bufio.NewScanner(rd)
	// A histogram's line is short when compressed, but a wide one over
	// loadgen's range can take some hundreds of KiB.
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimRight(sc.Text(), "\r")
		switch {
		case line == "" || strings.HasPrefix(line, `"StartTimestamp"`):
			continue
		case line[0] == '#':
			comments = append(comments, line)
			continue
		}
		iv := logInterval{line: n}
		if rest, ok := strings.CutPrefix(line, "Tag="); ok {
			tag, after, ok := strings.Cut(rest, ",")
			if !ok {
				return nil, nil, fmt.Errorf("line %d: a tag and no interval", n)
			}
			iv.tag, line = tag, after
		}
		f := strings.SplitN(line, ",", 4)
		if len(f) != 4 {
			return nil, nil, fmt.Errorf("line %d: not an interval histogram (start,length,max,histogram)", n)
		}
		for i, p := range []*float64{&iv.start, &iv.length, &iv.max} {
			if *p, err = strconv.ParseFloat(f[i], 64); err != nil {
				return nil, nil, fmt.Errorf("line %d: invalid number %q", n, f[i])
			}
		}
		if iv.h, err = hdrhistogram.Decode([]byte(f[3])); err != nil {
			return nil, nil, fmt.Errorf("line %d: invalid histogram: %v", n, err)
		}
		ivs = append(ivs, iv)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("line %d: %v", n+1, err)
	}
	return comments, ivs, nil
}

// ReadLog reads a log that WriteLog wrote, as it is or gzip-compressed,
// and returns its Result. A file that is not such a log, or whose counts
// disagree with its histograms (a log cut short or edited), is an error.
func ReadLog(rd io.Reader) (*Result, error) {
	rd, err := gunzipped(rd)
	if err != nil {
		return nil, err
	}
	comments, ivs, err := readIntervals(rd)
	if err != nil {
		return nil, err
	}
	var m *logMeta
	for _, c := range comments {
		js, ok := strings.CutPrefix(c, logMetaPrefix)
		if !ok {
			continue
		}
		if m != nil {
			return nil, errors.New("two loadgen comments: two logs in one file? (give each its own file)")
		}
		js, ok = strings.CutSuffix(js, "]")
		dec := json.NewDecoder(strings.NewReader(js))
		dec.DisallowUnknownFields()
		m = &logMeta{}
		if !ok || dec.Decode(m) != nil || dec.More() {
			return nil, errors.New("invalid loadgen comment: not the JSON that loadgen writes")
		}
		if m.Format != logFormat {
			return nil, fmt.Errorf("loadgen log format %d; this loadgen reads format %d", m.Format, logFormat)
		}
	}
	if m == nil {
		return nil, errors.New("not a loadgen log: no #[loadgen: ...] line")
	}

	r := &Result{
		URL: m.URL, Host: m.Host, Port: m.Port, Path: m.Path, ServerSoftware: m.ServerSoftware,
		DocumentLength: m.DocumentLength, AnyLength: m.AnyLength, Concurrency: m.Concurrency,
		KeepAlive: m.KeepAlive, Pipeline: m.Pipeline, PerConn: m.PerConn, Rate: m.Rate, Requests: m.Requests,
		Engine: m.Engine, Start: m.Start, Elapsed: time.Duration(m.ElapsedNS),
		Complete: m.Complete, Failed: m.Failed, Failures: m.Failures, Non2xx: m.Non2xx,
		Status: m.Status, KeepAliveRequests: m.KeepAliveRequests, Connections: m.Connections,
		TotalBytes: m.TotalBytes, HTMLBytes: m.HTMLBytes,
	}
	if r.Status == nil {
		r.Status = map[int]int64{}
	}
	if m.Aborted != "" {
		r.Aborted = errors.New(m.Aborted)
	}
	want := hdrhistogram.New(histMin, histMax, histSig)
	hs := map[string]**hdrhistogram.Histogram{
		"": &r.Latency, tagConnect: &r.Connect, tagProcessing: &r.Processing, tagWaiting: &r.Waiting,
		tagLateness: &r.SendLateness,
	}
	for _, iv := range ivs {
		p, ok := hs[iv.tag]
		switch {
		case !ok:
			return nil, fmt.Errorf("line %d: unknown tag %q", iv.line, iv.tag)
		case *p != nil:
			return nil, fmt.Errorf("line %d: a second %s histogram", iv.line, histName(iv.tag))
		case iv.h.LowestTrackableValue() != want.LowestTrackableValue() ||
			iv.h.HighestTrackableValue() != want.HighestTrackableValue() ||
			iv.h.SignificantFigures() != want.SignificantFigures():
			return nil, fmt.Errorf("line %d: histogram of %d to %d with %d digits, not loadgen's %d to %d with %d",
				iv.line, iv.h.LowestTrackableValue(), iv.h.HighestTrackableValue(), iv.h.SignificantFigures(),
				want.LowestTrackableValue(), want.HighestTrackableValue(), want.SignificantFigures())
		}
		*p = iv.h
	}
	for tag, p := range hs {
		if tag == tagLateness {
			// Optional (a closed loop has none, nor a log from before
			// loadgen measured it), and of requests sent, not completed.
			switch h := *p; {
			case h != nil && r.Rate <= 0:
				return nil, errors.New("a send lateness histogram in a run without a rate")
			case h != nil && h.TotalCount() < r.Complete:
				return nil, fmt.Errorf("the %s histogram holds %d requests sent, fewer than the %d complete", tag, h.TotalCount(), r.Complete)
			}
			continue
		}
		switch {
		case *p == nil:
			return nil, fmt.Errorf("no %s histogram", histName(tag))
		case (*p).TotalCount() != r.Complete:
			return nil, fmt.Errorf("the %s histogram holds %d requests, but the log counts %d complete",
				histName(tag), (*p).TotalCount(), r.Complete)
		}
	}
	switch {
	case r.Failed != r.Failures.total():
		return nil, fmt.Errorf("%d failed requests, but %d by kind", r.Failed, r.Failures.total())
	case r.Start.IsZero() || r.Elapsed < 0:
		return nil, errors.New("no start time, or a negative duration")
	}
	return r, nil
}

// gzipMagic starts every gzip stream (RFC 1952, section 2.3.1).
var gzipMagic = []byte{0x1f, 0x8b}

// gunzipped returns rd decompressed when it is a gzip stream, else rd: a
// log may be kept compressed (name.hlog.gz) or not.
func gunzipped(rd io.Reader) (io.Reader, error) {
	br := bufio.NewReader(rd)
	if head, _ := br.Peek(len(gzipMagic)); !bytes.Equal(head, gzipMagic) {
		return br, nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, fmt.Errorf("a gzip stream that does not open: %v", err)
	}
	return zr, nil
}
