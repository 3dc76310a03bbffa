package robust

// What quic-go v0.65.0 does against hostile UDP, as servers/internal/h3serve
// configures it (quic.Listen on its own socket: a Transport with the
// defaults, and a Config that sets MaxIdleTimeout alone):
//
//   - No Retry: Transport.VerifySourceAddress is nil, so no source address
//     is validated before a connection is made. Every Initial of at least
//     1200 bytes, with a destination connection ID of 8 bytes or more that
//     no connection has, makes a connection and starts its TLS handshake;
//     nothing limits how many handshakes are in flight. What bounds them
//     is time: the handshake idle timeout (HandshakeIdleTimeout, 5 s by
//     default) and the handshake timeout (twice that). Until the client's
//     address is validated, the server sends it at most three times the
//     bytes it received (anti-amplification).
//   - Queues that drop rather than grow: 1024 packets waiting for the
//     server's one goroutine (MaxServerUnprocessedPackets), 256 waiting
//     for each connection (MaxConnUnprocessedPackets), 32 undecryptable
//     packets kept by a connection in its handshake
//     (MaxUndecryptablePackets), 4 Version Negotiation packets waiting to
//     be sent; the rest are dropped, and logged only at quic-go's debug
//     level.
//   - Garbage is dropped cheaply: a datagram whose first byte has neither
//     of the top two bits is not QUIC; a short header with an unknown
//     connection ID is dropped (no StatelessResetKey, so no stateless
//     reset is sent); a long header with a connection ID over 20 bytes or
//     an unparsable header is dropped; one of an unknown version, 1200
//     bytes or more, gets a Version Negotiation packet while that queue of
//     4 has room. 0-RTT packets that come before their Initial wait
//     100 ms at most, for 32 connections and 31 packets each.
//   - An Initial replayed with the same destination connection ID goes to
//     the connection the first one made and is dropped there as a
//     duplicate: a flood of one captured Initial makes one connection.
//
// Hence load (2) below replays 200 different captured Initials, each
// from its own socket: 200 copies of one Initial would make one
// connection, and test nothing.

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"

	"hellobench/internal/certs"
	"hellobench/internal/proc"
	"hellobench/internal/targets"
	"hellobench/page"
)

const (
	// minH3Rate is the least a bystander on HTTP/3 must be answered beside
	// a load, requests a second, one at a time on one QUIC connection:
	// far below the hundreds to thousands a second it gets beside these
	// loads on a shared machine of two cores, far above a starved one's.
	minH3Rate = 20
	// handshakers is load (2)'s connection attempts.
	handshakers = 200
	// h3RSSBound bounds a server's resident memory under each load:
	// rssBound, the suite's bound against a client that does not read,
	// and 256 KiB for each of the 200 handshakes load (2) leaves in
	// flight, each a connection with its TLS state, the packets it sent
	// waiting for an acknowledgement that never comes, and its goroutines
	// (114 MiB). Measured on nethttp: about 16 MiB under the floods
	// alone, some 110 KiB more a hanging handshake. The floods' datagrams
	// wait in the kernel's socket buffer, outside the process; the queues
	// above hold at most some 1300 packets (2 MiB).
	h3RSSBound = rssBound + handshakers*256<<10
)

// h3Servers returns the servers of the table that serve HTTP/3 given -h3.
func h3Servers() []targets.Target {
	var v []targets.Target
	for _, tg := range targets.Servers() {
		if tg.H3 {
			v = append(v, tg)
		}
	}
	return v
}

// requireUDP skips the test where the loopback takes no UDP, where QUIC
// runs.
func requireUDP(t *testing.T) {
	t.Helper()
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Skipf("no UDP on the loopback, where QUIC runs: %v", err)
	}
	c.Close()
}

// h3Pair writes a certificate for the test and returns it, with a client
// configuration that trusts it alone.
func h3Pair(t *testing.T) (certs.Pair, *tls.Config) {
	t.Helper()
	pair, err := certs.Write(t.TempDir(), certs.ECDSA)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := pair.Pool()
	if err != nil {
		t.Fatal(err)
	}
	return pair, &tls.Config{RootCAs: pool, ServerName: "localhost"}
}

// startH3 starts tg serving HTTPS with pair's certificate, and HTTP/3.
func (t *test) startH3(tg targets.Target, pair certs.Pair) *targets.Instance {
	t.Helper()
	return t.start(tg, targets.Env{TLSCert: pair.Cert, TLSKey: pair.Key, H3: true})
}

