package loadgen

import (
	"fmt"
	"io"
	"strings"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Percentiles are ab's, and 99.9 and 99.99.
var Percentiles = []float64{50, 66, 75, 80, 90, 95, 98, 99, 99.9, 99.99, 100}

// WriteReport writes r as ab writes its report, with the same sections, names
// and order, but times under a second in microseconds rather than ab's whole
// milliseconds, and two more percentiles.
func WriteReport(w io.Writer, r *Result) error {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	secs := r.Elapsed.Seconds()

	p("Server Software:        %s\n", r.ServerSoftware)
	p("Server Hostname:        %s\n", r.Host)
	p("Server Port:            %d\n", r.Port)
	p("\n")
	p("Document Path:          %s\n", r.Path)
	p("Document Length:        %d bytes\n", r.DocumentLength)
	p("\n")
	p("Concurrency Level:      %d\n", r.Concurrency)
	if r.Pipeline > 1 {
		p("Pipeline Depth:         %d\n", r.Pipeline)
	}
	if r.Rate > 0 {
		p("Request Rate:           %.2f [#/sec] (target)\n", r.Rate)
	}
	p("Time taken for tests:   %.3f seconds\n", secs)
	p("Complete requests:      %d\n", r.Complete)
	p("Failed requests:        %d\n", r.Failed)
	if r.Failed > 0 {
		f := r.Failures
		p("   (Connect: %d, Receive: %d, Length: %d, Exceptions: %d", f.Connect, f.Receive, f.Length, f.Exceptions)
		if f.Timeout > 0 {
			p(", Timeout: %d", f.Timeout)
		}
		p(")\n")
	}
	if r.Non2xx > 0 {
		p("Non-2xx responses:      %d\n", r.Non2xx)
	}
	if r.KeepAlive {
		p("Keep-Alive requests:    %d\n", r.KeepAliveRequests)
	}
	p("Total transferred:      %d bytes\n", r.TotalBytes)
	p("HTML transferred:       %d bytes\n", r.HTMLBytes)
	if r.Complete > 0 && secs > 0 {
		perReq := secs * 1e6 / float64(r.Complete) // µs
		p("Requests per second:    %.2f [#/sec] (mean)\n", r.RequestsPerSec())
		p("Time per request:       %.3f [µs] (mean)\n", perReq*float64(r.Concurrency))
		p("Time per request:       %.3f [µs] (mean, across all concurrent requests)\n", perReq)
		p("Transfer rate:          %.2f [Kbytes/sec] received\n", float64(r.TotalBytes)/1024/secs)
	}

	if r.Complete > 0 {
		p("\nConnection Times (µs)\n")
		p("              min    mean[+/-sd]  median      max\n")
		row := func(name string, h *hdrhistogram.Histogram) {
			p("%-11s %7d %7.0f %6.1f %7d %8d\n", name+":",
				us(h.Min()), h.Mean()/1e3, h.StdDev()/1e3, us(h.ValueAtQuantile(50)), us(h.Max()))
		}
		row("Connect", r.Connect)
		row("Processing", r.Processing)
		row("Waiting", r.Waiting)
		row("Total", r.Latency)

		p("\nPercentage of the requests served within a certain time (µs)\n")
		for _, q := range Percentiles {
			label := fmt.Sprintf("%g%%", q)
			if q == 100 {
				p(" %6s %7d (longest request)\n", label, us(r.Latency.Max()))
				continue
			}
			p(" %6s %7d\n", label, us(r.Latency.ValueAtQuantile(q)))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// us rounds nanoseconds to microseconds.
func us(ns int64) int64 { return (ns + 500) / 1000 }
