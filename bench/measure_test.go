package bench

import "testing"

func TestMedian(t *testing.T) {
	rps := func(r Result) float64 { return r.ReqPerSec }
	rs := func(v ...float64) []Result {
		out := make([]Result, len(v))
		for i, x := range v {
			out[i].ReqPerSec = x
		}
		return out
	}
	for _, tc := range []struct {
		in   []Result
		want float64
	}{
		{rs(), 0},
		{rs(5), 5},
		{rs(9, 1, 5), 5},
		{rs(4, 1, 3, 2), 2.5},
	} {
		if got := Median(tc.in, rps); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
