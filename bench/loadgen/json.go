//go:build linux

package loadgen

import (
	"encoding/json"
	"io"
	"strconv"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// JSONResult is the -json report: every figure of the text report, the
// status counts, failures by kind and the latency histogram.
type JSONResult struct {
	URL                 string           `json:"url"`
	ServerSoftware      string           `json:"server_software"`
	DocumentPath        string           `json:"document_path"`
	DocumentLength      int64            `json:"document_length"`
	AnyLength           bool             `json:"any_length,omitempty"`
	Concurrency         int              `json:"concurrency"`
	KeepAlive           bool             `json:"keepalive"`
	Pipeline            int              `json:"pipeline"`
	PerConn             int              `json:"per_conn,omitempty"`
	Rate                float64          `json:"rate,omitempty"`
	Engine              string           `json:"engine"`
	Start               time.Time        `json:"start,omitzero"` // Result.Start
	Requests            int              `json:"requests"`
	DurationS           float64          `json:"duration_s"`
	Complete            int64            `json:"complete"`
	Failed              int64            `json:"failed"`
	Failures            Failures         `json:"failures"`
	Non2xx              int64            `json:"non_2xx"`
	Status              map[string]int64 `json:"status"`
	KeepAliveRequests   int64            `json:"keepalive_requests"`
	Connections         int64            `json:"connections"`
	TLS                 string           `json:"tls,omitempty"`            // Result.TLS
	Handshakes          int64            `json:"tls_handshakes,omitempty"` // Result.Handshakes
	Resumed             int64            `json:"tls_resumed,omitempty"`    // Result.Resumed
	EarlyData           int64            `json:"early_data,omitempty"`     // Result.EarlyData
	TotalBytes          int64            `json:"total_bytes"`
	HTMLBytes           int64            `json:"html_bytes"`
	RequestsPerSec      float64          `json:"requests_per_sec"`
	TimePerRequestUS    float64          `json:"time_per_request_us"`     // Result.TimePerRequest
	TimePerRequestAllUS float64          `json:"time_per_request_all_us"` // Result.TimePerRequestAll
	Aborted             string           `json:"aborted,omitempty"`       // Result.Aborted
	LatencyUS           Summary          `json:"latency_us"`
	ConnectUS           Summary          `json:"connect_us"`

	// With a rate only: each request's send lateness
	// (Result.SendLateness), and the verdict of Result.ClientLimited with
	// its bound.
	SendLatenessUS *Summary `json:"send_lateness_us,omitempty"`
	ClientLimited  *bool    `json:"client_limited,omitempty"`
	ClientBoundUS  float64  `json:"client_bound_us,omitempty"`

	Histogram []Bucket      `json:"histogram"`
	Runs      []*JSONResult `json:"runs,omitempty"`

	// Of a merged run (loadgen merge): each log's own figures, and the
	// file it was read from.
	Sources []*JSONResult `json:"sources,omitempty"`
	File    string        `json:"file,omitempty"`
}

// Summary is a distribution in microseconds.
type Summary struct {
	Min    float64 `json:"min"`
	Mean   float64 `json:"mean"`
	StdDev float64 `json:"stddev"`
	P50    float64 `json:"p50"`
	P66    float64 `json:"p66"`
	P75    float64 `json:"p75"`
	P80    float64 `json:"p80"`
	P90    float64 `json:"p90"`
	P95    float64 `json:"p95"`
	P98    float64 `json:"p98"`
	P99    float64 `json:"p99"`
	P99_9  float64 `json:"p99_9"`
	P99_99 float64 `json:"p99_99"`
	Max    float64 `json:"max"`
}

// Bucket counts the requests whose latency is at most LeUS microseconds and
// above the previous bucket's LeUS (not cumulative). Buckets are about 1%
// wide and only non-empty ones are listed.
type Bucket struct {
	LeUS  float64 `json:"le_us"`
	Count int64   `json:"count"`
}

// JSON returns r's JSON form, with runs (as returned by repeated runs, r
// among them) when there are more than one.
func JSON(r *Result, runs []*Result) *JSONResult {
	j := jsonOne(r)
	if len(runs) > 1 {
		for _, x := range runs {
			j.Runs = append(j.Runs, jsonOne(x))
		}
	}
	return j
}

// WriteJSON writes JSON(r, runs) and a newline.
func WriteJSON(w io.Writer, r *Result, runs []*Result) error {
	b, err := json.Marshal(JSON(r, runs))
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteMergedJSON writes the JSON of m, the Merge of parts, which were read
// from files, with each part's own figures under "sources", and a newline.
func WriteMergedJSON(w io.Writer, m *Result, parts []*Result, files []string) error {
	j := jsonOne(m)
	for i, r := range parts {
		s := jsonOne(r)
		if i < len(files) {
			s.File = files[i]
		}
		j.Sources = append(j.Sources, s)
	}
	b, err := json.Marshal(j)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func jsonOne(r *Result) *JSONResult {
	j := &JSONResult{
		URL:                 r.URL,
		ServerSoftware:      r.ServerSoftware,
		DocumentPath:        r.Path,
		DocumentLength:      r.DocumentLength,
		AnyLength:           r.AnyLength,
		Concurrency:         r.Concurrency,
		KeepAlive:           r.KeepAlive,
		Pipeline:            r.Pipeline,
		PerConn:             r.PerConn,
		Rate:                r.Rate,
		Engine:              r.Engine,
		Start:               r.Start,
		Requests:            r.Requests,
		DurationS:           r.Elapsed.Seconds(),
		Complete:            r.Complete,
		Failed:              r.Failed,
		Failures:            r.Failures,
		Non2xx:              r.Non2xx,
		Status:              map[string]int64{},
		KeepAliveRequests:   r.KeepAliveRequests,
		Connections:         r.Connections,
		TLS:                 r.TLS,
		Handshakes:          r.Handshakes,
		Resumed:             r.Resumed,
		EarlyData:           r.EarlyData,
		TotalBytes:          r.TotalBytes,
		HTMLBytes:           r.HTMLBytes,
		RequestsPerSec:      r.RequestsPerSec(),
		TimePerRequestUS:    float64(r.TimePerRequest()) / 1e3,
		TimePerRequestAllUS: float64(r.TimePerRequestAll()) / 1e3,
		LatencyUS:           summarize(r.Latency),
		ConnectUS:           summarize(r.Connect),
		Histogram:           buckets(r.Latency),
	}
	if r.Aborted != nil {
		j.Aborted = r.Aborted.Error()
	}
	if r.SendLateness != nil && r.SendLateness.TotalCount() > 0 {
		s := summarize(r.SendLateness)
		limited, bound := r.ClientLimited()
		j.SendLatenessUS, j.ClientLimited, j.ClientBoundUS = &s, &limited, float64(bound)/1e3
	}
	for code, n := range r.Status {
		j.Status[strconv.Itoa(code)] = n
	}
	return j
}

func summarize(h *hdrhistogram.Histogram) Summary {
	if h.TotalCount() == 0 {
		return Summary{}
	}
	q := func(p float64) float64 { return float64(h.ValueAtQuantile(p)) / 1e3 }
	return Summary{
		Min: float64(h.Min()) / 1e3, Mean: h.Mean() / 1e3, StdDev: h.StdDev() / 1e3,
		P50: q(50), P66: q(66), P75: q(75), P80: q(80), P90: q(90), P95: q(95),
		P98: q(98), P99: q(99), P99_9: q(99.9), P99_99: q(99.99),
		Max: float64(h.Max()) / 1e3,
	}
}

// buckets folds the histogram's 0.1% buckets into about 1% ones.
func buckets(h *hdrhistogram.Histogram) []Bucket {
	out := []Bucket{}
	var from, count int64
	var to int64
	for _, bar := range h.Distribution() {
		if bar.Count == 0 {
			continue
		}
		if count > 0 && bar.To > from+from/100 {
			out = append(out, Bucket{LeUS: float64(to) / 1e3, Count: count})
			count = 0
		}
		if count == 0 {
			from = bar.From
		}
		count += bar.Count
		to = bar.To
	}
	if count > 0 {
		out = append(out, Bucket{LeUS: float64(to) / 1e3, Count: count})
	}
	return out
}
