//go:build linux

package loadgen

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Percentiles are ab's, and 99.9 and 99.99.
var Percentiles = []float64{50, 66, 75, 80, 90, 95, 98, 99, 99.9, 99.99, 100}

// abPercentiles are ab's own.
var abPercentiles = []int{50, 66, 75, 80, 90, 95, 98, 99, 100}

// WriteReport writes r as ab writes its report, with the same sections, names
// and order, but times in microseconds rather than ab's milliseconds, and two
// more percentiles.
func WriteReport(w io.Writer, r *Result) error {
	return writeReport(w, r, false)
}

// WriteABReport writes r in ab's own units and format: times in
// milliseconds, whole ones in the Connection Times table and the
// percentiles (ab's), with ab's column widths and its warnings on a mean
// far from the median, so that a script reading ab's report reads it.
func WriteABReport(w io.Writer, r *Result) error {
	return writeReport(w, r, true)
}

func writeReport(w io.Writer, r *Result, ms bool) error {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	secs := r.Elapsed.Seconds()
	unit, scale := "µs", float64(time.Microsecond)
	if ms {
		unit, scale = "ms", float64(time.Millisecond)
	}

	p("Server Software:        %s\n", r.ServerSoftware)
	p("Server Hostname:        %s\n", r.Host)
	p("Server Port:            %d\n", r.Port)
	if r.TLS != "" {
		p("SSL/TLS Protocol:       %s\n", r.TLS) // as ab prints it
	}
	p("\n")
	p("Document Path:          %s\n", r.Path)
	if r.AnyLength {
		p("Document Length:        Variable\n")
	} else {
		p("Document Length:        %d bytes\n", r.DocumentLength)
	}
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
	if r.PerConn > 0 {
		p("Requests per conn.:     %d, then a new connection (%d opened)\n", r.PerConn, r.Connections)
	}
	if r.TLS != "" {
		p("TLS handshakes:         %d (%d resumed)\n", r.Handshakes, r.Resumed)
		if r.EarlyData > 0 {
			p("Requests in 0-RTT:      %d\n", r.EarlyData)
		}
	}
	p("Total transferred:      %d bytes\n", r.TotalBytes)
	p("HTML transferred:       %d bytes\n", r.HTMLBytes)
	if r.Complete > 0 && secs > 0 {
		p("Requests per second:    %.2f [#/sec] (mean)\n", r.RequestsPerSec())
		p("Time per request:       %.3f [%s] (mean)\n", float64(r.TimePerRequest())/scale, unit)
		p("Time per request:       %.3f [%s] (mean, across all concurrent requests)\n", float64(r.TimePerRequestAll())/scale, unit)
		p("Transfer rate:          %.2f [Kbytes/sec] received\n", float64(r.TotalBytes)/1024/secs)
	}
	if r.Complete > 0 {
		if ms {
			abTimes(&b, r)
		} else {
			usTimes(&b, r)
		}
	}
	lateness(&b, r, unit, scale)
	_, err := io.WriteString(w, b.String())
	return err
}

// usTimes writes the Connection Times table and the percentiles in µs.
func usTimes(b *strings.Builder, r *Result) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
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

// abTimes writes the Connection Times table and the percentiles as ab
// does: whole milliseconds, rounded, but the standard deviation; its
// warnings where a mean is far from its median; its percentiles, for more
// than one request.
func abTimes(b *strings.Builder, r *Result) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	type row struct {
		name                   string
		min, mean, median, max int64
		sd                     float64
	}
	mk := func(name string, h *hdrhistogram.Histogram) row {
		// ab's mean is whole µs, then rounded to ms like the rest.
		return row{name, ms(h.Min()), ms(int64(h.Mean()/1e3) * 1e3), ms(h.ValueAtQuantile(50)), ms(h.Max()), h.StdDev() / 1e6}
	}
	rows := []row{mk("Connect", r.Connect), mk("Processing", r.Processing), mk("Waiting", r.Waiting), mk("Total", r.Latency)}
	p("\nConnection Times (ms)\n")
	p("              min  mean[+/-sd] median   max\n")
	for _, x := range rows {
		p("%-11s %5d %4d %5.1f %6d %7d\n", x.name+":", x.min, x.mean, x.sd, x.median, x.max)
	}
	for i, what := range []string{"the initial connection time", "the processing time", "the waiting time", "the total time"} {
		x := rows[i]
		switch d := math.Abs(float64(x.mean - x.median)); {
		case d > 2*x.sd:
			p("ERROR: The median and mean for %s are more than twice the standard\n"+
				"       deviation apart. These results are NOT reliable.\n", what)
		case d > x.sd:
			p("WARNING: The median and mean for %s are not within a normal deviation\n"+
				"        These results are probably not that reliable.\n", what)
		}
	}
	if r.Complete > 1 {
		p("\nPercentage of the requests served within a certain time (ms)\n")
		for _, q := range abPercentiles {
			if q == 100 {
				p(" 100%%  %5d (longest request)\n", ms(r.Latency.Max()))
				continue
			}
			p("  %d%%  %5d\n", q, ms(r.Latency.ValueAtQuantile(float64(q))))
		}
	}
}

// lateness writes, with a rate, the send lateness and whether the run was
// client-limited (Result.ClientLimited).
func lateness(b *strings.Builder, r *Result, unit string, scale float64) {
	h := r.SendLateness
	if h == nil || h.TotalCount() == 0 {
		return
	}
	prec := 1 // lateness is often tens of µs
	if unit == "ms" {
		prec = 3
	}
	v := func(ns int64) string { return fmt.Sprintf("%.*f", prec, float64(ns)/scale) }
	fmt.Fprintf(b, "\nSend lateness (%s): p50 %s, p99 %s, p99.9 %s, max %s\n", unit,
		v(h.ValueAtQuantile(50)), v(h.ValueAtQuantile(99)), v(h.ValueAtQuantile(99.9)), v(h.Max()))
	limited, bound := r.ClientLimited()
	verdict, cmp := "no", "≤"
	if limited {
		verdict, cmp = "yes", ">"
	}
	fmt.Fprintf(b, "Client-limited:         %s (lateness p99.9 %s %s %s %s, the larger of 10%% of latency p99.9 and %v)\n",
		verdict, v(h.ValueAtQuantile(99.9)), cmp, v(int64(bound)), unit, MinClientBound)
}

// us rounds nanoseconds to microseconds.
func us(ns int64) int64 { return (ns + 500) / 1000 }

// ms rounds nanoseconds to milliseconds, as ab rounds its microseconds.
func ms(ns int64) int64 { return (ns/1000 + 500) / 1000 }
