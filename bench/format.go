package bench

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The figures as text, one way for every table: the report's, compare's
// and make compare WHAT=clients'.

// Num formats v with prec decimals, grouping thousands with a thin space
// from 10 000 up.
func Num(v float64, prec int) string {
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if math.Abs(v) < 10000 {
		return s
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteString("\u2009")
		}
		b.WriteRune(r)
	}
	if frac != "" {
		b.WriteString("." + frac)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// FormatFigure formats a figure as its median and, over several rounds,
// its interval: "9.10 (8.95–9.40)", the 95 % confidence interval of the
// median from 6 rounds up, the range below. A figure never measured is
// "–".
func FormatFigure(f Figure, prec int) string {
	switch f.N {
	case 0:
		return "–"
	case 1:
		return Num(f.Median, prec)
	}
	return fmt.Sprintf("%s (%s–%s)", Num(f.Median, prec), Num(f.Lo, prec), Num(f.Hi, prec))
}

// FormatMedian formats a figure's median alone.
func FormatMedian(f Figure, prec int) string {
	if f.N == 0 {
		return "–"
	}
	return Num(f.Median, prec)
}

// FormatRatio formats a ratio taken round by round: its median and
// interval, marked when the interval is a range (FewBlocks), and ", tie"
// when the interval contains 1.
func FormatRatio(f *Figure) string {
	if f == nil || f.N == 0 {
		return "–"
	}
	s := FormatFigure(*f, 2) + FewBlocks(*f)
	if f.N > 1 && f.Straddles(1) {
		s += ", tie"
	}
	return s
}

// FewBlocks marks a ratio paired over fewer blocks than a 95 % interval
// needs (the others unsaturated): its parentheses are then the range.
func FewBlocks(f Figure) string {
	if f.N > 1 && f.N < 6 {
		return fmt.Sprintf(" [range of %d]", f.N)
	}
	return ""
}

// Labels of a run whose server core was under Saturated busy.
const (
	LatencyBound = "latency-bound" // one connection: bound by round trips
	ClientBound  = "client-bound"  // the client's core was saturated
	Unsaturated  = "unsaturated"   // neither: the reason is unknown
)

// Label names what bounded a run of conns connections whose server core
// was busy% busy and the client's clientBusy%: nothing when the server's
// core was saturated.
func Label(conns int, busy, clientBusy float64) string {
	switch {
	case busy >= Saturated:
		return ""
	case conns == 1:
		return LatencyBound
	case clientBusy >= Saturated:
		return ClientBound
	default:
		return Unsaturated
	}
}
