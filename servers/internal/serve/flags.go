// Package serve is the wiring the servers share around their stack's own
// hello world, so that each main.go shows that hello world first: the
// flags, their one check, and, for the servers on net/http's http.Server,
// the server with the contract's limits, the framing guards, TLS, h2c,
// HTTP/3 and the graceful drain (http.go).
//
// A server on net/http registers its flags with HTTPFlags and serves its
// router with HTTP:
//
//	f := serve.HTTPFlags("gin", ":8083", "gin on net/http", &work)
//	f.Parse()
//	serve.HTTP(f, newRouter())
//
// The servers on fasthttp register theirs with FastHTTPFlags; the others
// register the flags they take one group at a time (New, BareFlag,
// TLSFlags, HTTP2Flags, Work, Check). Those serve on their own.
package serve

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"hellobench/page"
	"hellobench/servers/internal/h3serve"
	"hellobench/servers/internal/timeouts"
	"hellobench/servers/internal/tlsflag"
)

// Usage of -header-timeout, which servers bound in two ways.
const (
	// HeaderBody is the usage where the timeout runs until a request's
	// body is read.
	HeaderBody = "close a connection whose request, body included, is not complete within this `duration` of its first byte"
	// HeaderRequest is the usage where the stack's own read timeout bounds
	// the request.
	HeaderRequest = "close a connection whose request is not complete within this `duration`"
)

// BareUsage is the usage of -bare for a server with framing guards.
const BareUsage = "serve as the stack does out of the box, without this server's framing guards (for the robustness report)"

// Flags are the values of the flags the servers share, once parsed.
type Flags struct {
	Name          string        // the server's, in messages and in its Server header
	Addr          string        // -addr
	HeaderTimeout time.Duration // -header-timeout
	IdleTimeout   time.Duration // -idle-timeout
	Bare          bool          // -bare: the stack as it comes, no guard
	TLS           *tls.Config   // from -tls-cert, -tls-key, -tls-tickets; nil: none
	H2C           bool          // -h2c
	H3            bool          // -h3

	certFile, keyFile string
	tickets           bool
	tlsOn, h3On       bool           // TLSFlags, HTTP2Flags registered
	checks            []func() error // run by Parse, in order
}

// New registers on flag.CommandLine -addr, listening on addr by default,
// -header-timeout with usage headerUsage (HeaderBody or HeaderRequest), and
// -idle-timeout, for server name.
func New(name, addr, headerUsage string) *Flags {
	f := &Flags{Name: name}
	flag.StringVar(&f.Addr, "addr", addr, "listen `address`")
	flag.DurationVar(&f.HeaderTimeout, "header-timeout", 10*time.Second, headerUsage)
	flag.DurationVar(&f.IdleTimeout, "idle-timeout", 60*time.Second, "close a keep-alive connection idle for this `duration`")
	f.Check(func() error { return timeouts.Check(f.HeaderTimeout, f.IdleTimeout) })
	return f
}

// FastHTTPFlags registers the flags of a server on fasthttp, named name,
// listening on addr by default: New's, -bare, the TLS flags and work's.
func FastHTTPFlags(name, addr string, work *page.Work) *Flags {
	f := New(name, addr, HeaderRequest)
	f.BareFlag(BareUsage)
	f.TLSFlags("serve HTTPS (HTTP/1.1; " + name + " has no HTTP/2) with the certificate in this PEM `file` (with -tls-key)")
	f.Work(work)
	return f
}

// BareFlag registers -bare with usage.
func (f *Flags) BareFlag(usage string) {
	flag.BoolVar(&f.Bare, "bare", false, usage)
}

// TLSFlags registers -tls-cert, with usage certUsage, -tls-key and
// -tls-tickets; Parse loads them into f.TLS.
func (f *Flags) TLSFlags(certUsage string) {
	flag.StringVar(&f.certFile, "tls-cert", "", certUsage)
	flag.StringVar(&f.keyFile, "tls-key", "", "the private key of -tls-cert, a PEM `file`")
	flag.BoolVar(&f.tickets, "tls-tickets", true, "issue TLS session tickets, so that a client can resume its session; false makes every new connection a full handshake")
	f.tlsOn = true
}

// HTTP2Flags registers -h2c and -h3, which need TLSFlags.
func (f *Flags) HTTP2Flags() {
	flag.BoolVar(&f.H2C, "h2c", false, "also serve HTTP/2 over cleartext to clients with prior knowledge (h2c); without it the HTTP/2 preface gets 505, as the contract asks")
	flag.BoolVar(&f.H3, "h3", false, "also serve HTTP/3 on the same port over UDP (QUIC; needs -tls-cert and -tls-key); every answer over TCP then advertises it in Alt-Svc")
	f.h3On = true
}

// Work registers w's flags, -work-cpu and -work-wait, and their check.
func (f *Flags) Work(w *page.Work) {
	w.Flags(flag.CommandLine)
	// Not f.Check(w.Check): Check has a value receiver, so the method
	// value would check w as it is now, before parsing.
	f.Check(func() error { return w.Check() })
}

// Check adds a check that Parse runs after parsing.
func (f *Flags) Check(check func() error) {
	f.checks = append(f.checks, check)
}

// Parse parses the command line, runs the checks, and loads the TLS
// configuration; on any error it exits as Exit does.
func (f *Flags) Parse() {
	flag.Parse()
	var errs []error
	for _, check := range f.checks {
		errs = append(errs, check())
	}
	if f.tlsOn {
		var err error
		f.TLS, err = tlsflag.Load(f.certFile, f.keyFile, f.tickets)
		errs = append(errs, err)
		if f.h3On && err == nil { // with no certificate loaded, -h3 has its own say
			errs = append(errs, h3serve.Check(f.H3, f.TLS))
		}
	}
	Exit(f.Name, errs...)
}

// NoArgs returns an error if the command line has arguments after its
// flags, for a server that takes none.
func NoArgs() error {
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", flag.Args())
	}
	return nil
}

// Exit returns if every one of errs is nil. Otherwise it prints each error
// on a line of its own, after server name, on stderr, and exits with
// status 2, as the flag package does for a flag it cannot parse.
func Exit(name string, errs ...error) {
	err := errors.Join(errs...)
	if err == nil {
		return
	}
	fmt.Fprintf(os.Stderr, "%s: %s\n", name, strings.ReplaceAll(err.Error(), "\n", "\n"+name+": "))
	os.Exit(2)
}
