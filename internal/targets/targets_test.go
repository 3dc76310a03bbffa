package targets

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"hellobench/page"
)

// TestTableMatchesTree checks that every folder under servers/ is a row of
// the table and every row's package exists: a server cannot be added or
// removed in one place only.
func TestTableMatchesTree(t *testing.T) {
	ents, err := os.ReadDir("../../servers")
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range ents {
		// servers/internal holds the guards two servers on the same
		// stack share; it is not a server.
		if e.IsDir() && e.Name() != "internal" {
			dirs = append(dirs, e.Name())
		}
	}
	servers := Names(Server)
	slices.Sort(dirs)
	sorted := slices.Sorted(slices.Values(servers))
	if !slices.Equal(dirs, sorted) {
		t.Errorf("servers/ holds %v, the table's servers are %v", dirs, sorted)
	}
	for _, tg := range All {
		if tg.Package != "" {
			if _, err := os.Stat("../../" + tg.Package); err != nil {
				t.Errorf("%s: package %s: %v", tg.Name, tg.Package, err)
			}
		}
		if len(tg.Counted) == 0 || tg.Stop == 0 || tg.launch == nil || tg.ServerHeader == "" {
			t.Errorf("%s: incomplete row %+v", tg.Name, tg)
		}
		if tg.Kind == Server && tg.Port == 0 {
			t.Errorf("%s: a server without its own port", tg.Name)
		}
	}
}

func TestLookup(t *testing.T) {
	tg, err := Lookup("fcgi")
	if err != nil || tg.Name != "fcgi" || !slices.Equal(tg.Counted, []string{"lighttpd", "fcgi"}) {
		t.Errorf("Lookup(fcgi) = %+v, %v", tg, err)
	}
	_, err = Lookup("apache")
	if err == nil || !strings.Contains(err.Error(), `unknown target "apache" (known: nethttp, fasthttp, fiber, gin, gnet, fcgi, echo, chi, hertz, uring, nbio, nginx, lighttpd-static, floor, floor-uring)`) {
		t.Errorf("Lookup(apache): %v", err)
	}
}

// TestWork checks the table's work columns: every server takes the handler
// work and no reference does; only gnet has an event loop to wait on. And
// Start refuses, before starting anything, work a target does not take or
// out of range.
func TestWork(t *testing.T) {
	for _, tg := range All {
		if tg.Work != (tg.Kind == Server) {
			t.Errorf("%s: Work %v for a %v", tg.Name, tg.Work, map[Kind]string{Server: "server", Reference: "reference"}[tg.Kind])
		}
	}
	if got := namesWhere(func(t Target) bool { return t.WaitInline }); !slices.Equal(got, []string{"gnet"}) {
		t.Errorf("-work-wait-inline: %v, want gnet", got)
	}
	nethttp, _ := Lookup("nethttp")
	nginx, _ := Lookup("nginx")
	wait := page.Work{Wait: time.Millisecond}
	for _, tc := range []struct {
		tg   Target
		e    Env
		want string
	}{
		{nginx, Env{Work: page.Work{CPU: time.Microsecond}}, "nginx takes no -work-cpu or -work-wait (those that do: nethttp, fasthttp, fiber, gin, gnet, fcgi, echo, chi, hertz, uring, nbio)"},
		{nginx, Env{WaitInline: true}, "nginx takes no -work-cpu or -work-wait"},
		{nethttp, Env{Work: wait, WaitInline: true}, "nethttp has no -work-wait-inline (those that do: gnet)"},
		{nethttp, Env{Work: page.Work{CPU: -time.Microsecond, Wait: 11 * time.Second}}, "nethttp: -work-cpu -1µs: want 0 to 10s; -work-wait 11s: want 0 to 10s"},
	} {
		if _, err := tc.tg.Start(tc.e); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s with %+v: %v, want %q", tc.tg.Name, tc.e, err, tc.want)
		}
	}
}

