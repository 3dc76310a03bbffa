package bench

// The modes and clients of BenchmarkTLS: what each TLS mode asks of the
// client, and which client does it.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"hellobench/internal/certs"
	"hellobench/internal/targets"
)

// The TLS modes, in report order. Each is a Mode of its own, so that a
// Load carries it to TLSClient and the report reads it from the
// benchmark's name.
const (
	TLSKeepAlive Mode = "tls-keepalive" // HTTP/1.1 keep-alive over TLS 1.3
	TLSPipeline  Mode = "tls-pipeline"  // HTTP/1.1 pipelined at PipelineDepth over TLS 1.3
	// TLSResumed is a new connection per request over TLS 1.3, each
	// resuming the session of the one before with the server's ticket
	// (PSK with ECDHE): wrk keeps its session across its reconnections
	// (SSL_clear keeps it and OpenSSL offers it again), which a server
	// counting tls.ConnectionState.DidResume confirmed: all but the first
	// handshake of each connection resumed.
	TLSResumed Mode = "tls-resumed"
	// TLSFull is a new connection per request with a full TLS 1.3
	// handshake: wrk again, against a server started without session
	// tickets (NoTickets), so that wrk has no session to offer back. No
	// installed client makes full TLS 1.3 handshakes on demand: wrk and
	// h2load both resume whenever the server sent a ticket, and a client's
	// NoTicket option does not stop that in TLS 1.3.
	TLSFull Mode = "tls-full"
	// TLS12Full is TLSFull in TLS 1.2 with ECDHE-ECDSA-AES128-GCM-SHA256
	// (ECDHE-RSA with an RSA certificate): -tls12's second row.
	TLS12Full Mode = "tls12-full"
	TLS12     Mode = "tls12-keepalive" // keep-alive over TLS 1.2 with ECDHE-ECDSA-AES128-GCM-SHA256: -tls12's first row
	TLSH2One  Mode = "h2-1"            // HTTP/2 over TLS, 1 stream per connection
	TLSH2Many Mode = "h2-16"           // HTTP/2 over TLS, 16 concurrent streams per connection
	H2COne    Mode = "h2c-1"           // HTTP/2 in cleartext (prior knowledge), 1 stream
	H2CMany   Mode = "h2c-16"          // HTTP/2 in cleartext, 16 streams
	h2Streams      = PipelineDepth
)

// RSASuffix ends the mode of a row measured with an RSA-2048 certificate
// (-tls-key-type rsa) in a benchmark's name: "nethttp/tls-full-rsa".
const RSASuffix = "-rsa"

// TLSModes lists the TLS modes of a default run, in report order
// (TLS12Modes run only with -tls12).
var TLSModes = []Mode{TLSKeepAlive, TLSPipeline, TLSResumed, TLSFull, TLSH2One, TLSH2Many, H2COne, H2CMany}

// TLS12Modes are the modes -tls12 adds, in report order.
var TLS12Modes = []Mode{TLS12, TLS12Full}

// NoTickets says the servers of mode m are started without session
// tickets, so that each of its handshakes is a full one.
func NoTickets(m Mode) bool { return m == TLSFull || m == TLS12Full }

// Cleartext says the mode runs over plain TCP (h2c): the server gets no
// certificate, and the reference nginx, which has no h2c, runs the same
// streams over TLS.
func Cleartext(m Mode) bool { return m == H2COne || m == H2CMany }

// RefMode is the mode the reference nginx runs beside a target in m.
func RefMode(m Mode) Mode {
	switch m {
	case H2COne:
		return TLSH2One
	case H2CMany:
		return TLSH2Many
	}
	return m
}

// Serves says whether t can be measured in m, or why not.
func Serves(t targets.Target, m Mode) (bool, string) {
	switch {
	case Cleartext(m) && !t.H2C:
		return false, t.Name + " serves no h2c"
	case !t.TLS:
		return false, t.Name + " serves no TLS"
	case (m == TLSH2One || m == TLSH2Many) && !t.H2:
		return false, t.Name + " serves no HTTP/2"
	}
	return true, ""
}

// TLSClient runs a TLS mode's client, one of the mode's Candidates:
// wrk and h2load (--h1 for HTTP/1.1), one thread each on OpenSSL, nginx's
// own library; or loadgen, whose TLS 1.3 client reuses its key share and
// does not authenticate the server, so that a handshake costs it less than
// the server (bench/loadgen/handshake.go). BenchmarkTLS picks among them
// by measurement on the reference nginx (pickClient). None verifies the
// server's certificate, so the self-signed one of the run needs no trust.
type TLSClient struct {
	Wrk     Wrk
	H2load  H2load
	Loadgen Loadgen
	// Conf12 is an OPENSSL_CONF file: TLS 1.2 with the row's cipher.
	Conf12 string
	// Pick is the client of the mode run, if it is one of the mode's
	// Candidates; otherwise the first of them runs.
	Pick string
}

