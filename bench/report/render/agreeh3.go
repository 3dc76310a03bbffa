package render

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"hellobench/bench"
	"hellobench/bench/report"
)

// AgreeH3 sets make bench-tls PART=h3's figures from separate invocations
// side by side: each protocol's ratio to HTTP/2 at each fixed rate, the
// CPU per new connection, and the memory per idle connection, with each
// interval's half-width, and says which rows every invocation resolved as
// make bench-tls aims (tls.go: a ratio within tlsTarget, HTTP/2's A/A
// within aaTarget, a connection's CPU within handshakeTarget).
func AgreeH3(dirs []string) (string, error) {
	reps, b, err := agreeIntro(dirs, "HTTP/3 repeated: separate invocations of make bench-tls PART=h3", "agree-h3",
		report.ProtocolsSection, "block", "make bench-tls PART=h3 rows", func(r report.Report) bool { return len(r.Protocols) > 0 })
	if err != nil {
		return "", err
	}
	if len(reps) < 2 {
		return b.String(), nil
	}
	fmt.Fprintf(b, "\nEach cell is %s and its half-width over the median; the last column is the invocations' medians' spread, half their range over their median.\n",
		interval(reps[0].Sections[report.ProtocolsSection].Rounds))
	v := &h3Verdict{reps: reps}
	agreeH3Rates(b, v)
	agreeH3Handshakes(b, v)
	agreeH3Idle(b, reps)
	fmt.Fprintf(b, "\nResolved as aimed (a ratio ±%.0f %%, HTTP/2's A/A ±%.0f %%, a connection's CPU ±%.0f %%) in every invocation: %s. Not: %s.\n",
		100*tlsTarget, 100*aaTarget, 100*handshakeTarget, listOrNone(v.met), listOrNone(v.unmet))
	return b.String(), nil
}

// An h3Verdict sorts the rows the invocations measured by whether every
// one of them resolved the row as aimed.
type h3Verdict struct {
	reps       []report.Report
	met, unmet []string
}

// judge files a row some invocation measured (has) under met where every
// invocation resolved it within target over lineBlocks blocks or more,
// else under unmet: a rate not held, or held in too few blocks (whose
// interval is merely their range), is not resolved.
func (v *h3Verdict) judge(name string, target float64, has func(report.Report) bool, get func(report.Report) *report.Figure) {
	if !slices.ContainsFunc(v.reps, has) {
		return
	}
	for _, r := range v.reps {
		if f := get(r); f == nil || f.N < lineBlocks || f.HalfWidth() > target {
			v.unmet = append(v.unmet, name)
			return
		}
	}
	v.met = append(v.met, name)
}

// agreeH3Rates is each keep-alive row's ratio to its HTTP/2 row at each
// fixed rate; HTTP/1.1's is shown but aimed at by no target.
func agreeH3Rates(b *strings.Builder, v *h3Verdict) {
	b.WriteString("\n## CPU per request as a ratio to HTTP/2 with as many streams, at fixed rates\n\n")
	b.WriteString(agreeHead(len(v.reps), "medians' spread"))
	targets := map[string]float64{"h2-1" + bench.TwinSuffix: aaTarget, "h3-1": tlsTarget, "h3-16": tlsTarget}
	for _, rate := range protoRates(v.reps[0]) {
		for _, row := range []string{"h1-tls", "h2-1" + bench.TwinSuffix, "h3-1", "h3-16"} {
			name := fmt.Sprintf("%s at %s req/s", protoTitle(row), num(float64(report.ProtoRate(rate)), 0))
			has := func(r report.Report) bool { _, ok := findProto(r, row, rate); return ok }
			get := func(r report.Report) *report.Figure {
				if p, ok := findProto(r, row, rate); ok && p.Label == "" {
					return p.VsBase
				}
				return nil
			}
			agreeRow(b, name, len(v.reps), figText(v.reps, get, 2), nil)
			if target, ok := targets[row]; ok {
				v.judge(name, target, has, get)
			}
		}
	}
}

// agreeH3Handshakes is the server's CPU per new connection in each
// handshake row.
func agreeH3Handshakes(b *strings.Builder, v *h3Verdict) {
	b.WriteString("\n## Server CPU per new connection, µs\n\n")
	b.WriteString(agreeHead(len(v.reps), "medians' spread"))
	for _, h := range handshakeRows {
		has := func(r report.Report) bool { _, ok := findHandshake(r, h.row); return ok }
		get := func(r report.Report) *report.Figure {
			if p, ok := findHandshake(r, h.row); ok && p.Label == "" {
				return &p.CPU
			}
			return nil
		}
		agreeRow(b, h.title, len(v.reps), figText(v.reps, get, 1), nil)
		v.judge(h.title, handshakeTarget, has, get)
	}
}

// agreeH3Idle is the server's memory per idle connection in each
// protocol, in KiB as the idle tables count them.
func agreeH3Idle(b *strings.Builder, reps []report.Report) {
	b.WriteString("\n## Server memory per idle connection, KiB\n\n")
	b.WriteString(agreeHead(len(reps), "medians' spread"))
	for _, p := range reps[0].ProtoIdle {
		get := func(r report.Report) *report.Figure {
			for _, q := range r.ProtoIdle {
				if q.Server == p.Server && q.Conns == p.Conns {
					kb := scale(q.PerConn, 1.0/1024)
					return &kb
				}
			}
			return nil
		}
		agreeRow(b, cmp.Or(idleTitles[p.Server], p.Server), len(reps), figText(reps, get, 1), nil)
	}
}

// figText adapts get to agreeRow: report i's figure and its text.
func figText(reps []report.Report, get func(report.Report) *report.Figure, prec int) func(int) (*report.Figure, string) {
	return func(i int) (*report.Figure, string) {
		f := get(reps[i])
		if f == nil {
			return nil, ""
		}
		return f, bench.FormatFigure(*f, prec)
	}
}

// protoTitle is a keep-alive row's title, HTTP/2's twin named as such;
// the row itself where it has none.
func protoTitle(row string) string {
	if r, ok := strings.CutSuffix(row, bench.TwinSuffix); ok {
		return protoTitle(r) + ", A/A twin"
	}
	for _, t := range protoTitles {
		if t.row == row {
			return t.title
		}
	}
	return row
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, "; ")
}
