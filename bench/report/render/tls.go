package render

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"hellobench/bench/report"
	"hellobench/internal/targets"
)

// tlsTitles say what each TLS mode measures and on what client.
var tlsTitles = map[string]string{
	"tls-keepalive":   "Keep-alive over TLS 1.3, 50 connections",
	"tls-pipeline":    "Pipelined over TLS 1.3, 16 requests in flight on each of 50 connections",
	"tls-resumed":     "A new connection per request, each resuming the session by its ticket (TLS 1.3, PSK with ECDHE)",
	"tls-full":        "A new connection per request, each a full TLS 1.3 handshake (the servers issue no tickets), ECDSA P-256 certificate",
	"tls-full-rsa":    "A new connection per request, each a full TLS 1.3 handshake (the servers issue no tickets), RSA-2048 certificate",
	"tls12-keepalive": "Keep-alive over TLS 1.2 with ECDHE-ECDSA-AES128-GCM-SHA256",
	"tls12-full":      "A new connection per request, each a full TLS 1.2 handshake with ECDHE-ECDSA-AES128-GCM-SHA256 (the servers issue no tickets), ECDSA P-256 certificate",
	"h2-1":            "HTTP/2 over TLS 1.3, 1 stream per connection",
	"h2-16":           "HTTP/2 over TLS 1.3, 16 concurrent streams per connection",
	"h2c-1":           "HTTP/2 in cleartext (prior knowledge), 1 stream per connection; the reference is nginx's HTTP/2 over TLS (nginx serves no h2c)",
	"h2c-16":          "HTTP/2 in cleartext, 16 concurrent streams per connection; the reference is nginx's HTTP/2 over TLS",
}

// Targets of make bench-tls's issue: how closely a row's figures must be
// resolved for the run to answer it.
const (
	tlsTarget       = 0.05 // a keep-alive row's ratio to nginx over TLS
	aaTarget        = 0.03 // nginx/aa's ratio to the reference
	handshakeTarget = 0.10 // the CPU per request of a handshake per request
)

// TLSCosts is COSTS.md's section "What TLS and HTTP/2 cost" and REPORT.md's
// part of the same name: a table per mode of make bench-tls, each row's
// client, and which rows fall short of the resolution the bench aims at.
// Empty without TLS rows.
func TLSCosts(rep report.Report) string {
	if len(rep.TLS) == 0 {
		return ""
	}
	var b strings.Builder
	mode := ""
	for _, r := range rep.TLS {
		if r.Mode != mode {
			if mode != "" {
				b.WriteString("\n")
			}
			mode = r.Mode
			fmt.Fprintf(&b, "%s:\n\n", title(mode))
			b.WriteString("| server | client | server CPU µs/request | vs nginx over TLS | vs the same stack in plaintext | beyond plaintext, µs/request | req/s | server busy | client CPU µs/request | note |\n|---|---|--:|--:|--:|--:|--:|--:|--:|---|\n")
		}
		plain, beyond := "–", "–"
		if r.VsPlain > 0 {
			plain = num(r.VsPlain, 2)
		}
		if r.Handshake != 0 {
			beyond = num(r.Handshake, 1)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Server, r.Client, spread(r.CPU, 2), versus(r.CPUVsNginx), plain, beyond, median(r.ReqPerSec, 0), pct(r.Busy), median(r.ClientCPU, 1), tlsNote(r))
	}
	var none []string
	for _, t := range targets.Servers() {
		if !t.TLS {
			none = append(none, t.Name)
		}
	}
	if len(none) > 0 {
		fmt.Fprintf(&b, "\nNot measured, having no TLS (the target table): %s.\n", strings.Join(none, ", "))
	}
	b.WriteString("\n" + tlsClients + "\n")
	if s, ok := rep.Sections[report.TLSSection]; ok {
		fmt.Fprintf(&b, "\n_`make bench-tls`, %s, %s%s; each cell is %s, a ratio to nginx taken block by block against the reference nginx over TLS measured right before and after the server; "+
			"the columns against plaintext set the median over the median of the same stack's ceiling of the same invocation, none where the two ran apart (the plaintext ceilings ran on loadgen: no interval)._\n",
			s.Date, plural(s.Rounds, "block"), runHost(rep, s), interval(s.Rounds))
	}
	if s, ok := rep.Sections[report.TLSKeepAliveSection]; ok {
		fmt.Fprintf(&b, "\n_Keep-alive over TLS 1.3 has blocks of its own, short ones as the ceilings' (%s): its ratios to nginx are wanted to ±%.0f %%, and a block counts only at the host's usual level (the reference within ±%.0f %% of its usual speed, before and after the server), which the host leaves for seconds at a time. "+
			"`make bench-tls`'s keep-alive blocks, %s, %s%s, each cell %s.%s_\n",
			keepAliveFor(s), 100*tlsTarget, 100*report.HostTol, s.Date, blocksRun(s, "block"), runHost(rep, s), interval(s.Rounds), keptNote(rep, s, []string{"tls-keepalive"}, nil))
	}
	if s, ok := rep.Sections[report.TLSHandshakeSection]; ok {
		fmt.Fprintf(&b, "\n_nethttp's and nginx's full and resumed handshakes (ECDSA), whose cost is wanted to ±%.0f %%, have blocks of their own too, short ones on loadgen (%s), for the same reason: "+
			"`make bench-tls`'s handshake blocks, %s, %s%s, each cell %s.%s_\n",
			100*handshakeTarget, keepAliveFor(s), s.Date, blocksRun(s, "block"), runHost(rep, s), interval(s.Rounds), keptNote(rep, s, []string{"tls-full", "tls-resumed"}, []string{"nethttp", "nginx"}))
	}
	return b.String()
}

