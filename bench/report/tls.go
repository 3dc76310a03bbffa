package report

import (
	"slices"
	"strings"

	"hellobench/bench"
)

// tlsPrefix starts the benchmark keys of make bench-tls (BenchmarkTLS).
const tlsPrefix = "hellobench/bench/BenchmarkTLS/"

// A TLSRow is one server in one mode of make bench-tls: a ceiling over TLS
// or HTTP/2, built as the ceilings are (the saturated blocks of the
// host's usual level), its ratio to nginx over TLS taken block by block
// against the reference rounds beside it (Point.CPUVsNginx).
type TLSRow struct {
	Point
	// Key is the certificate's key type: "ecdsa", or "rsa" for the rows
	// measured again with an RSA-2048 certificate.
	Key string `json:"key"`
	// Client is the load generator the mode ran on (bench.TLSClient.Uses).
	Client string `json:"client"`
	// VsPlain is the CPU per request over the same stack's plaintext
	// ceiling in the matching mode (PlainMode), from the ceilings of the
	// same results: a ratio of two medians from two invocations, so it
	// has no interval (0: no plaintext ceiling).
	VsPlain float64 `json:"cpu_vs_plaintext,omitempty"`
	// Handshake is, for a new connection per request (resumed or full),
	// the CPU per request beyond the same stack's plaintext ceiling with a
	// new connection per request, in µs: what the handshake and the TLS
	// records of one request cost, medians of two invocations (0: none).
	Handshake float64 `json:"handshake_us,omitempty"`
}

// Kept is how many blocks a row's figures rest on: those in which its
// server was saturated and the host at its usual level (for its ratio to
// nginx, with a reference beside it).
func (r TLSRow) Kept() int {
	if r.CPUVsNginx == nil {
		return r.Implied.N
	}
	return r.CPUVsNginx.N
}

// Short is the rows of mode that rest on fewer than kept blocks, in
// report order: every row with a ratio to nginx, and, with a handshake per
// request, whose CPU per request is wanted for nginx too, nginx's. A row
// whose server was never saturated (client-bound) is left out: more
// blocks would not saturate it.
func Short(rows []TLSRow, mode string, kept int) []TLSRow {
	var short []TLSRow
	for _, r := range rows {
		if r.Mode == mode && (r.Server != "nginx" || Handshakes(mode)) && r.Kept() < kept && slices.Contains(r.Saturated, true) {
			short = append(short, r)
		}
	}
	return short
}

// tlsSection is the section (results file) mode's rows come from: make
// bench-tls's keep-alive blocks have their own.
func tlsSection(mode string) string {
	if mode == string(bench.TLSKeepAlive) {
		return TLSKeepAliveSection
	}
	return TLSSection
}

// PlainMode is the plaintext ceiling mode a TLS mode is set against: its
// HTTP/1.1 counterpart, keep-alive for HTTP/2.
func PlainMode(m string) string {
	switch bench.Mode(strings.TrimSuffix(m, bench.RSASuffix)) {
	case bench.TLSPipeline:
		return string(bench.Pipeline)
	case bench.TLSResumed, bench.TLSFull, bench.TLS12Full:
		return string(bench.Close)
	}
	return string(bench.KeepAlive)
}

// Handshakes says whether mode makes a new connection, and so a
// handshake, per request.
func Handshakes(m string) bool { return PlainMode(m) == string(bench.Close) }

// TLSModeNames are the TLS modes in report order: bench.TLSModes, TLS
// 1.2's rows, and the full handshakes with an RSA certificate.
func TLSModeNames() []string {
	var names []string
	for _, m := range slices.Concat(bench.TLSModes, bench.TLS12Modes) {
		names = append(names, string(m))
	}
	return append(names, string(bench.TLSFull)+bench.RSASuffix)
}

func tlsModeRank(m string) int {
	if i := slices.Index(TLSModeNames(), m); i >= 0 {
		return i
	}
	return len(TLSModeNames())
}

// buildTLS builds the TLS rows from the samples of BenchmarkTLS, and sets
// them against the plaintext ceilings of the same results.
func buildTLS(all map[string]Samples, sections map[string]Section, own map[string]string, ceilings []Point, conns int) []TLSRow {
	// Each run's host level is its own: the rows of make bench-tls's
	// handshake blocks are judged by their run's references alone.
	mine, theirs := map[string]Samples{}, map[string]Samples{}
	for key, s := range all {
		if own[key] != "" {
			mine[key] = s
		} else {
			theirs[key] = s
		}
	}
	usuals := []map[string]float64{usualSpeedsOf(theirs, tlsPrefix), usualSpeedsOf(mine, tlsPrefix)}
	var ps []Point
	clients := map[string]string{}
	for key, s := range all {
		rest, ok := strings.CutPrefix(key, tlsPrefix)
		if !ok {
			continue
		}
		f := strings.Split(rest, "/")
		if len(f) < 2 {
			continue
		}
		mode := f[len(f)-1]
		usual := usuals[b2i(own[key] != "")]
		one := []Point{ceilingPoint(strings.Join(f[:len(f)-1], "/"), mode, conns, s, usual[mode])}
		atRefSpeed(one, usual)
		p := one[0]
		// The client the run reported (client-h2load, client-loadgen: 1
		// for the one picked), else the mode's first.
		c := bench.TLSClient{}.Uses(bench.Mode(strings.TrimSuffix(mode, bench.RSASuffix)))
		if h := s["client-h2load"]; len(h) > 0 {
			c = "wrk"
			if figureOf(h).Median > 0.5 {
				c = "h2load"
			}
			if g := s["client-loadgen"]; len(g) > 0 && figureOf(g).Median > 0.5 {
				c = "loadgen"
			}
		}
		clients[p.Server+"/"+p.Mode] = c
		sec := tlsSection(mode)
		if own[key] != "" {
			sec = own[key]
		}
		p.Coarse = Coarse(sections[sec])
		ps = append(ps, p)
	}
	compare(ps)
	rows := make([]TLSRow, len(ps))
	for i, p := range ps {
		r := TLSRow{Point: p, Key: "ecdsa", Client: clients[p.Server+"/"+p.Mode]}
		if strings.HasSuffix(p.Mode, bench.RSASuffix) {
			r.Key = "rsa"
		}
		// Over the plaintext only within one run: a ratio of two
		// invocations' medians (two hosts, perhaps) is no figure.
		sec, ok := sections[tlsSection(p.Mode)]
		if !ok {
			sec = sections["tls"] // keep-alive's rows from before their own file
		}
		if o := own[tlsPrefix+p.Server+"/"+p.Mode]; o != "" {
			sec = sections[o]
		}
		c, ok := Find(ceilings, p.Server, PlainMode(p.Mode))
		if ok && c.Implied.N > 0 && p.Implied.N > 0 && (len(sections) == 1 || SameRun(sections[CeilingsSection], sec)) {
			r.VsPlain = p.CPU.Median / c.CPU.Median
			if Handshakes(p.Mode) {
				r.Handshake = p.CPU.Median - c.CPU.Median
			}
		}
		rows[i] = r
	}
	slices.SortFunc(rows, func(a, b TLSRow) int {
		if d := tlsModeRank(a.Mode) - tlsModeRank(b.Mode); d != 0 {
			return d
		}
		if d := Rank(a.Server) - Rank(b.Server); d != 0 {
			return d
		}
		return strings.Compare(a.Server, b.Server)
	})
	return rows
}
