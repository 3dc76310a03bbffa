package bench

import (
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
}

// Protocols are make bench-h3's rows: each protocol on 50 connections one
// request at a time, and HTTP/2 and HTTP/3 multiplexing 16 streams on each
// of 4 connections, about as many requests in flight.
var Protocols = []Protocol{
	{"h1-tls", "", 50, 1},
	{"h2-1", "-h2", 50, 1},
	{"h2-16", "-h2", 4, 16},
	{"h3-1", "-h3", 50, 1},
	{"h3-16", "-h3", 4, 16},
}

// ProtocolByName returns the protocol of a row's name ("h2-1" for its A/A
// twin "h2-1/aa" too).
func ProtocolByName(name string) (Protocol, bool) {
	name, _ = strings.CutSuffix(name, TwinSuffix)
	i := slices.IndexFunc(Protocols, func(p Protocol) bool { return p.Name == name })
	if i < 0 {
		return Protocol{}, false
	}
	return Protocols[i], true
}

// ProtoClient is loadgen speaking one Protocol, keep-alive.
type ProtoClient struct {
	Loadgen
	Protocol Protocol
}

func (c ProtoClient) Name() string { return "loadgen " + c.Protocol.Name }

// Args are loadgen's arguments for l in c's protocol: Loadgen's, the
// protocol's flags before the URL.
func (c ProtoClient) Args(l Load) []string {
	l.Mode = KeepAlive
	args := c.Loadgen.Args(l)
	var extra []string
	if c.Protocol.Flag != "" {
		extra = append(extra, c.Protocol.Flag, "-streams", strconv.Itoa(c.Protocol.Streams))
	}
	return slices.Insert(args, len(args)-1, extra...)
}

// Run runs loadgen with c's protocol flags.
func (c ProtoClient) Run(l Load) (Stats, error) {
	l.Mode = KeepAlive
	return c.Loadgen.runArgs(l, c.Args(l))
}
