package report

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tlsParsed is the report of testdata/tls.txt beside the ceilings of
// testdata/ceilings.txt, as make bench-tls after make bench leaves them.
func tlsParsed(t *testing.T) Report {
	t.Helper()
	rep, err := Read(map[string]string{"ceilings": "testdata/ceilings.txt", "tls": "testdata/tls.txt"})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func findTLS(t *testing.T, rep Report, server, mode string) TLSRow {
	t.Helper()
	for _, r := range rep.TLS {
		if r.Server == server && r.Mode == mode {
			return r
		}
	}
	t.Fatalf("no TLS row %s %s in %d rows", server, mode, len(rep.TLS))
	return TLSRow{}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestTLSRows(t *testing.T) {
	rep := tlsParsed(t)
	if _, ok := rep.Sections["tls"]; !ok {
		t.Fatal("no tls section")
	}
	ka := findTLS(t, rep, "nethttp", "tls-keepalive")
	if ka.Client != "wrk" || ka.Key != "ecdsa" {
		t.Errorf("keep-alive over TLS: client %q key %q, want wrk ecdsa", ka.Client, ka.Key)
	}
	if ka.CPUVsNginx == nil || !near(ka.CPUVsNginx.Median, 2) {
		t.Errorf("keep-alive over TLS vs nginx: %+v, want 2 (paired with the reference rounds)", ka.CPUVsNginx)
	}
	// The plaintext keep-alive ceiling of testdata/ceilings.txt: 25 µs.
	if !near(ka.VsPlain, 30.0/25) || ka.Handshake != 0 {
		t.Errorf("vs plaintext %v, handshake %v: want %v and none", ka.VsPlain, ka.Handshake, 30.0/25)
	}
	// Run apart, the two make no ratio: a page tells one run.
	dir := t.TempDir()
	b, err := os.ReadFile("testdata/tls.txt")
	if err != nil {
		t.Fatal(err)
	}
	apart := filepath.Join(dir, "tls.txt")
	os.WriteFile(apart, []byte(strings.Replace(string(b), InvocationPrefix+"2026-12-01 09:59 UTC", InvocationPrefix+"2026-12-02 09:59 UTC", 1)), 0o644)
	other, err := Read(map[string]string{"ceilings": "testdata/ceilings.txt", "tls": apart})
	if err != nil {
		t.Fatal(err)
	}
	if r := findTLS(t, other, "nethttp", "tls-keepalive"); r.VsPlain != 0 {
		t.Errorf("vs plaintext %v across two invocations, want none", r.VsPlain)
	}
	aa := findTLS(t, rep, "nginx/aa", "tls-keepalive")
	if aa.CPUVsNginx == nil || !near(aa.CPUVsNginx.Median, 1.01) {
		t.Errorf("A/A over TLS: %+v, want 1.01", aa.CPUVsNginx)
	}
	h2 := findTLS(t, rep, "nethttp", "h2-16")
	if h2.Client != "h2load" {
		t.Errorf("h2-16's client %q, want h2load", h2.Client)
	}
	full := findTLS(t, rep, "nethttp", "tls-full")
	if full.Label != NeverSaturated+" (client-bound)" || full.Implied.N != 0 || full.VsPlain != 0 {
		t.Errorf("an unsaturated full handshake row: label %q, ceiling %v, vs plaintext %v; want client-bound, none, none", full.Label, full.Implied, full.VsPlain)
	}
	// Report order: the modes' order, then the servers'.
	if rep.TLS[0].Mode != "tls-keepalive" || rep.TLS[len(rep.TLS)-1].Mode != "h2-16" {
		t.Errorf("order: first %s, last %s", rep.TLS[0].Mode, rep.TLS[len(rep.TLS)-1].Mode)
	}
}

func TestPlainMode(t *testing.T) {
	for m, want := range map[string]string{"tls-keepalive": "keepalive", "tls-pipeline": "pipeline", "tls-resumed": "close",
		"tls-full": "close", "tls-full-rsa": "close", "h2-16": "keepalive", "h2c-1": "keepalive", "tls12-keepalive": "keepalive", "tls12-full": "close"} {
		if got := PlainMode(m); got != want {
			t.Errorf("PlainMode(%s) = %s, want %s", m, got, want)
		}
	}
}

// TestTLSClient checks that a row names the client its runs reported
// (client-h2load, client-loadgen), and the mode's own where they reported
// none.
func TestTLSClient(t *testing.T) {
	rep := tlsParsed(t)
	if c := findTLS(t, rep, "nethttp", "tls-pipeline").Client; c != "h2load" {
		t.Errorf("pipelined over TLS, reported on h2load: client %q", c)
	}
	if c := findTLS(t, rep, "nethttp", "tls-full").Client; c != "wrk" {
		t.Errorf("full handshakes: client %q, want wrk", c)
	}
	if c := findTLS(t, rep, "nethttp", "tls-resumed").Client; c != "loadgen" {
		t.Errorf("resumed handshakes, reported on loadgen: client %q", c)
	}
}

// TestTLSKeepAliveFile checks that make bench-tls's keep-alive blocks, in
// a file of their own, replace the keep-alive rows of a tls.txt that has
// them, and leave its other modes alone.
func TestTLSKeepAliveFile(t *testing.T) {
	rep, err := Read(map[string]string{"ceilings": "testdata/ceilings.txt", "tls": "testdata/tls.txt", "tls-keepalive": "testdata/tls-keepalive.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if s := rep.Sections["tls-keepalive"]; s.Rounds != 3 || s.Date != "2026-12-02 09:00 UTC" || s.Kept != 4 || s.Most != 3 {
		t.Errorf("keep-alive section: %d blocks on %q, until %d kept or %d blocks; want 3, 2026-12-02 09:00 UTC, 4, 3", s.Rounds, s.Date, s.Kept, s.Most)
	}
	ka := findTLS(t, rep, "nethttp", "tls-keepalive")
	// Blocks 15/10, 19.2/12 and 16.5/11: ratios 1.5, 1.6 and 1.5.
	if ka.CPU.N != 3 || ka.CPUVsNginx == nil || ka.CPUVsNginx.N != 3 || !near(ka.CPUVsNginx.Median, 1.5) || ka.Client != "loadgen" {
		t.Errorf("keep-alive over TLS: %d blocks, vs nginx %+v, client %s; want the keep-alive file's 3 blocks, 1.5, loadgen", ka.CPU.N, ka.CPUVsNginx, ka.Client)
	}
	if aa := findTLS(t, rep, "nginx/aa", "tls-keepalive"); aa.CPUVsNginx == nil || !near(aa.CPUVsNginx.Median, 1.01) || aa.CPUVsNginx.N != 3 {
		t.Errorf("A/A over TLS: %+v, want 1.01 over 3 blocks", aa.CPUVsNginx)
	}
	if h2 := findTLS(t, rep, "nethttp", "h2-16"); h2.CPU.N != 3 || !near(h2.CPU.Median, 41) {
		t.Errorf("h2-16 from tls.txt: %d blocks, median %v; want 3, 41", h2.CPU.N, h2.CPU.Median)
	}
}

// TestShort checks which rows the keep-alive stopping rule runs again:
// those with a ratio to nginx on fewer kept blocks than asked, not the
// reference itself, nor a row never saturated.
func TestShort(t *testing.T) {
	rep := tlsParsed(t)
	var names []string
	for _, r := range Short(rep.TLS, "tls-keepalive", 4) {
		names = append(names, fmt.Sprintf("%s %d", r.Server, r.Kept()))
	}
	if got := strings.Join(names, ", "); got != "nethttp 3, nginx/aa 3" {
		t.Errorf("short of 4 kept: %q, want nethttp 3, nginx/aa 3", got)
	}
	if s := Short(rep.TLS, "tls-keepalive", 3); len(s) != 0 {
		t.Errorf("short of 3 kept: %d rows, want none", len(s))
	}
	// nethttp's full handshakes were client-bound in every block.
	for _, r := range Short(rep.TLS, "tls-full", 100) {
		if r.Server == "nethttp" {
			t.Errorf("a row never saturated is short: %+v", r.Kept())
		}
	}
}

// TestTLSHandshakeFile checks that make bench-tls's handshake blocks
// replace, of tls.txt, just the rows they hold (nethttp's full
// handshakes, client-bound there), judged by their own run's host level,
// and leave the rest (nethttp's resumed handshakes) alone.
func TestTLSHandshakeFile(t *testing.T) {
	rep, err := Read(map[string]string{"ceilings": "testdata/ceilings.txt", "tls": "testdata/tls.txt", "tls-handshake": "testdata/tls-handshake.txt"})
	if err != nil {
		t.Fatal(err)
	}
	full := findTLS(t, rep, "nethttp", "tls-full")
	if full.Label != "" || full.CPU.N != 4 || !near(full.CPU.Median, 150.5) || full.Client != "loadgen" {
		t.Errorf("nethttp's full handshakes: label %q, %d blocks, median %v, client %s; want the handshake file's 4 saturated blocks, 150.5, loadgen", full.Label, full.CPU.N, full.CPU.Median, full.Client)
	}
	if full.CPUVsNginx == nil || full.CPUVsNginx.N != 4 || full.Kept() != 4 {
		t.Errorf("nethttp's full handshakes vs nginx: %+v, kept %d; want 4 blocks", full.CPUVsNginx, full.Kept())
	}
	if ng := findTLS(t, rep, "nginx", "tls-full"); ng.Kept() != 4 || len(Short(rep.TLS, "tls-full", 5)) != 2 {
		t.Errorf("nginx's full handshakes kept %d, short of 5: %d rows; want 4, nethttp's and nginx's", ng.Kept(), len(Short(rep.TLS, "tls-full", 5)))
	}
	if r := findTLS(t, rep, "nethttp", "tls-resumed"); r.CPU.N != 3 {
		t.Errorf("nethttp's resumed handshakes from tls.txt: %d blocks, want 3", r.CPU.N)
	}
	if s := rep.Sections["tls-handshake"]; s.Kept != 4 || s.Most != 4 {
		t.Errorf("handshake section: until %d kept or %d blocks", s.Kept, s.Most)
	}
}