// TestWorkArgs checks the command lines that carry the work: none without
// it; for a Go server, its flags; for fcgi, the application's arguments
// after serve.sh's own.
func TestWorkArgs(t *testing.T) {
	bin := t.TempDir()
	for _, name := range []string{"gnet", "fcgi"} {
		if err := os.WriteFile(filepath.Join(bin, name), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e := Env{Root: "/r", Bin: bin, Addr: "127.0.0.1:1", Work: page.Work{CPU: 20 * time.Microsecond, Wait: time.Millisecond}}
	work := []string{"-work-cpu", "20µs", "-work-wait", "1ms"}
	gnet, _ := Lookup("gnet")
	for _, tc := range []struct {
		e    Env
		want []string
	}{
		{Env{Bin: bin, Addr: "127.0.0.1:1"}, []string{"-addr", "127.0.0.1:1"}},
		{e, append([]string{"-addr", "127.0.0.1:1"}, work...)},
		{Env{Bin: bin, Addr: "127.0.0.1:1", Work: page.Work{Wait: time.Second}, WaitInline: true}, []string{"-addr", "127.0.0.1:1", "-work-wait", "1s", "-work-wait-inline"}},
	} {
		l, err := goBinary(gnet, tc.e, "")
		if err != nil || !slices.Equal(l.args, tc.want) {
			t.Errorf("gnet with %+v: %q, %v; want %q", tc.e, l.args, err, tc.want)
		}
	}
	fcgiRow, _ := Lookup("fcgi")
	l, err := fcgi(fcgiRow, e, "")
	if errors.Is(err, ErrMissing) {
		t.Skip(err)
	}
	if want := append([]string{"/r/servers/fcgi/serve.sh", "", "1", "127.0.0.1:1"}, work...); err != nil || !slices.Equal(l.args, want) {
		t.Errorf("fcgi: %q, %v; want %q", l.args, err, want)
	}
}

// TestTLS checks the table's TLS columns (every server but gnet and uring
// serves HTTPS, the references nginx; HTTP/2 by ALPN on the servers on
// net/http, fcgi and nginx; h2c and HTTP/3 on the servers on net/http
// alone), that Start refuses what a target does not serve before starting
// anything, and the command lines and configs that carry the certificate.
func TestTLS(t *testing.T) {
	want := map[string][4]bool{ // TLS, H2, H2C, H3
		"nethttp": {true, true, true, true}, "fasthttp": {true, false, false, false}, "fiber": {true, false, false, false},
		"gin": {true, true, true, true}, "gnet": {}, "fcgi": {true, true, false, false},
		"echo": {true, true, true, true}, "chi": {true, true, true, true}, "hertz": {true, false, false, false},
		"uring": {}, "nbio": {}, "nginx": {true, true, false, false}, "lighttpd-static": {}, "floor": {}, "floor-uring": {},
	}
	for _, tg := range All {
		w, ok := want[tg.Name]
		if got := [4]bool{tg.TLS, tg.H2, tg.H2C, tg.H3}; !ok || got != w {
			t.Errorf("%s: TLS, H2, H2C, H3 %v, want %v", tg.Name, got, w)
		}
	}
	gnet, _ := Lookup("gnet")
	fasthttp, _ := Lookup("fasthttp")
	nethttp, _ := Lookup("nethttp")
	for _, tc := range []struct {
		tg   Target
		e    Env
		want string
	}{
		{gnet, Env{TLSCert: "c.pem", TLSKey: "k.pem"}, "gnet serves no HTTPS (those that do: nethttp, fasthttp, fiber, gin, fcgi, echo, chi, hertz, nginx)"},
		{fasthttp, Env{H2C: true}, "fasthttp serves no HTTP/2 over cleartext (those that do: nethttp, gin, echo, chi)"},
		{nethttp, Env{TLSCert: "c.pem"}, `nethttp: a TLS certificate and key go together: got certificate "c.pem", key ""`},
		{fasthttp, Env{TLSCert: "c.pem", TLSKey: "k.pem", H3: true}, "fasthttp serves no HTTP/3 (those that do: nethttp, gin, echo, chi)"},
		{nethttp, Env{H3: true}, "nethttp: HTTP/3 runs over TLS 1.3: give a TLS certificate and key"},
	} {
		if _, err := tc.tg.Start(tc.e); err == nil || err.Error() != tc.want {
			t.Errorf("%s with %+v: %v, want %q", tc.tg.Name, tc.e, err, tc.want)
		}
	}

	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "nethttp"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	l, err := goBinary(nethttp, Env{Bin: bin, Addr: "127.0.0.1:1", TLSCert: "/c.pem", TLSKey: "/k.pem", H2C: true, H3: true}, "")
	if want := []string{"-addr", "127.0.0.1:1", "-tls-cert", "/c.pem", "-tls-key", "/k.pem", "-h2c", "-h3"}; err != nil || !slices.Equal(l.args, want) {
		t.Errorf("nethttp: %q, %v; want %q", l.args, err, want)
	}

	nginx, _ := Lookup("nginx")
	dir := t.TempDir()
	if _, err := nginx.launch(nginx, Env{Addr: "127.0.0.1:1", TLSCert: "/c.pem", TLSKey: "/k.pem"}, dir); err != nil {
		if errors.Is(err, ErrMissing) {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	conf, err := os.ReadFile(filepath.Join(dir, "nginx.conf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"ssl_certificate /c.pem;", "ssl_certificate_key /k.pem;", "ssl_protocols TLSv1.2 TLSv1.3;"} {
		if !strings.Contains(string(conf), line) {
			t.Errorf("nginx.conf lacks %q:\n%s", line, conf)
		}
	}
	if !regexp.MustCompile(`listen 127\.0\.0\.1:1 ssl( http2;|;\s+http2 on;)`).Match(conf) {
		t.Errorf("nginx.conf listens without ssl and HTTP/2:\n%s", conf)
	}
	if _, err := nginx.launch(nginx, Env{Addr: "127.0.0.1:1", TLSCert: "/a b.pem", TLSKey: "/k.pem"}, dir); err == nil {
		t.Error("nginx: a certificate file name with a space went into nginx.conf")
	}
}
