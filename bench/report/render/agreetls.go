package render

import (
	"fmt"
	"strings"

	"hellobench/bench"
	"hellobench/bench/report"
)

// AgreeTLS sets make bench-tls's figures from separate invocations side by
// side: each row's ratio to nginx over TLS with its interval's half-width,
// to read against the resolution the bench aims at (±5 % for keep-alive,
// ±3 % for nginx/aa), and the CPU per handshake of nethttp and nginx
// (±10 %), whose ratio is nethttp's row of the same mode: crypto/tls
// against OpenSSL.
func AgreeTLS(dirs []string) (string, error) {
	reps, b, err := agreeIntro(dirs, "TLS and HTTP/2 repeated: separate invocations of make bench-tls", "agree-tls",
		report.TLSSection, "block", "make bench-tls rows", func(r report.Report) bool { return len(r.TLS) > 0 })
	if err != nil {
		return "", err
	}
	if len(reps) < 2 {
		return b.String(), nil
	}
	if _, ok := reps[0].Sections[report.TLSKeepAliveSection]; ok {
		b.WriteString("\nKeep-alive over TLS 1.3 from each one's keep-alive blocks, a separate invocation:\n\n")
		sectionDates(b, sectionsOf(reps, report.TLSKeepAliveSection), "block", "none: its keep-alive rows are its tls.txt's")
	}
	if _, ok := reps[0].Sections[report.TLSHandshakeSection]; ok {
		b.WriteString("\nnethttp's and nginx's full and resumed handshakes (ECDSA) from each one's handshake blocks, a separate invocation:\n\n")
		sectionDates(b, sectionsOf(reps, report.TLSHandshakeSection), "block", "none: its handshake rows are its tls.txt's")
	}
	fmt.Fprintf(b, "\nEach cell is %s, the client that ran it, and the interval's half-width over the median; "+
		"a row not saturated says why. The last column is the invocations' medians' spread, half their range over their median.\n", interval(reps[0].Sections[report.TLSSection].Rounds))

	b.WriteString("\n## CPU per request as a ratio to nginx over TLS\n")
	mode := ""
	for _, row := range reps[0].TLS {
		if row.Mode != mode {
			mode = row.Mode
			fmt.Fprintf(b, "\n%s:\n\n", title(mode))
			b.WriteString(agreeHead(len(reps), "medians' spread"))
		}
		if row.Server == "nginx" {
			continue // the reference: 1 by definition
		}
		agreeTLSRow(b, reps, row, func(r report.TLSRow) *report.Figure { return r.CPUVsNginx }, 2)
	}

	b.WriteString("\n## Server CPU per request with a handshake per request, nethttp and nginx, µs\n")
	mode = ""
	for _, row := range reps[0].TLS {
		if !report.Handshakes(row.Mode) || row.Server != "nethttp" && row.Server != "nginx" {
			continue
		}
		if row.Mode != mode {
			mode = row.Mode
			fmt.Fprintf(b, "\n%s:\n\n", title(mode))
			b.WriteString(agreeHead(len(reps), "medians' spread"))
		}
		agreeTLSRow(b, reps, row, func(r report.TLSRow) *report.Figure { return &r.CPU }, 1)
	}
	return b.String(), nil
}

// agreeTLSRow writes row's line: fig of the same server and mode in each
// report, with the client that ran it, unless none has it.
func agreeTLSRow(b *strings.Builder, reps []report.Report, row report.TLSRow, fig func(report.TLSRow) *report.Figure, prec int) {
	rows := make([]report.TLSRow, len(reps))
	for i, r := range reps {
		rows[i], _ = findTLSRow(r.TLS, row.Server, row.Mode)
	}
	agreeRow(b, row.Server, len(reps), func(i int) (*report.Figure, string) {
		f := fig(rows[i])
		if f == nil {
			return nil, ""
		}
		return f, bench.FormatFigure(*f, prec)
	}, func(i int) string {
		cell := ", " + rows[i].Client
		if len(rows[i].Blocks) > 0 && (rows[i].Mode == "tls-keepalive" || report.Handshakes(rows[i].Mode)) {
			cell += fmt.Sprintf(", %d of %d blocks kept", rows[i].Kept(), len(rows[i].Blocks))
		}
		if n := Note(rows[i].Point); n != "" {
			cell += "; " + n
		}
		return cell
	})
}

// findTLSRow finds server's row in mode.
func findTLSRow(rows []report.TLSRow, server, mode string) (report.TLSRow, bool) {
	for _, r := range rows {
		if r.Server == server && r.Mode == mode {
			return r, true
		}
	}
	return report.TLSRow{}, false
}
