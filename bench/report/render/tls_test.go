package render

import (
	"strings"
	"testing"

	"hellobench/bench/report"
)

// TestTLSCosts renders the TLS fixture beside the ceilings' and checks
// each mode's table, its client, the columns against plaintext and the
// client-bound row.
func TestTLSCosts(t *testing.T) {
	rep, err := report.Read(map[string]string{"ceilings": "../testdata/ceilings.txt", "tls": "../testdata/tls.txt"})
	if err != nil {
		t.Fatal(err)
	}
	got := TLSCosts(rep)
	for _, want := range []string{
		"Keep-alive over TLS 1.3, 50 connections:",
		"HTTP/2 over TLS 1.3, 16 concurrent streams per connection:",
		"| nethttp | h2load | 41.00",
		"| nethttp | h2load | 30.10",
		"| nethttp | wrk | 30.00 (28.00–32.00) | 2.00 (2.00–2.00) [range of 3] | 1.20 | – |",
		"| nginx/aa |",
		"never saturated: no ceiling (client-bound)",
		"Not measured, having no TLS (the target table): gnet, uring, nbio.",
		"_`make bench-tls`, 2026-12-02 10:00 UTC, 3 blocks, on Test CPU",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
	if TLSCosts(report.Report{}) != "" {
		t.Error("a report without TLS rows renders a TLS section")
	}
}

// TestTLSKeptNote checks what the keep-alive section says of its stopping
// rule: the blocks run, each row's blocks kept, the rows the cap left
// short (testdata's rule asks 4 kept, at most 3 blocks).
func TestTLSKeptNote(t *testing.T) {
	rep, err := report.Read(map[string]string{"tls": "../testdata/tls.txt", "tls-keepalive": "../testdata/tls-keepalive.txt"})
	if err != nil {
		t.Fatal(err)
	}
	got := TLSCosts(rep)
	for _, want := range []string{
		"2026-12-02 09:00 UTC, 3 whole blocks of all its rows, then 0 blocks of only the rows that had kept fewer than 4 (at most 3 blocks in all), on Test CPU",
		"Blocks kept: nethttp 3 of 3, nginx/aa 3 of 3.",
		"Short of 4 when the cap stopped the run: nethttp (3), nginx/aa (3).",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
}
