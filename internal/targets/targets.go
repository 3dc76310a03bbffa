// Package targets is the one table of what hellobench serves and measures:
// each of its servers and each reference, how it starts, which of its
// processes' CPU time and memory count, how it stops gracefully, and where
// it departs from the contract. The bench, the conformance and robustness
// suites and the Makefile (through bench/cmd/targets) all read it: adding a
// server is one entry here plus its folder under servers/.
package targets

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"syscall"
)

// A Kind says what a target is for.
type Kind int

const (
	Server    Kind = iota // a hellobench server under servers/, held to the contract
	Reference             // a yardstick the bench measures beside the servers
)

// A Target is one row of the table.
type Target struct {
	Name string
	Kind Kind
	// Port is the port `make serve-NAME` listens on by default.
	Port int
	// Package is the Go package built into bin/NAME, or "" when the target
	// is a program from Debian alone.
	Package string
	// Bin is the name of the binary Package builds, when it is not Name;
	// Args, the flags that make it this target.
	Bin  string
	Args []string
	// Bare says the server accepts -bare: it has framing guards of its own
	// that the flag turns off, so that "NAME/bare" is its stack out of the
	// box.
	Bare bool
	// Work says the server's handler takes -work-cpu and -work-wait
	// (page.Work): the same work before each answer in every stack.
	Work bool
	// WaitInline says the server also takes -work-wait-inline: its wait
	// blocks its event loop, the naive handler, instead of running off it.
	WaitInline bool
	// RouterOn names the server loop a router server runs on ("nethttp"
	// for gin): the report costs its router as its CPU beyond that loop's.
	RouterOn string
	// Gives says, in a line for the report, what the stack gives a real
	// application beyond the page: facts about the stack, not figures.
	Gives string
	// GoRuntime says the process that speaks HTTP is a Go program started
	// directly, so GODEBUG reaches its runtime (its collections can be
	// traced).
	GoRuntime bool
	// ServerHeader is the expected prefix of the Server header.
	ServerHeader string
	// Counted names the processes (by command name) whose CPU time and
	// memory are the target's; the first is the one that speaks HTTP. For
	// fcgi that is lighttpd and the application it spawns.
	Counted []string
	// Ready matches the line the target logs once it serves; nil: a
	// successful connection is enough.
	Ready *regexp.Regexp
	// Stop is the signal that stops the target gracefully.
	Stop syscall.Signal
	// DeathSig is what the kernel sends the target when the harness that
	// started it dies; 0: SIGKILL. A target with processes of its own to
	// stop (a script, a master) gets a signal that makes it stop them.
	DeathSig syscall.Signal
	// Deviations replace the contract's answer for a named case where the
	// stack legitimately answers otherwise; the suites assert the
	// replacement and log why.
	Deviations map[string]Deviation
	// LogAllowed matches the lines the target may log while serving; nil:
	// none beyond its start line.
	LogAllowed *regexp.Regexp
	// MultiCore are the flags of the stack's multi-core form, given when
	// the target runs with GOMAXPROCS above 1 (bench-scale).
	MultiCore []string
	// TLS says the target serves HTTPS when Env gives it a certificate:
	// a Go server through -tls-cert and -tls-key, with its stack's own
	// TLS; nginx and lighttpd through their configs. gnet has none.
	TLS bool
	// H2 says it also serves HTTP/2 over TLS to a client that asks by
	// ALPN; H2C, HTTP/2 over cleartext to a client with prior knowledge
	// when Env asks (-h2c: off by default, as the contract answers the
	// HTTP/2 preface 505).
	H2, H2C bool
	// H3 says it also serves HTTP/3 over QUIC, on the same port over UDP,
	// when Env asks (-h3, beside a certificate), and advertises it in
	// Alt-Svc on every answer over TCP.
	H3 bool
	// URing says the target drives io_uring, not epoll: the floor it is
	// read against is the io_uring floor, and where io_uring is refused it
	// is missing.
	URing bool
	// Lenient names the robustness tests (robust/) where the target's
	// front server is known to fall short, with why: the suite asserts
	// that the shortfall is still there, reports it, and checks the rest.
	Lenient map[string]string

	launch func(t Target, e Env, dir string) (launch, error)
}

// A Deviation is a documented, asserted departure from the contract.
type Deviation struct {
	Status int
	Why    string
}

