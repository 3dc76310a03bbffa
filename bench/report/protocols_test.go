package report

import "testing"

// TestProtocolsMax checks the closed-loop rows: a ceiling over the blocks
// in which the server's core was saturated, with its ratio to HTTP/2's
// row, and a row never saturated labelled client-bound, with no ratio.
func TestProtocolsMax(t *testing.T) {
	row := func(cpu, held []float64) Samples {
		return Samples{"cpu-us/req": cpu, "held": held, "req/s": {9e4, 9e4, 9e4}, "cpu-%": {95, 95, 95}}
	}
	all := map[string]Samples{
		protocolsPrefix + "h2-1/max":   row([]float64{20, 21, 22}, []float64{1, 1, 1}),
		protocolsPrefix + "h1-tls/max": row([]float64{10, 99, 11}, []float64{1, 0, 1}),
		protocolsPrefix + "h3-1/max":   row([]float64{40, 41, 42}, []float64{0, 0, 0}),
	}
	ps := buildProtocols(all, nil)
	if len(ps) != 3 {
		t.Fatalf("%d rows, want 3", len(ps))
	}
	by := map[string]ProtoPoint{}
	for _, p := range ps {
		by[p.Server] = p
	}
	h1 := by["h1-tls"]
	// Blocks 1 and 3 saturated: 10/20 and 11/22.
	if h1.Label != "" || h1.CPU.N != 2 || h1.VsBase == nil || h1.VsBase.N != 2 || !near(h1.VsBase.Median, 0.5) {
		t.Errorf("h1-tls: label %q, %d blocks, vs HTTP/2 %+v; want a ceiling over 2 blocks, 0.5", h1.Label, h1.CPU.N, h1.VsBase)
	}
	if h3 := by["h3-1"]; h3.Label != NeverSaturatedMax || h3.VsBase != nil && h3.VsBase.N > 0 {
		t.Errorf("h3-1: label %q, vs HTTP/2 %+v; want %q and no ratio", h3.Label, h3.VsBase, NeverSaturatedMax)
	}
}
