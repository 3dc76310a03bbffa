package robust

import (
	"cmp"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"hellobench/bench/report"
	"hellobench/internal/proc"
	"hellobench/internal/targets"
)

// A row is one server's result in one test.
type row struct {
	Server, Test, Size string

	mu      sync.Mutex
	held    bool
	skipped bool
	lenient string // a documented shortfall of the server, asserted
	figures []string
	notes   []string // failures or the reason for a skip, in order
}

// rows are the results of this run, in the order the tests began.
var rows struct {
	sync.Mutex
	list []*row
}

// newRow records the row of server in test; it is held when t ends
// without failing. Created first, its clean-up runs last, after the
// server's stop has been checked.
func newRow(t *testing.T, server, test, size string) *row {
	r := &row{Server: server, Test: test, Size: size}
	rows.Lock()
	rows.list = append(rows.list, r)
	rows.Unlock()
	t.Cleanup(func() {
		r.mu.Lock()
		r.held, r.skipped = !t.Failed(), t.Skipped()
		r.mu.Unlock()
	})
	return r
}

// add adds a figure, "name: value", to the row and logs it.
func (r *row) add(t *test, name, format string, args ...any) {
	t.Helper()
	f := name + ": " + fmt.Sprintf(format, args...)
	t.Logf("%s", f)
	r.mu.Lock()
	r.figures = append(r.figures, f)
	r.mu.Unlock()
}

func (r *row) note(msg string) {
	r.mu.Lock()
	r.notes = append(r.notes, msg)
	r.mu.Unlock()
}

// testOrder is the order of the tests in the report.
var testOrder = []string{"slowloris", "slow read", "slow body", "slow keep-alive body", "pipelined, never read", "many pipeliners, never read", "idle keep-alive", "fd exhaustion", "resets", "SIGTERM under load", "HTTP/3 interop: ngtcp2", "HTTP/3 interop: h2load", "hostile UDP", "anti-amplification", "soak"}

