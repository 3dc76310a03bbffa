//go:build linux

package loadgen

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram range: 1 ns to one hour, 3 significant digits (0.1% error).
const (
	histMin = 1
	histMax = int64(time.Hour)
	histSig = 3
)

// Result is what a run measured. Times in the histograms are nanoseconds.
type Result struct {
	URL            string
	Host           string
	Port           int
	Path           string
	ServerSoftware string
	DocumentLength int64 // body length of the first response
	AnyLength      bool  // Config.AnyLength: lengths were not compared
	Concurrency    int
	KeepAlive      bool
	Pipeline       int
	PerConn        int // Config.PerConn: 0, no limit
	Rate           float64
	Requests       int           // requested; 0 when run by duration
	Engine         string        // the I/O engine the loops used
	Start          time.Time     // when the run started, by this host's clock
	Elapsed        time.Duration // time taken for the measured requests

	Complete          int64
	Failed            int64
	Failures          Failures
	Non2xx            int64
	Status            map[int]int64 // by status code; 0 for an out-of-range code
	KeepAliveRequests int64
	Connections       int64  // connections opened
	TLS               string // what an https:// run spoke (TLSProtocol); "" for http://
	Handshakes        int64  // TLS handshakes completed
	Resumed           int64  // of which resumed a session (Config.Resume)
	EarlyData         int64  // requests the server took in 0-RTT (Config.EarlyData)
	TotalBytes        int64  // response bytes, headers included
	HTMLBytes         int64  // response body bytes

	// Aborted is the socket error that ended the run early, with
	// Config.StopOnReceiveError; nil otherwise.
	Aborted error

	// Total, Connect, Processing and Waiting times of complete requests, as
	// in ab's Connection Times table.
	Latency, Connect, Processing, Waiting *hdrhistogram.Histogram

	// SendLateness, with a Rate, holds for each request sent how late its
	// first send was issued (see the package doc's "Send lateness"); it
	// counts every request sent, complete or not. nil without a rate, or
	// from a log written before loadgen measured it.
	SendLateness *hdrhistogram.Histogram
}

// RequestsPerSec is complete requests per second of Elapsed.
func (r *Result) RequestsPerSec() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Complete) / r.Elapsed.Seconds()
}

// TimePerRequest is ab's "Time per request (mean)": how long a request
// took on average as its sender saw it. In a closed loop that is ab's
// concurrency × time taken / complete requests, with Pipeline requests in
// flight on each connection counted as that many senders (Little's law:
// the requests in flight over the rate they complete at). With Rate the
// requests in flight vary, so it is the measured mean of Total, from each
// request's intended send.
func (r *Result) TimePerRequest() time.Duration {
	if r.Complete == 0 || r.Elapsed <= 0 {
		return 0
	}
	if r.Rate > 0 {
		return time.Duration(r.Latency.Mean())
	}
	return time.Duration(float64(r.Concurrency) * float64(max(r.Pipeline, 1)) * float64(r.Elapsed) / float64(r.Complete))
}

// TimePerRequestAll is ab's "Time per request (mean, across all concurrent
// requests)": time taken / complete requests, the inverse of the rate.
func (r *Result) TimePerRequestAll() time.Duration {
	if r.Complete == 0 || r.Elapsed <= 0 {
		return 0
	}
	return time.Duration(float64(r.Elapsed) / float64(r.Complete))
}

// Failures counts failed requests by kind, as ab's "Failed requests" line
// does, plus timeouts (-s), which ab does not count but aborts on.
type Failures struct {
	Connect    int64 `json:"connect"`    // the connection could not be opened
	Receive    int64 `json:"receive"`    // read or write error, or the connection closed mid-response
	Length     int64 `json:"length"`     // body length differs from the first response's
	Exceptions int64 `json:"exceptions"` // malformed response
	Timeout    int64 `json:"timeout"`    // no response within the timeout
}

func (f *Failures) add(g *Failures) {
	f.Connect += g.Connect
	f.Receive += g.Receive
	f.Length += g.Length
	f.Exceptions += g.Exceptions
	f.Timeout += g.Timeout
}

func (f *Failures) total() int64 {
	return f.Connect + f.Receive + f.Length + f.Exceptions + f.Timeout
}

// stats is one event loop's record of its requests. Only that loop writes
// it, so recording takes no lock; loops are merged when the run ends.
type stats struct {
	// Times in nanoseconds, as ab's Connection Times table splits them:
	// total from the request's start (or intended start, with a rate) to its
	// response's last byte; connect, the connection's establishment when the
	// request opened it; waiting, from the send to the response's first byte;
	// processing, total less connect.
	total, connect, processing, waiting *hdrhistogram.Histogram
	late                                *hdrhistogram.Histogram // send lateness, with a rate; else nil

	status              [600]int64 // by status code; others in status[0]
	complete            int64
	failures            Failures
	non2xx              int64
	keepAlive           int64 // responses after which the connection stayed open
	conns               int64 // connections opened
	handshakes, resumed int64 // TLS handshakes done, and resumed
	bytes               int64 // all response bytes, headers included
	html                int64 // response body bytes
	server              string
	last                time.Duration // when the last request was counted, from the run's start
}

// newStats returns empty stats, with a send lateness histogram if paced.
func newStats(paced bool) *stats {
	s := &stats{
		total:      newHist(),
		connect:    newHist(),
		processing: newHist(),
		waiting:    newHist(),
	}
	if paced {
		s.late = newHist()
	}
	return s
}

// newHist returns an empty histogram of loadgen's geometry.
func newHist() *hdrhistogram.Histogram { return hdrhistogram.New(histMin, histMax, histSig) }

// record adds one value, clamped into the histogram's range: a value is never
// dropped, so every histogram counts every complete request.
func record(h *hdrhistogram.Histogram, v int64) {
	if v < 0 {
		v = 0
	} else if v > histMax {
		v = histMax
	}
	h.RecordValue(v)
}

// add adds a loop's stats to r.
func (r *Result) add(s *stats) {
	r.Latency.Merge(s.total)
	r.Connect.Merge(s.connect)
	r.Processing.Merge(s.processing)
	r.Waiting.Merge(s.waiting)
	if r.SendLateness != nil && s.late != nil {
		r.SendLateness.Merge(s.late)
	}
	for code, n := range s.status {
		if n != 0 {
			r.Status[code] += n
		}
	}
	r.Complete += s.complete
	r.Failures.add(&s.failures)
	r.Failed = r.Failures.total()
	r.Non2xx += s.non2xx
	r.KeepAliveRequests += s.keepAlive
	r.Connections += s.conns
	r.Handshakes += s.handshakes
	r.Resumed += s.resumed
	r.TotalBytes += s.bytes
	r.HTMLBytes += s.html
	if r.ServerSoftware == "" {
		r.ServerSoftware = s.server
	}
}
