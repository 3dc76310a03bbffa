package bench

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// make bench-h3 sets the same server's CPU per request over HTTP/1.1 with
// TLS, HTTP/2 and HTTP/3 side by side at fixed rates, open loop, each
// request due at its time (loadgen's pacer) whatever the protocol, so
// that the server sees the same arrivals in every row. HTTP/1.1 goes
// through loadgen's own TLS client; HTTP/2 and HTTP/3 through Go's
// clients (net/http's HTTP/2 and quic-go's http3), a goroutine per
// stream, on loadgen's pacer (loadgen -h2, -h3).

// A Protocol is one way of speaking HTTPS to the server: its loadgen
// flags, its connections and the requests in flight on each.
type Protocol struct {
	Name        string // the row's name: "h2-16" is HTTP/2, 16 streams a connection
	Flag        string // loadgen's: "" (HTTP/1.1 over its own TLS), "-h2" or "-h3"
	Connections int
	Streams     int
	// A handshake row's: a new connection per request (New), the session
	// of the slot's last one resumed (Resume), the request sent in 0-RTT
	// (Early).
	New, Resume, Early bool
}

// Protocols are make bench-h3's rows: each protocol on 50 connections one
// request at a time, and HTTP/2 and HTTP/3 multiplexing 16 streams on each
// of 4 connections, about as many requests in flight.
var Protocols = []Protocol{
	{Name: "h1-tls", Connections: 50, Streams: 1},
	{Name: "h2-1", Flag: "-h2", Connections: 50, Streams: 1},
	{Name: "h2-16", Flag: "-h2", Connections: 4, Streams: 16},
	{Name: "h3-1", Flag: "-h3", Connections: 50, Streams: 1},
	{Name: "h3-16", Flag: "-h3", Connections: 4, Streams: 16},
}

// Handshakes are make bench-h3's handshake rows, at -proto-new-rate: a new
// connection for each request, with a full TLS 1.3 handshake, a resumed
// one, and over HTTP/3 one whose request goes in 0-RTT. A row's CPU per
// request is its CPU per connection: handshake, request and close.
var Handshakes = []Protocol{
	{Name: "h1-tls-full", Connections: 50, Streams: 1, New: true},
	{Name: "h1-tls-resumed", Connections: 50, Streams: 1, New: true, Resume: true},
	{Name: "h3-full", Flag: "-h3", Connections: 50, Streams: 1, New: true},
	{Name: "h3-resumed", Flag: "-h3", Connections: 50, Streams: 1, New: true, Resume: true},
	{Name: "h3-0rtt", Flag: "-h3", Connections: 50, Streams: 1, New: true, Resume: true, Early: true},
}

// ProtoMax is the mode of BenchmarkProtocols' closed-loop rows: each
// protocol as fast as loadgen asks, a ceiling where the server's core was
// saturated.
const ProtoMax = "max"

// ProtocolByName returns the protocol of a row's name ("h2-1" for its A/A
// twin "h2-1/aa" too).
func ProtocolByName(name string) (Protocol, bool) {
	name, _ = strings.CutSuffix(name, TwinSuffix)
	for _, p := range slices.Concat(Protocols, Handshakes) {
		if p.Name == name {
			return p, true
		}
	}
	return Protocol{}, false
}

// ProtoClient is loadgen speaking one Protocol.
type ProtoClient struct {
	Loadgen
	Protocol Protocol
}

func (c ProtoClient) Name() string { return "loadgen " + c.Protocol.Name }

// Args are loadgen's arguments for l in c's protocol: Loadgen's, the
// protocol's flags before the URL.
func (c ProtoClient) Args(l Load) []string {
	p := c.Protocol
	l.Mode = KeepAlive
	if p.New {
		l.Mode = Close
	}
	g := c.Loadgen
	g.Resume = p.Resume
	args := g.Args(l)
	var extra []string
	if p.Flag != "" {
		extra = append(extra, p.Flag, "-streams", strconv.Itoa(p.Streams))
	}
	if p.Early {
		extra = append(extra, "-0rtt")
	}
	return slices.Insert(args, len(args)-1, extra...)
}

// Run runs loadgen with c's protocol flags and, in a handshake row, checks
// that every request had a handshake of the row's kind.
func (c ProtoClient) Run(l Load) (Stats, error) {
	st, err := c.Loadgen.runArgs(l, c.Args(l))
	if err == nil && c.Protocol.New {
		err = c.Protocol.fits(st, l.Connections)
	}
	return st, err
}

// fits checks loadgen's handshakes against a handshake row: one per
// request, none resumed in a full row, all but each slot's first resumed
// otherwise; in 0-RTT, most requests of resumed connections early. Not
// all: a request goes in 0-RTT only if the client sends it before its
// handshake ends, which on loopback it does about nine times in ten.
func (p Protocol) fits(st Stats, conns int) error {
	switch {
	case st.Handshakes < st.Requests:
		return fmt.Errorf("bench: %s: loadgen made %d handshakes for %d requests: want one each", p.Name, st.Handshakes, st.Requests)
	case !p.Resume && st.Resumed > 0:
		return fmt.Errorf("bench: %s: loadgen resumed %d of %d handshakes: want full ones", p.Name, st.Resumed, st.Handshakes)
	case p.Resume && st.Resumed < st.Handshakes-int64(conns):
		return fmt.Errorf("bench: %s: loadgen resumed %d of %d handshakes: did the server issue no tickets?", p.Name, st.Resumed, st.Handshakes)
	case p.Early && 2*st.EarlyData < st.Resumed:
		return fmt.Errorf("bench: %s: %d of %d resumed connections sent their request in 0-RTT: does the server refuse it?", p.Name, st.EarlyData, st.Resumed)
	}
	return nil
}