// All is the table, servers first in port order, then the references.
var All = []Target{
	guarded(goServer("nethttp", 8080, nil)).withTLS(h2, h2c, h3).gives("the standard library: ServeMux routing with methods and wildcards, middleware as handler wrappers, HTTP/2 and TLS built in, every net/http handler in the ecosystem"),
	// fasthttp's multi-core form: -prefork, a child process per core.
	guarded(withMultiCore(goServer("fasthttp", 8081, nil), "-prefork")).withTLS().gives("its own HTTP/1.1 server and request types (not net/http handlers); TLS, no HTTP/2, no router of its own"),
	guarded(goServer("fiber", 8082, map[string]Deviation{
		"extension-method": {400, "fiber answers a method outside its configured RequestMethods with 400 before routing"},
	})).routerOn("fasthttp").withTLS().gives("an Express-style router and middleware on fasthttp; TLS, no HTTP/2; handlers are fiber's, not net/http's"),
	guarded(goServer("gin", 8083, nil)).routerOn("nethttp").withTLS(h2, h2c, h3).gives("a router with groups and parameters and a middleware chain on net/http, so HTTP/2 and TLS come from net/http; a large middleware ecosystem"),
	// gnet has no TLS (nor HTTP): no TLS here.
	goServer("gnet", 8084, nil).withWaitInline().gives("an event-loop networking library with no HTTP at all: the HTTP/1.1 parser here is this project's own (servers/internal/http1), so an application on it owns its HTTP, routing and TLS"),
	{
		Name: "fcgi", Kind: Server, Port: 8085, Package: "./servers/fcgi",
		ServerHeader: "lighttpd",
		Work:         true, // the application's flags, passed on by serve.sh
		Counted:      []string{"lighttpd", "fcgi"},
		// lighttpd listens before the application it spawned has started.
		Ready: regexp.MustCompile(`fcgi: listening on `),
		// serve.sh turns TERM into lighttpd's graceful stop.
		Stop:     syscall.SIGTERM,
		DeathSig: syscall.SIGTERM,
		Deviations: map[string]Deviation{
			"extension-method": {501, "lighttpd answers 501 Not Implemented to a method it does not know, before any module sees the request"},
		},
		// lighttpd logs every 431; no setting turns it off.
		LogAllowed: regexp.MustCompile(`oversized request-header -> sending Status 431$`),
		Lenient: map[string]string{
			"slowloris":            "lighttpd bounds the silence between reads (server.max-read-idle), not the whole header section: a client sending a header line within the timeout keeps its connection",
			"slow body":            "lighttpd bounds the silence between reads (server.max-read-idle), not the whole request: a body dripped within the timeout keeps its connection",
			"slow keep-alive body": "lighttpd bounds the silence between reads (server.max-read-idle), not the whole request: a body dripped within the timeout keeps its connection",
			"fd exhaustion":        "lighttpd logs a line each time it stops and resumes accepting at its descriptor limit; no setting quiets it",
		},
		// lighttpd's TLS (mod_openssl) and HTTP/2 by ALPN.
		TLS: true, H2: true,
		Gives:  "a net/http/fcgi application behind lighttpd, which brings TLS, HTTP/2 and static files; every request crosses a FastCGI socket",
		launch: fcgi,
	},
	guarded(goServer("echo", 8086, nil)).routerOn("nethttp").withTLS(h2, h2c, h3).gives("a router with groups, parameters and a middleware chain on net/http, with data binding and rendering helpers; HTTP/2 and TLS from net/http"),
	guarded(goServer("chi", 8087, nil)).routerOn("nethttp").withTLS(h2, h2c, h3).gives("a small router of net/http handlers: parameters, groups and middleware as plain http.Handler wrappers, so every net/http handler fits; HTTP/2 and TLS from net/http"),
	// hertz's TLS is on its standard transport (netpoll has none); its
	// HTTP/2 extension is not a module this project can fetch.
	guarded(goServer("hertz", 8088, nil)).withTLS().lenientIn(map[string]string{
		"slow body":                   "hertz bounds each wait for bytes (WithReadTimeout), not the whole request: a body dripped within the timeout keeps its connection",
		"slow keep-alive body":        "hertz bounds each wait for bytes (WithReadTimeout), not the whole request: a body dripped within the timeout keeps its connection",
		"many pipeliners, never read": "netpoll reads every connection's input into its buffers with no bound and no setting for one: requests sent and not answered take memory past the bound",
	}).gives("CloudWeGo's HTTP framework on its own event-loop transport (netpoll): its own request types and router, middleware, HTTP/1.1 (HTTP/2 and TLS through extensions or the standard transport)"),
	goServer("uring", 8089, nil).onURing().gives("the project's own event loop on io_uring (servers/uring) with the parser gnet uses: no library between the server and the kernel, so it owns its HTTP, routing and TLS; Linux only, and refused where a seccomp profile forbids io_uring"),
	// nbio's TLS, its own fork of crypto/tls (lesismal/llib), drops a
	// TLS 1.2 client that resumes a session: no TLS here.
	guarded(goServer("nbio", 8090, map[string]Deviation{
		"extension-method": {501, "nbhttp's parser knows nine methods and closes the connection without a word on any other; the guard answers 501 Not Implemented first"},
	})).gives("net/http's ServeMux and handlers on an epoll event loop (lesismal/nbio's nbhttp): one poller reads every connection and runs the handlers (a task pool, when they block), so an idle connection holds no goroutine; HTTP/1.1; TLS through nbio's own fork of crypto/tls, not served here"),
	{
		Name: "nginx", Kind: Reference, ServerHeader: "nginx",
		Counted: []string{"nginx"},
		TLS:     true, H2: true, // OpenSSL's TLS, HTTP/2 by ALPN
		Stop: syscall.SIGQUIT, // nginx's graceful stop; TERM is its fast one
		// A master (bench-scale) stops its workers on TERM; killed, it
		// would leave them serving.
		DeathSig: syscall.SIGTERM,
		launch:   nginx,
	},
	{
		Name: "lighttpd-static", Kind: Reference, ServerHeader: "lighttpd",
		Counted:  []string{"lighttpd"},
		Stop:     syscall.SIGINT,  // lighttpd's graceful stop; TERM drops requests in flight
		DeathSig: syscall.SIGTERM, // its workers (bench-scale) stop with it
		launch:   lighttpdStatic,
	},
	{
		Name: "floor", Kind: Reference, Package: "./bench/cmd/floor", ServerHeader: "floor",
		Counted: []string{"floor"},
		Ready:   regexp.MustCompile(`floor: listening on `),
		Stop:    syscall.SIGTERM,
		launch:  goBinary,
	},
	{
		// The same floor on io_uring; where the kernel or a seccomp
		// profile refuses io_uring, missing, as a tool not installed.
		Name: "floor-uring", Kind: Reference, Package: "./bench/cmd/floor", Bin: "floor", ServerHeader: "floor",
		Args:    []string{"-engine", "io_uring"},
		URing:   true,
		Counted: []string{"floor"},
		Ready:   regexp.MustCompile(`floor: listening on `),
		Stop:    syscall.SIGTERM,
		launch:  uringBinary,
	},
}