func (c TLSClient) Name() string { return "tls" }

// Uses names the client a mode runs on, for the report.
func (c TLSClient) Uses(m Mode) string {
	cs := Candidates(m)
	if slices.Contains(cs, c.Pick) {
		return c.Pick
	}
	return cs[0]
}

// Candidates lists the clients that can run m, the default first: HTTP/2
// is h2load's alone (wrk and loadgen speak HTTP/1.1), TLS 1.2 OpenSSL's
// (loadgen speaks TLS 1.3), and before nghttp2 1.64 a timed h2load run
// with a new connection per request never ends (H2load.Unsupported).
func Candidates(m Mode) []string {
	switch m {
	case TLSKeepAlive, TLSPipeline:
		return []string{"wrk", "h2load", "loadgen"}
	case TLS12:
		return []string{"wrk", "h2load"}
	case TLSResumed, TLSFull:
		return []string{"wrk", "loadgen"}
	case TLS12Full:
		return []string{"wrk"}
	}
	return []string{"h2load"}
}

// Run runs l in its TLS mode.
func (c TLSClient) Run(l Load) (Stats, error) {
	m := l.Mode
	w, h := c.Wrk, c.H2load
	if l.Duration <= 0 {
		// A warm-up of a count of requests (-warmup): these clients run
		// for a duration, and wrk in whole seconds.
		l.Requests, l.Duration = 0, time.Second
	}
	switch m {
	case TLSKeepAlive:
		l.Mode = KeepAlive
	case TLSPipeline:
		l.Mode = Pipeline
	case TLSResumed:
		l.Mode = Close
	case TLSFull:
		l.Mode = Close
	case TLS12Full:
		l.Mode = Close
		w.Env = append(w.Env, "OPENSSL_CONF="+c.Conf12)
	case TLS12:
		l.Mode = KeepAlive
		w.Env = append(w.Env, "OPENSSL_CONF="+c.Conf12)
		h.Env = append(h.Env, "OPENSSL_CONF="+c.Conf12)
	case TLSH2One, H2COne:
		l.Mode, h.Streams = KeepAlive, 1
	case TLSH2Many, H2CMany:
		l.Mode, h.Streams = KeepAlive, h2Streams
	default:
		return Stats{}, fmt.Errorf("bench: no TLS mode %q", m)
	}
	switch c.Uses(m) {
	case "h2load":
		return h.Run(l)
	case "loadgen":
		g := c.Loadgen
		g.Resume = m == TLSResumed
		st, err := g.Run(l)
		if err == nil {
			err = handshakesFit(m, st, l.Connections)
		}
		return st, err
	}
	return w.Run(l)
}

// handshakesFit checks that loadgen's handshakes were the mode's: a full
// one per request in TLSFull, a resumed one in TLSResumed (but for each
// connection's first).
func handshakesFit(m Mode, st Stats, conns int) error {
	switch {
	case m == TLSFull && (st.Resumed > 0 || st.Handshakes < st.Requests):
		return fmt.Errorf("bench: %s: loadgen made %d handshakes, %d of them resumed, for %d requests: want a full one each", m, st.Handshakes, st.Resumed, st.Requests)
	case m == TLSResumed && (st.Handshakes < st.Requests || st.Resumed < st.Handshakes-int64(conns)):
		return fmt.Errorf("bench: %s: loadgen resumed %d of %d handshakes for %d requests: did the server issue no tickets?", m, st.Resumed, st.Handshakes, st.Requests)
	}
	return nil
}

// TLSConf writes TLSClient's OPENSSL_CONF file into dir, for a
// certificate of kind k: TLS 1.2 with ECDHE and AES-128-GCM, signed as the
// certificate is.
func TLSConf(dir string, k certs.Kind) (string, error) {
	cipher := "ECDHE-ECDSA-AES128-GCM-SHA256"
	if k == certs.RSA {
		cipher = "ECDHE-RSA-AES128-GCM-SHA256"
	}
	conf := filepath.Join(dir, "tls12.cnf")
	const text = "openssl_conf = conf\n[conf]\nssl_conf = ssl\n[ssl]\nsystem_default = sys\n[sys]\nMaxProtocol = TLSv1.2\nCipherString = %s\n"
	if err := os.WriteFile(conf, fmt.Appendf(nil, text, cipher), 0o644); err != nil {
		return "", err
	}
	return conf, nil
}
