package bench

import (
	"errors"
	"flag"
	"testing"
)

// flagRef turns the reference rounds of BenchmarkCeiling on or off.
var flagRef = flag.Bool("ref", true, "measure a reference nginx right before and after each ceiling run (with -for): each target's ratio to nginx is taken against the rounds beside it")

// RefName is the reference nginx of the ceilings, kept running through a
// mode and measured between the targets.
const RefName = "nginx/ref"

// A reference is an nginx kept running through one mode of a ceiling block
// and measured right before and after each target. The host's speed drifts
// over seconds (two nginx rounds next to each other agree far more closely
// than two rounds ten targets apart), so a target is compared with the
// reference rounds beside it, not with one nginx round somewhere else in
// the block.
type reference struct {
	s      *Server
	client Client
	load   Load
	last   float64 // the latest round's CPU µs per request; 0 when it was not saturated
	ran    bool
}

// startReference starts and warms the reference for loads like l, or
// returns nil (no reference rounds) when -ref is off, when runs are counts
// of requests rather than -for durations, or when nginx is not installed.
func startReference(b *testing.B, cfg Config, client Client, l Load) *reference {
	if !*flagRef || *flagFor <= 0 {
		return nil
	}
	s, err := cfg.Start("nginx", "")
	if errors.Is(err, ErrMissing) {
		b.Logf("no reference rounds: %v", err)
		return nil
	}
	if err != nil {
		b.Fatalf("reference: %v", err)
	}
	b.Cleanup(func() {
		if err := s.Stop(); err != nil {
			b.Error(err)
		}
	})
	s.Name = RefName
	l.URL = l.Mode.URL(s)
	if err := warmed(client, l); err != nil {
		b.Fatalf("reference warm-up: %v", err)
	}
	l.Requests, l.Duration = 0, *flagFor
	return &reference{s: s, client: client, load: l}
}

// round measures the reference once, raising its load as a ceiling's, and
// returns its CPU µs per request, or 0 when it was not saturated; at a
// fixed rate (BenchmarkAtLoad's), 0 when it did not hold the rate.
func (r *reference) round(b *testing.B) float64 {
	if r.load.Rate > 0 {
		h, err := heldAt(r.s, r.client, r.load)
		if err != nil {
			b.Fatalf("reference round: %v", err)
		}
		r.ran, r.last = true, 0
		if h.Held {
			r.last = h.CPU
		} else {
			b.Logf("reference round did not hold %.0f req/s (%.0f): left out", r.load.Rate, h.Stats.ReqPerSec)
		}
		return r.last
	}
	c, err := Saturate(r.s, r.client, r.load)
	if err != nil {
		b.Fatalf("reference round: %v", err)
	}
	r.ran = true
	r.last = 0
	if c.Saturated {
		r.last = c.CPUPerRequest()
	} else {
		b.Logf("reference round not saturated (%.1f %% busy): left out", c.Busy())
	}
	return r.last
}

// before returns the round just before a target: the previous target's
// after, or a fresh round for the first target of the mode.
func (r *reference) before(b *testing.B) float64 {
	if r == nil {
		return 0
	}
	if !r.ran {
		return r.round(b)
	}
	return r.last
}

// after measures the round just after a target and reports, as
// ref-us/req, the mean of the saturated rounds beside it (0: none was),
// and as ref-drift the round after over the round before (0: one was not
// saturated): far from 1, the host changed speed while the target ran.
func (r *reference) after(b *testing.B, before float64) {
	if r == nil {
		return
	}
	after := r.round(b)
	sum, n := 0.0, 0
	for _, x := range []float64{before, after} {
		if x > 0 {
			sum, n = sum+x, n+1
		}
	}
	ref := 0.0
	if n > 0 {
		ref = sum / float64(n)
	}
	b.ReportMetric(ref, "ref-us/req")
	drift := 0.0
	if before > 0 && after > 0 {
		drift = after / before
	}
	b.ReportMetric(drift, "ref-drift")
}