// TestH3Hostile runs three hostile loads against each server serving
// HTTP/3, each for the size's h3Load, while a bystander asks for the page
// over HTTP/3 one request at a time on one connection: (1) datagrams of
// 1200 random bytes, as fast as one goroutine sends them from one socket;
// (2) 200 valid client Initials (the whole first flight of a real quic-go
// client, captured), each sent once from its own socket that then never
// answers, so 200 handshakes hang; (3) one captured Initial flight sent
// again and again from one socket. The server must answer each socket of
// (2) and the one of (3), as it does an Initial it makes a connection
// of. For each load: the bystander got at least minH3Rate answers a
// second, every one the page; the server is alive, serves a new HTTP/3
// connection, its RSS sampled every 20 ms and its peak (VmHWM) stayed
// under h3RSSBound; and it logged nothing but its start line. The loads
// run one after another on one server: load (3) finds load (2)'s
// handshakes still in flight, as their timeout is 5 s. The servers take
// their loads in turns (udpTurn), not side by side: every server runs on
// CPU 0, and four floods there at once would test the machine. The rest
// overlaps: starting, capturing, and the stop, which waits for load (2)'s
// handshakes to time out.
func TestH3Hostile(t *testing.T) {
	requireUDP(t)
	raiseUDPBuffers(t)
	for _, tg := range h3Servers() {
		t.Run(tg.Name, func(tt *testing.T) {
			tt.Parallel()
			sz := fmt.Sprintf("3 loads of %s; %d handshakes", size().h3Load, handshakers)
			hostileH3(&test{T: tt, row: newRow(tt, tg.Name, "hostile UDP", sz)}, tg)
		})
	}
}

// udpTurn is held by the server whose TestH3Hostile loads run.
var udpTurn sync.Mutex

// hostileH3 runs TestH3Hostile's loads against tg.
func hostileH3(top *test, tg targets.Target) {
	pair, cfg := h3Pair(top.T)
	in := top.startH3(tg, pair)
	pid := top.httpPID(in)
	srv, err := net.ResolveUDPAddr("udp", in.Addr)
	if err != nil {
		top.Fatalf("%v", err)
	}
	// One more flight than load (2) sends, for load (3): its connection
	// ID must be one no connection has yet.
	flights := captureInitials(top.T, cfg, handshakers+1)
	c, tr := h3Bystander(cfg)
	defer tr.Close()
	if err := getH3(c, in.URL()); err != nil {
		top.Fatalf("before the loads: %v", err)
	}

	udpTurn.Lock()
	defer udpTurn.Unlock()
	loads := []struct {
		name string
		run  func(ctx context.Context) (int64, error)
	}{
		{"garbage", func(ctx context.Context) (int64, error) { return garbage(ctx, srv) }},
		{"handshakes", func(ctx context.Context) (int64, error) { return hang(ctx, srv, flights[:handshakers]) }},
		{"initial-flood", func(ctx context.Context) (int64, error) { return replay(ctx, srv, flights[handshakers]) }},
	}
	for _, l := range loads {
		top.Run(l.name, func(st *testing.T) {
			t := &test{T: st, row: top.row}
			ctx, cancel := context.WithTimeout(context.Background(), size().h3Load)
			defer cancel()
			type sent struct {
				n   int64
				err error
			}
			done := make(chan sent, 1)
			go func() {
				n, err := l.run(ctx)
				done <- sent{n, err}
			}()
			peak := sampleRSS(ctx, pid)
			start := time.Now()
			answered, err := askUntil(ctx, c, in.URL())
			took := time.Since(start)
			s := <-done
			if s.err != nil {
				t.Fatalf("%s: the load: %v", l.name, s.err)
			}
			t.alive(in, "after the load "+l.name)
			rate := float64(answered) / took.Seconds()
			max, hwm := <-peak, t.usage(in).Peak
			t.row.add(t, l.name, "%d datagrams; bystander %.0f answers a second; RSS at most %s, peak %s",
				s.n, rate, mib(max), mib(hwm))
			if err != nil {
				t.Errorf("%s: bystander, after %d answers: %v", l.name, answered, err)
			}
			if rate < minH3Rate {
				t.Errorf("%s: bystander starved: %d answers in %s (%.1f a second), want at least %d a second", l.name, answered, secs(took), rate, minH3Rate)
			}
			if max > h3RSSBound || hwm > h3RSSBound {
				t.Errorf("%s: RSS %s, peak %s: over the bound of %s", l.name, mib(max), mib(hwm), mib(h3RSSBound))
			}
			fresh, ftr := h3Bystander(cfg)
			defer ftr.Close()
			if err := getH3(fresh, in.URL()); err != nil {
				t.Errorf("%s: a new HTTP/3 connection after the load: %v", l.name, err)
			}
			for _, line := range lines(in.Proc.Output().String()) {
				if !tg.Ready.MatchString(line) && (tg.LogAllowed == nil || !tg.LogAllowed.MatchString(line)) {
					t.Errorf("%s: the server logged: %s", l.name, line)
				}
			}
		})
	}
}

