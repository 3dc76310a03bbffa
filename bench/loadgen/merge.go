//go:build linux

package loadgen

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Mergeable reports why runs a and b are not parts of one test, if they are
// not: another URL, keep-alive on one and not the other, another pipeline
// depth, an open loop (Rate) and a closed one, another body length counted
// as the document's, or no time when both ran (by their hosts' clocks): a
// log left from an earlier test, or clocks far apart, which would make the
// merged time taken, and so the rate, wrong.
func Mergeable(a, b *Result) error {
	switch {
	case a.URL != b.URL:
		return fmt.Errorf("different URLs: %s and %s", a.URL, b.URL)
	case a.KeepAlive != b.KeepAlive:
		return errors.New("keep-alive in one run and not in the other")
	case a.Pipeline != b.Pipeline:
		return fmt.Errorf("different pipeline depths: %d and %d", a.Pipeline, b.Pipeline)
	case a.PerConn != b.PerConn:
		return fmt.Errorf("different requests per connection: %d and %d", a.PerConn, b.PerConn)
	case (a.Rate > 0) != (b.Rate > 0):
		return errors.New("one run at a set rate (open loop) and one closed loop")
	case a.AnyLength != b.AnyLength:
		return errors.New("variable document length (-l) in one run and not in the other")
	case !a.AnyLength && a.Complete > 0 && b.Complete > 0 && a.DocumentLength != b.DocumentLength:
		return fmt.Errorf("different document lengths: %d and %d bytes", a.DocumentLength, b.DocumentLength)
	case a.Start.Equal(b.Start) && a.Elapsed == b.Elapsed && a.Complete == b.Complete:
		return errors.New("the same run twice")
	case a.Start.Add(a.Elapsed).Before(b.Start) || b.Start.Add(b.Elapsed).Before(a.Start):
		return fmt.Errorf("the runs did not overlap in time: %s to %s and %s to %s; an old log, or the hosts' clocks are not in sync",
			utcMilli(a.Start), utcMilli(a.Start.Add(a.Elapsed)), utcMilli(b.Start), utcMilli(b.Start.Add(b.Elapsed)))
	}
	return nil
}

// Merge returns the sum of runs made together against one server, as from
// several hosts, and an error when two are not Mergeable. Counts, bytes,
// connections, requests asked for and rates are summed exactly; the
// histograms are added bucket by bucket, so every percentile is that of one
// histogram holding every run's requests. The merged run starts at the
// earliest start and ends at the latest end (start plus time taken), by
// each host's clock: its Elapsed is that span, so its requests per second
// are all complete requests over the span, and its Concurrency is the runs'
// connections in all.
func Merge(runs []*Result) (*Result, error) {
	if len(runs) == 0 {
		return nil, errors.New("no runs to merge")
	}
	for i, a := range runs {
		for j, b := range runs[i+1:] {
			if err := Mergeable(a, b); err != nil {
				return nil, fmt.Errorf("runs %d and %d: %w", i+1, i+j+2, err)
			}
		}
	}
	first := runs[0]
	m := &Result{
		URL:        first.URL,
		Host:       first.Host,
		Port:       first.Port,
		Path:       first.Path,
		AnyLength:  first.AnyLength,
		KeepAlive:  first.KeepAlive,
		Pipeline:   first.Pipeline,
		PerConn:    first.PerConn,
		Engine:     first.Engine,
		Start:      first.Start,
		Status:     map[int]int64{},
		Latency:    hdrhistogram.New(histMin, histMax, histSig),
		Connect:    hdrhistogram.New(histMin, histMax, histSig),
		Processing: hdrhistogram.New(histMin, histMax, histSig),
		Waiting:    hdrhistogram.New(histMin, histMax, histSig),
	}
	// The send lateness is merged only if every run has it: a share of
	// the requests would tell the lateness of some hosts as all of it.
	if !slices.ContainsFunc(runs, func(r *Result) bool { return r.SendLateness == nil }) {
		m.SendLateness = newHist()
	}
	var end time.Time
	for _, r := range runs {
		if m.ServerSoftware == "" {
			m.ServerSoftware = r.ServerSoftware
		}
		if m.DocumentLength == 0 && r.Complete > 0 {
			m.DocumentLength = r.DocumentLength
		}
		if r.Engine != m.Engine {
			m.Engine = EngineURing + "+" + EngineEpoll
		}
		if m.Aborted == nil {
			m.Aborted = r.Aborted
		}
		if r.Start.Before(m.Start) {
			m.Start = r.Start
		}
		if e := r.Start.Add(r.Elapsed); e.After(end) {
			end = e
		}
		m.Concurrency += r.Concurrency
		m.Rate += r.Rate
		m.Requests += r.Requests
		m.Complete += r.Complete
		m.Failures.add(&r.Failures)
		m.Non2xx += r.Non2xx
		m.KeepAliveRequests += r.KeepAliveRequests
		m.Connections += r.Connections
		m.Handshakes += r.Handshakes
		m.Resumed += r.Resumed
		m.EarlyData += r.EarlyData
		if m.TLS == "" {
			m.TLS = r.TLS
		}
		m.TotalBytes += r.TotalBytes
		m.HTMLBytes += r.HTMLBytes
		for code, n := range r.Status {
			m.Status[code] += n
		}
		for _, x := range [][2]*hdrhistogram.Histogram{
			{m.Latency, r.Latency}, {m.Connect, r.Connect}, {m.Processing, r.Processing}, {m.Waiting, r.Waiting},
			{m.SendLateness, r.SendLateness},
		} {
			if x[0] == nil {
				continue
			}
			if dropped := x[0].Merge(x[1]); dropped != 0 {
				return nil, fmt.Errorf("%d values out of loadgen's histogram range", dropped)
			}
		}
	}
	m.Failed = m.Failures.total()
	m.Elapsed = end.Sub(m.Start)
	return m, nil
}

// utcMilli is t for messages, in UTC to the millisecond.
func utcMilli(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
