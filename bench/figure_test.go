package bench

import (
	"encoding/json"
	"math"
	"slices"
	"testing"
)

// TestMedianInterval checks the order-statistic interval on fixed data
// against hand-computed binomial answers.
func TestMedianInterval(t *testing.T) {
	for _, c := range []struct {
		n     int
		k     int
		level float64
	}{
		{5, 1, 1 - 2.0/32},             // too few for 95 %: the range, at 93.75 %
		{6, 1, 1 - 2.0/64},             // the range reaches 96.9 %
		{10, 2, 1 - 2*11/1024.0},       // P(B ≤ 1) = 11/1024
		{20, 6, 1 - 2*21700/1048576.0}, // P(B ≤ 5) = 21700/2^20
	} {
		k, level := medianRank(c.n, 0.95)
		if k != c.k || math.Abs(level-c.level) > 1e-12 {
			t.Errorf("medianRank(%d) = %d, %.6f; want %d, %.6f", c.n, k, level, c.k, c.level)
		}
	}
	// 1..10 shuffled: the median 5.5, the interval the 2nd and 9th values.
	s := SpreadOf([]float64{7, 2, 9, 4, 10, 1, 6, 3, 8, 5})
	if s.Median != 5.5 || s.Lo != 2 || s.Hi != 9 || s.Min != 1 || s.Max != 10 || s.N != 10 {
		t.Errorf("SpreadOf(1..10) = %+v", s)
	}
	f := FigureOf([]float64{0.97, 0.99, 1.01, 1.02, 0.98, 1.00, 1.03, 0.96, 1.04, 0.95})
	if !f.Straddles(1) {
		t.Errorf("%+v does not straddle 1", f.Spread)
	}
	if hw := f.HalfWidth(); math.Abs(hw-0.035/0.995) > 1e-9 {
		t.Errorf("HalfWidth = %v", hw)
	}
	g := FigureOf([]float64{1.10, 1.12, 1.08, 1.11, 0.99, 1.09, 1.13, 1.10, 1.07, 1.12})
	if g.Straddles(1) || g.Lo != 1.07 {
		t.Errorf("%+v: one low block must not make a tie", g.Spread)
	}
}

// TestOrder checks the Williams design: every row is a permutation, every
// target takes every position once, and every target follows every other
// exactly once over a cycle (twice for an odd count, counting the mirror).
func TestOrder(t *testing.T) {
	for _, n := range []int{2, 4, 5, 10} {
		rows := n
		if n%2 == 1 {
			rows = 2 * n
		}
		follows := map[[2]int]int{}
		at := map[[2]int]int{}
		for k := range rows {
			o := Order(n, k)
			s := slices.Sorted(slices.Values(o))
			for i := range n {
				if s[i] != i {
					t.Fatalf("Order(%d, %d) = %v: not a permutation", n, k, o)
				}
				at[[2]int{o[i], i}]++
				if i > 0 {
					follows[[2]int{o[i-1], o[i]}]++
				}
			}
			if !slices.Equal(Order(n, k+rows), o) {
				t.Errorf("Order(%d, %d) does not repeat after %d blocks", n, k, rows)
			}
		}
		want := rows / n
		for a := range n {
			for b := range n {
				if a != b && follows[[2]int{a, b}] != want {
					t.Errorf("n=%d: %d follows %d %d times, want %d", n, b, a, follows[[2]int{a, b}], want)
				}
				if at[[2]int{a, b}] != want {
					t.Errorf("n=%d: %d at position %d %d times, want %d", n, a, b, at[[2]int{a, b}], want)
				}
			}
		}
	}
}

// A round that does not count (NaN) leaves its pair out of a ratio.
func TestRatioSkipsNaN(t *testing.T) {
	a := Figure{Rounds: []float64{2, math.NaN(), 6, 8}}
	b := Figure{Rounds: []float64{1, 1, math.NaN(), 4}}
	r := Ratio(a, b)
	if r.N != 2 || !slices.Equal(r.Rounds, []float64{2, 2}) {
		t.Errorf("Ratio = %v over %d rounds; want [2 2]", r.Rounds, r.N)
	}
}

// TestFigureFromOldFile: a figure saved before intervals were recorded
// reads back with its interval computed from its rounds.
func TestFigureFromOldFile(t *testing.T) {
	var f Figure
	if err := json.Unmarshal([]byte(`{"median": 3, "min": 1, "max": 5, "n": 5, "rounds": [5, 1, 3, 2, 4]}`), &f); err != nil {
		t.Fatal(err)
	}
	if f.Lo != 1 || f.Hi != 5 || f.Median != 3 || f.Level == 0 {
		t.Errorf("read %+v, want the range 1–5 around 3 at its level", f.Spread)
	}
	var g Figure
	if err := json.Unmarshal([]byte(`{"median": 3, "min": 1, "max": 5, "n": 5, "ci_lo": 2, "ci_hi": 4, "ci_level": 0.9, "rounds": [5, 1, 3, 2, 4]}`), &g); err != nil {
		t.Fatal(err)
	}
	if g.Lo != 2 || g.Hi != 4 {
		t.Errorf("a recorded interval was replaced: %+v", g.Spread)
	}
}