// h3Bystander returns an HTTP/3 client trusting cfg's roots, and its
// transport, which keeps one QUIC connection to a server.
func h3Bystander(cfg *tls.Config) (*http.Client, *http3.Transport) {
	tr := &http3.Transport{TLSClientConfig: cfg}
	return &http.Client{Transport: tr, Timeout: 5 * time.Second}, tr
}

// getH3 asks for url and checks that the answer is the page over HTTP/3.
func getH3(c *http.Client, url string) error {
	resp, err := c.Get(url)
	if err != nil {
		return err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return fmt.Errorf("body: %w", err)
	}
	if resp.ProtoMajor != 3 || resp.StatusCode != http.StatusOK || !bytes.Equal(body, page.HTML) {
		return fmt.Errorf("%s %d with %d body bytes, want HTTP/3.0, 200 and the %d-byte page", resp.Proto, resp.StatusCode, len(body), page.Size)
	}
	return nil
}

// askUntil asks for url one request at a time until ctx is done, and
// returns how many answers were the page, or the first failure.
func askUntil(ctx context.Context, c *http.Client, url string) (int64, error) {
	var n int64
	for ctx.Err() == nil {
		if err := getH3(c, url); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// sampleRSS reads pid's VmRSS every 20 ms until ctx is done, and then
// sends the most it read.
func sampleRSS(ctx context.Context, pid int) <-chan int64 {
	ch := make(chan int64, 1)
	go func() {
		var top int64
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			if m, err := proc.ReadMemory(pid); err == nil {
				top = max(top, m.RSS)
			}
			select {
			case <-ctx.Done():
				ch <- top
				return
			case <-tick.C:
			}
		}
	}()
	return ch
}

// garbage sends datagrams of 1200 random bytes to srv from one socket as
// fast as it can until ctx is done, and returns how many it sent.
func garbage(ctx context.Context, srv *net.UDPAddr) (int64, error) {
	c, err := net.DialUDP("udp", nil, srv)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	rng := rand.NewChaCha8([32]byte{1})
	buf := make([]byte, 1200)
	var n int64
	for ctx.Err() == nil {
		rng.Read(buf)
		// A full socket buffer or a refusal the kernel reports back is
		// the load's to ignore: it sends on.
		if _, err := c.Write(buf); err == nil {
			n++
		}
	}
	return n, nil
}

// hang sends each flight from a socket of its own, once, then holds the
// sockets, never answering, until ctx is done: a handshake in flight on
// the server for each. It returns the datagrams sent, or an error unless
// the server answered every socket, as it does an Initial it takes for a
// new connection.
func hang(ctx context.Context, srv *net.UDPAddr, flights [][][]byte) (int64, error) {
	var n int64
	cs := make([]*net.UDPConn, 0, len(flights))
	defer func() {
		for _, c := range cs {
			c.Close()
		}
	}()
	for _, f := range flights {
		c, err := net.DialUDP("udp", nil, srv)
		if err != nil {
			return n, err
		}
		cs = append(cs, c)
		for _, d := range f {
			if _, err := c.Write(d); err != nil {
				return n, err
			}
			n++
		}
	}
	end, _ := ctx.Deadline()
	buf := make([]byte, 2048)
	answered := 0
	for _, c := range cs {
		c.SetReadDeadline(end)
		if _, err := c.Read(buf); err == nil {
			answered++
		}
	}
	<-ctx.Done()
	if answered < len(cs) {
		return n, fmt.Errorf("the server answered %d of %d connection attempts: it did not take their Initials for new connections", answered, len(cs))
	}
	return n, nil
}

// replay sends flight again and again from one socket until ctx is done,
// and returns the datagrams sent, or an error unless the server answered
// (the first makes a connection).
func replay(ctx context.Context, srv *net.UDPAddr, flight [][]byte) (int64, error) {
	c, err := net.DialUDP("udp", nil, srv)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	var answered atomic.Int64
	go func() {
		buf := make([]byte, 2048)
		for {
			if _, err := c.Read(buf); err != nil {
				return // closed
			}
			answered.Add(1)
		}
	}()
	var n int64
	for ctx.Err() == nil {
		for _, d := range flight {
			if _, err := c.Write(d); err == nil {
				n++
			}
		}
	}
	if answered.Load() == 0 {
		return n, errors.New("the server never answered the Initial: it made no connection of it")
	}
	return n, nil
}

// captureInitials returns the first flights of n QUIC connection
// attempts of quic-go's client with cfg and HTTP/3's ALPN: each the
// datagrams its Initial packets came in (the ClientHello, with the
// post-quantum key share Go offers by default, takes two). The client
// writes them to a recorder, which sends nothing, so no server ever
// answers. Each attempt has a destination connection ID of its own; the
// source connection ID is the client's, kept unchanged in the replays, as
// the server only echoes it.
func captureInitials(t *testing.T, cfg *tls.Config, n int) [][][]byte {
	t.Helper()
	// On a loaded machine a late goroutine lets a probe into more flights'
	// windows than the spare attempts cover: capture again, up to three
	// times, rather than fail on the harness's own shortfall.
	for try := 1; ; try++ {
		flights, whole := captureOnce(t, cfg, n)
		if len(flights) >= n {
			t.Logf("captured %d Initial flights of %d datagrams (the first: %d bytes)", n, whole, len(flights[0][0]))
			return flights
		}
		if try == 3 {
			t.Fatalf("captured the whole first flights of %d connection attempts, want %d (three tries)", len(flights), n)
		}
		t.Logf("captured the whole first flights of %d connection attempts, want %d: capturing again", len(flights), n)
	}
}

// captureOnce is one capture of captureInitials: the whole first flights
// of up to n attempts, and how many datagrams a whole flight has.
func captureOnce(t *testing.T, cfg *tls.Config, n int) ([][][]byte, int) {
	t.Helper()
	sock, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{PacketConn: sock}
	tr := &quic.Transport{Conn: rec}
	defer tr.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	tc := cfg.Clone()
	tc.NextProtos = []string{http3.NextProtoH3}
	// A few more attempts than wanted, to keep only whole flights.
	attempts := n + n/10 + 1
	for range attempts {
		wg.Go(func() { tr.Dial(ctx, sock.LocalAddr(), tc, &quic.Config{}) })
	}
	// A flight's datagrams are written back to back; quic-go's client
	// writes nothing more before its first probe timeout (300 ms), so
	// what it writes within 150 ms of an attempt's first datagram is its
	// flight. The capture ends 150 ms after the last attempt's first
	// datagram.
	const window = 150 * time.Millisecond
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		ids, last := rec.firsts()
		if ids == attempts && time.Since(last) > window {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d connection attempts wrote their Initial in 10 s", ids, attempts)
		}
	}
	cancel()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	byID := map[string][][]byte{}
	first := map[string]time.Time{}
	var order []string
	for _, w := range rec.written {
		d := w.b
		if len(d) < 7 || d[0]&0x80 == 0 || 6+int(d[5]) > len(d) {
			t.Fatalf("quic-go's client wrote a datagram that is no long-header packet: % x", d[:min(len(d), 16)])
		}
		id := string(d[6 : 6+int(d[5])])
		if _, ok := first[id]; !ok {
			first[id] = w.at
			order = append(order, id)
		} else if w.at.Sub(first[id]) > window {
			continue
		}
		byID[id] = append(byID[id], d)
	}
	// A whole flight has as many datagrams as most do: a late goroutine
	// may have let a probe into a window.
	count := map[int]int{}
	whole := 0
	for _, f := range byID {
		count[len(f)]++
		if count[len(f)] > count[whole] {
			whole = len(f)
		}
	}
	var flights [][][]byte
	for _, id := range order {
		if f := byID[id]; len(f) == whole && len(flights) < n {
			flights = append(flights, f)
		}
	}
	return flights, whole
}