// writeReport writes the rows as markdown to path; "" writes nothing.
func writeReport(path string, began time.Time) error {
	if path == "" {
		return nil
	}
	var b strings.Builder
	header(&b, began)
	rows.Lock()
	list := slices.Clone(rows.list)
	rows.Unlock()
	for _, tg := range targets.Servers() {
		var mine []*row
		for _, r := range list {
			if r.Server == tg.Name {
				mine = append(mine, r)
			}
		}
		slices.SortStableFunc(mine, func(a, b *row) int {
			return slices.Index(testOrder, a.Test) - slices.Index(testOrder, b.Test)
		})
		table(&b, tg.Name, mine)
	}
	if err := framingTable(&b, *framingFrom); err != nil {
		return fmt.Errorf("report: %v", err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("report: %v", err)
	}
	return nil
}

func header(b *strings.Builder, began time.Time) {
	variant := "quick variant (`go test ./robust`)"
	if *full {
		variant = "full sizes (`make robust`)"
	}
	fmt.Fprintf(b, "# Robustness\n\n")
	fmt.Fprintf(b, "Written by the robustness suite (package robust), %s, run on %s.\n\n", variant, began.UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(b, "Machine: %s, %d CPUs; Linux %s; %s.\n\n", cpuModel(), runtime.NumCPU(), kernel(), runtime.Version())
	// The key the bench files this host's runs under, so that a page
	// built from both (the pick table) can name the host by its letter.
	fmt.Fprintf(b, "%s%s.\n\n", report.RobustHostPrefix, hostKey())
	fmt.Fprintf(b, `Each server runs as a real process pinned to CPU 0 with GOMAXPROCS=1 (fcgi:
lighttpd and the application it spawns, both counted). A test *held* when
every assertion of it passed; a failed one names what failed. Memory is the
resident set (RSS) from /proc, summed over the server's counted processes;
"peak RSS" is the kernel's high-water mark (VmHWM) since the server started.

What each test asserts:

- **slowloris**: slowhttptest -H opens the connections and sends a header
  line every second, never ending the header section. The server must accept
  them all, and its header timeout must close every one within the timeout
  plus 1 s of the last one opening; a client beside them (loadgen -k -c 2) is
  served with no failure.
- **slow read**: slowhttptest -X opens the connections, each asking for ten
  pipelined responses and reading them 32 bytes a second through a tiny
  receive window. Peak RSS must stay under %[1]s and a client beside them
  is served with no failure.
- **slow body**: slowhttptest -B opens the connections, each a POST with
  Content-Length 4096 whose form body comes at most 6 bytes a second, and
  Connection: close. The server may answer before the body or wait for it,
  but it must close every one within the header timeout plus 1 s of the
  last one opening (of slowhttptest's start, if it never held them all at
  once): a request, body included, gets no longer than its header section.
  slowhttptest must see all its requests sent and every connection closed
  by the server; a client beside them is served with no failure, and peak
  RSS stays under %[1]s.
- **slow keep-alive body**: each connection gets the page once, then sends
  a POST of the page with Content-Length 4096 on the same connection,
  kept alive, and its body a byte every 500 ms. The server may answer
  before the body, but must close every connection within the header
  timeout plus 1 s of that request's first byte; a client beside them is
  served with no failure.
- **pipelined, never read**: one connection writes the requests back to back
  and reads nothing until the server stops taking them (or all are sent).
  Peak RSS must stay under %[1]s; then, reading, the backlog drains (every
  response whole) or the server closes the connection, and it still serves.
- **many pipeliners, never read**: the connections, opened at once, each
  write up to %[5]d requests back to back and read nothing, with the MSS
  of an Ethernet path (%[6]d) and small socket buffers, so that the answers
  back up into the server (its kernel takes about 100 KB a connection), not
  into loopback's buffers. Peak RSS must stay under %[1]s plus 64 KiB a
  connection (%[7]s at this size); a client beside them (loadgen -k -c 2,
  for %[8]s) is served with no failure; once they close, the server's
  descriptors return to where they were and it serves a new connection.
- **idle keep-alive**: the connections each send one request and then idle;
  every one must be answered. RSS per connection is the growth of RSS over
  the connections.
- **fd exhaustion**: the server starts with an open-file limit of 256, then
  the connections come at once, each sending a request, and are held. It
  must not exit, must use under %[2]s of a core over the hold (no spinning on
  accept), must log at most one line per second of the flood (from its start until
  it serves again), plus one, and once the connections close must serve a
  new one within %[3]s (the issue's second and slack for a loaded machine),
  then a burst of loadgen with no failure.
- **resets**: clients reset (SO_LINGER 0) mid-request, after half a request,
  and mid-response, after reading a few bytes of pipelined responses. The
  server must serve a new connection after every 50 resets, and its open
  descriptors must return to where they were.
- **SIGTERM under load**: loadgen -k -c 50 runs, and a third of the way in the
  server gets SIGTERM. It must exit 0 within %[4]s; loadgen must report no
  length failure and four checking clients no response cut short (a request
  not yet read may be refused).
- **HTTP/3 interop: ngtcp2**: on the servers that serve HTTP/3 (-h3, with a
  certificate written for the run), ngtcp2's example client (Debian's
  gtlsclient: QUIC, TLS and HTTP/3 in C, on GnuTLS) asks for the page and
  /json on one connection. Each answer must be 200 with the contract's
  Content-Type, one Content-Length that is the body's, the server's Server
  header and the exact bytes (the JSON object with or without a newline
  after it). The client verifies no certificate: it loads the system's
  roots but never checks the server's chain, and takes no CA; quic-go's
  client, trusting the run's certificate alone, verifies it in the
  conformance suite.
- **HTTP/3 interop: h2load**: h2load, where it speaks HTTP/3, asks for each
  %[9]d times on one connection: every request must succeed with a 2xx over
  h3, with the bytes of that many answers. A probe says whether it speaks
  HTTP/3 (given --npn-list=h3, it must send a QUIC packet to a UDP socket of
  the test's); where it does not, the row is skipped with the reason.
- **hostile UDP**: on the servers that serve HTTP/3, the loads on one server
  at a time, three in turn, each for the size's time: datagrams of 1200 random bytes
  as fast as one socket sends them; %[10]d captured client Initials (a real
  quic-go client's first flights) from as many sockets that never answer,
  so as many handshakes hang; one captured Initial replayed from one
  socket. Beside each, a client on one HTTP/3 connection, one request at a
  time, must get the page at least %[11]d times a second; the server must
  answer the Initials, stay alive, serve a new HTTP/3 connection, keep RSS
  and its peak under %[12]s, and log nothing.
- **anti-amplification**: on the servers that serve HTTP/3, one client
  Initial (quic-go's, padded to one datagram) from a socket that never
  answers, so the server never validates the address; every datagram sent
  back within %[13]s is counted, past the server's handshake idle timeout
  (5 s), retransmissions and probes included. RFC 9000 (section 8.1)
  allows at most %[14]d times the bytes received. A datagram sent once that
  was reached fails; where only the last one crosses it, the row is a
  documented deviation of quic-go, which checks the limit before each
  datagram rather than against its size (its pull request 2862). The count
  itself is checked against a responder in the test that answers with 4
  times the bytes (TestAmplificationCheck).
- **soak**: churning keep-alive load, in rounds of 10 s: loadgen -k -c 20,
  whose connections are new each round, and a client opening a connection
  for every ten requests. Between rounds, with no client connected, RSS,
  threads and open descriptors of the server's processes are sampled. The
  Go servers expose no goroutine count, so threads and descriptors stand in
  for it. After a warm-up of a fifth of the run, the highest sample of the
  second half may exceed the first half's highest by at most 10%% of RSS and
  2 threads or descriptors.

`, mib(rssBound), fmt.Sprintf("%.0f%%", maxSpin*100), secs(recoverIn), stopWithin,
		pipelinedEach, pipelinerMSS, mib(pipelinersBound(size().pipeliners)), size().pipelinersHold,
		h2loadEach, handshakers, minH3Rate, mib(h3RSSBound), amplifyFor, amplifyLimit)
}

func table(b *strings.Builder, server string, rs []*row) {
	fmt.Fprintf(b, "## %s\n\n", server)
	if len(rs) == 0 {
		b.WriteString("Not run.\n\n")
		return
	}
	b.WriteString("| Test | Size | Result | Figures |\n|---|---|---|---|\n")
	for _, r := range rs {
		r.mu.Lock()
		result := "held"
		switch {
		case r.held && r.lenient != "":
			result = "deviation (documented, asserted): " + r.lenient
		case r.skipped:
			result = "skipped: " + first(r.notes)
		case !r.held:
			result = "**failed**: " + first(r.notes)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", r.Test, cell(r.Size), cell(result), cell(strings.Join(r.figures, "; ")))
		r.mu.Unlock()
	}
	b.WriteString("\n")
}

// hostKey is this machine's key in the bench's hosts record
// (report.HostKey), from what the kernel says of its processor.
func hostKey() string {
	m := report.Machine{CPU: proc.CPUModel(), Mitigations: proc.Mitigations()}
	if id, err := proc.ReadCPUID(); err == nil {
		m.Vendor, m.Family, m.Model, m.Stepping, m.Microcode = id.Vendor, id.Family, id.Model, id.Stepping, id.Microcode
	}
	if k := proc.Kernel(); k != "" {
		m.Kernel = "Linux " + k
	}
	return report.HostKey(m)
}

// first returns the first note, on one line and shortened.
func first(notes []string) string {
	if len(notes) == 0 {
		return "see the test log"
	}
	s, _, _ := strings.Cut(notes[0], "\n")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// cell escapes s for a markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}

// cpuModel names the CPU, for the report's conditions.
func cpuModel() string { return cmp.Or(proc.CPUModel(), "unknown CPU") }

// kernel returns the kernel's release.
func kernel() string { return cmp.Or(proc.Kernel(), "unknown") }