// blocksRun says how many rounds or blocks (unit) a section ran: its
// rounds, or, with a stopping rule (report.Section.Kept), its whole
// blocks and those after.
func blocksRun(s report.Section, unit string) string {
	if s.Kept == 0 {
		return plural(s.Rounds, unit)
	}
	return fmt.Sprintf("%s of all its rows, then %s of only the rows that had kept fewer than %d (at most %d blocks in all)",
		plural(s.Rounds, "whole block"), plural(max(blocksIn(s)-s.Rounds, 0), "block"), s.Kept, s.Most)
}

// blocksIn is how many blocks s's commands ran: one past the highest
// -block (a block may take a command a mode).
func blocksIn(s report.Section) int {
	n := 0
	for _, arg := range flagArgs(s, "-block") {
		if k, err := strconv.Atoi(arg); err == nil {
			n = max(n, k+1)
		}
	}
	return n
}

// keptNote says, under a stopping rule, why the run stops where it does,
// how many blocks each of its rows (those of modes; of servers, all when
// nil) kept, and which rows the cap left short.
func keptNote(rep report.Report, s report.Section, modes, servers []string) string {
	if s.Kept == 0 {
		return ""
	}
	in := func(r report.TLSRow) bool {
		return slices.Contains(modes, r.Mode) && (servers == nil && r.Server != "nginx" || slices.Contains(servers, r.Server))
	}
	var kept []string
	for _, r := range rep.TLS {
		if in(r) {
			name := r.Server
			if len(modes) > 1 {
				name += " " + r.Mode
			}
			kept = append(kept, fmt.Sprintf("%s %d of %d", name, r.Kept(), len(r.Blocks)))
		}
	}
	note := " The share of blocks the host lets a row keep changes from one invocation to the next, so the run stops on blocks kept, not blocks run: " +
		"a rule on the host's level and the servers' saturation, never on the figures, so it does not bias them. Blocks kept: " + strings.Join(kept, ", ") + "."
	var short []string
	for _, m := range modes {
		for _, r := range report.Short(rep.TLS, m, s.Kept) {
			if in(r) {
				short = append(short, fmt.Sprintf("%s (%d)", r.Server, r.Kept()))
			}
		}
	}
	if len(short) > 0 {
		note += fmt.Sprintf(" Short of %d when the cap stopped the run: %s.", s.Kept, strings.Join(short, ", "))
	}
	return note
}

// keepAliveFor says how long each run of the keep-alive blocks lasted, by
// their commands' -for.
func keepAliveFor(s report.Section) string {
	if d := flagArg(s, "-for"); d != "" {
		return d + " runs"
	}
	return "runs of the default length"
}

// tlsClients says which client each mode runs on, and why.
const tlsClients = "A mode that more than one client can run picks its client in each block by measurement on the reference nginx: each candidate runs once, " +
	"and the one that saturated nginx at the lowest client CPU per request drives the block (a row names the client most of its blocks used). " +
	"The candidates are wrk and h2load --h1, one thread each on OpenSSL (nginx's TLS library), and loadgen, whose own TLS 1.3 client reuses one key share per loop and does not authenticate the server: " +
	"a handshake costs it one X25519 operation and no signature check, while the server makes its own key share, derives the secret and signs, as for any client. " +
	"TLS 1.2's rows run on wrk or h2load (loadgen speaks TLS 1.3 only), HTTP/2 and h2c on h2load, the one installed client that speaks HTTP/2. " +
	"A resumed handshake per request offers the session the connection before it got (wrk keeps it across reconnections, loadgen with -resume); " +
	"for a full handshake per request the servers (nginx too) are started without session tickets, so no client has a session to offer. " +
	"A row whose server was never saturated because the client's core was says client-bound and gives no ceiling: its CPU per request is what the server spent at the rate the client reached (its busy share), not its ceiling. " +
	"wrk waits out the server's half of each handshake by polling (the new socket stays registered for writable, which it always is), so its CPU per handshake is not its cost, and with an ECDSA certificate it cannot saturate a server."

// title is a mode's heading.
func title(mode string) string {
	if t, ok := tlsTitles[mode]; ok {
		return t
	}
	return mode
}

// tlsNote is a row's label, and where its figure falls short of the
// resolution the bench aims at.
func tlsNote(r report.TLSRow) string {
	var notes []string
	if n := Note(r.Point); n != "" {
		notes = append(notes, n)
	}
	switch {
	case r.Server == report.Twin && r.CPUVsNginx != nil && r.CPUVsNginx.N > 1 && r.CPUVsNginx.HalfWidth() > aaTarget:
		notes = append(notes, "A/A wider than ±3 %: the run's noise")
	case r.Mode == "tls-keepalive" && r.CPUVsNginx != nil && r.CPUVsNginx.N > 1 && r.CPUVsNginx.HalfWidth() > tlsTarget:
		notes = append(notes, "ratio not resolved to ±5 %")
	case report.Handshakes(r.Mode) && r.CPU.N > 1 && r.CPU.HalfWidth() > handshakeTarget:
		notes = append(notes, "not resolved to ±10 %")
	}
	return strings.Join(notes, "; ")
}