// A recorder is the socket quic-go's client writes to in captureInitials:
// it keeps every datagram written, with when, and sends none. Reads go to
// its socket, to which nothing is sent.
type recorder struct {
	net.PacketConn
	mu      sync.Mutex
	written []struct {
		b  []byte
		at time.Time
	}
}

func (r *recorder) WriteTo(b []byte, _ net.Addr) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.written = append(r.written, struct {
		b  []byte
		at time.Time
	}{bytes.Clone(b), time.Now()})
	return len(b), nil
}

// SetReadBuffer and SetWriteBuffer let quic-go size the buffers, as it
// does a UDP socket's (else it logs a warning): there is nothing to hold.
func (r *recorder) SetReadBuffer(int) error  { return nil }
func (r *recorder) SetWriteBuffer(int) error { return nil }

// firsts returns how many destination connection IDs the datagrams
// written so far have, and when the last new one was written.
func (r *recorder) firsts() (int, time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := map[string]bool{}
	var last time.Time
	for _, w := range r.written {
		if len(w.b) < 7 || 6+int(w.b[5]) > len(w.b) {
			continue
		}
		if id := string(w.b[6 : 6+int(w.b[5])]); !seen[id] {
			seen[id] = true
			last = w.at
		}
	}
	return len(seen), last
}

// raiseUDPBuffers raises the kernel's UDP buffer limits to what quic-go
// asks for (proc.RaiseUDPBuffers): below them quic-go logs a warning, and
// a server must log nothing but its start line. Where they cannot be
// raised, the test says so.
func raiseUDPBuffers(t *testing.T) {
	t.Helper()
	if err := proc.RaiseUDPBuffers(); err != nil {
		t.Logf("UDP buffers: %v: quic-go may log a warning", err)
	}
}