// goServer is the row of a Go server under servers/NAME: a binary taking
// the contract's flags and the handler work's, logging "NAME: listening on
// ..." once it serves.
func goServer(name string, port int, dev map[string]Deviation) Target {
	return Target{
		Name: name, Kind: Server, Port: port, Package: "./servers/" + name,
		ServerHeader: name,
		Work:         true,
		GoRuntime:    true,
		Counted:      []string{name},
		Ready:        regexp.MustCompile(name + `: listening on `),
		Stop:         syscall.SIGTERM,
		Deviations:   dev,
		launch:       goBinary,
	}
}

// guarded marks a server whose -bare turns its framing guards off.
func guarded(t Target) Target {
	t.Bare = true
	return t
}

// routerOn marks a router server and the loop it runs on.
func (t Target) routerOn(loop string) Target {
	t.RouterOn = loop
	return t
}

// onURing marks a server on io_uring: missing where it is refused, as a
// tool not installed.
func (t Target) onURing() Target {
	t.launch = uringBinary
	t.URing = true
	return t
}

// gives sets what the stack gives a real application.
func (t Target) gives(what string) Target {
	t.Gives = what
	return t
}

// lenientIn sets the robustness tests where the target falls short, and why.
func (t Target) lenientIn(why map[string]string) Target {
	t.Lenient = why
	return t
}

// withWaitInline marks a server that takes -work-wait-inline.
func (t Target) withWaitInline() Target {
	t.WaitInline = true
	return t
}

// The HTTP/2 and HTTP/3 a TLS server serves, for withTLS.
const (
	h2  = "h2"  // over TLS, by ALPN
	h2c = "h2c" // over cleartext, with prior knowledge, given -h2c
	h3  = "h3"  // over QUIC on the same port, given -h3
)

// withTLS marks a server that takes -tls-cert and -tls-key, and the
// HTTP/2 and HTTP/3 it serves.
func (t Target) withTLS(protos ...string) Target {
	t.TLS = true
	t.H2 = slices.Contains(protos, h2)
	t.H2C = slices.Contains(protos, h2c)
	t.H3 = slices.Contains(protos, h3)
	return t
}

// CheckTLS returns an error unless t serves HTTPS, naming those that do.
func (t Target) CheckTLS() error {
	if t.TLS {
		return nil
	}
	return fmt.Errorf("%s serves no HTTPS (those that do: %s)", t.Name, strings.Join(ServingTLS(), ", "))
}

// CheckH2C returns an error unless t serves h2c, naming those that do.
func (t Target) CheckH2C() error {
	if t.H2C {
		return nil
	}
	return fmt.Errorf("%s serves no HTTP/2 over cleartext (those that do: %s)", t.Name,
		strings.Join(namesWhere(func(t Target) bool { return t.H2C }), ", "))
}

// CheckH3 returns an error unless t serves HTTP/3, naming those that do.
func (t Target) CheckH3() error {
	if t.H3 {
		return nil
	}
	return fmt.Errorf("%s serves no HTTP/3 (those that do: %s)", t.Name, strings.Join(ServingH3(), ", "))
}

// ServingH3 returns the names of the targets that serve HTTP/3, in table
// order.
func ServingH3() []string {
	return namesWhere(func(t Target) bool { return t.H3 })
}

// ServingTLS returns the names of the targets that serve HTTPS, in table
// order.
func ServingTLS() []string {
	return namesWhere(func(t Target) bool { return t.TLS })
}

func withMultiCore(t Target, flags ...string) Target {
	t.MultiCore = flags
	return t
}

// Lookup returns the named target.
func Lookup(name string) (Target, error) {
	for _, t := range All {
		if t.Name == name {
			return t, nil
		}
	}
	return Target{}, fmt.Errorf("unknown target %q (known: %s)", name, strings.Join(Names(), ", "))
}

// CheckBare returns an error unless t can run bare (-bare), naming those
// that can.
func (t Target) CheckBare() error {
	if t.Bare {
		return nil
	}
	return fmt.Errorf("%s has no -bare (those that do: %s)", t.Name, strings.Join(Guarded(), ", "))
}

// Guarded returns the names of the servers that accept -bare, in table
// order.
func Guarded() []string {
	return namesWhere(func(t Target) bool { return t.Bare })
}

// CheckWork returns an error unless t takes -work-cpu and -work-wait,
// naming those that do.
func (t Target) CheckWork() error {
	if t.Work {
		return nil
	}
	return fmt.Errorf("%s takes no -work-cpu or -work-wait (those that do: %s)", t.Name, strings.Join(Working(), ", "))
}

// CheckWaitInline returns an error unless t takes -work-wait-inline,
// naming those that do.
func (t Target) CheckWaitInline() error {
	if t.WaitInline {
		return nil
	}
	return fmt.Errorf("%s has no -work-wait-inline (those that do: %s)", t.Name,
		strings.Join(namesWhere(func(t Target) bool { return t.WaitInline }), ", "))
}

// Working returns the names of the servers that take -work-cpu and
// -work-wait, in table order.
func Working() []string {
	return namesWhere(func(t Target) bool { return t.Work })
}

func namesWhere(ok func(Target) bool) []string {
	var names []string
	for _, t := range All {
		if ok(t) {
			names = append(names, t.Name)
		}
	}
	return names
}

// Names returns the names of the targets of the given kinds (all when
// none is given), in table order.
func Names(kinds ...Kind) []string {
	var names []string
	for _, t := range All {
		if len(kinds) == 0 || slices.Contains(kinds, t.Kind) {
			names = append(names, t.Name)
		}
	}
	return names
}

// Servers returns the rows of the hellobench servers.
func Servers() []Target {
	var s []Target
	for _, t := range All {
		if t.Kind == Server {
			s = append(s, t)
		}
	}
	return s
}
