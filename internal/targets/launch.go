package targets

import (
	_ "embed"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"text/template"

	"hellobench/internal/deps"
	"hellobench/page"
)

var (
	//go:embed refs/nginx.conf
	nginxConf string
	//go:embed refs/lighttpd-static.conf
	lighttpdStaticConf string
)

// goBinary starts bin/NAME with the contract's flags.
func goBinary(t Target, e Env, dir string) (launch, error) {
	bin := filepath.Join(e.Bin, t.binary())
	if _, err := os.Stat(bin); err != nil {
		return launch{}, fmt.Errorf("no binary %s: build it with go build -o %s %s (make build does)", bin, e.Bin+"/", t.Package)
	}
	args := append([]string{"-addr", e.Addr}, t.Args...)
	if e.HeaderTimeout > 0 {
		args = append(args, "-header-timeout", e.HeaderTimeout.String())
	}
	if e.IdleTimeout > 0 {
		args = append(args, "-idle-timeout", e.IdleTimeout.String())
	}
	if e.Bare {
		args = append(args, "-bare")
	}
	if e.Procs > 1 {
		args = append(args, t.MultiCore...)
	}
	if e.TLSCert != "" {
		args = append(args, "-tls-cert", e.TLSCert, "-tls-key", e.TLSKey)
	}
	if e.NoTickets {
		args = append(args, "-tls-tickets=false")
	}
	if e.H2C {
		args = append(args, "-h2c")
	}
	if e.H3 {
		args = append(args, "-h3")
	}
	args = append(args, workArgs(e)...)
	return launch{path: bin, args: args}, nil
}

// uringBinary is goBinary for a target on io_uring: missing where this
// process, and so its children, may not set up a ring.
func uringBinary(t Target, e Env, dir string) (launch, error) {
	if err := uringAvailable(); err != nil {
		return launch{}, fmt.Errorf("%s: %v (%w)", t.Name, err, ErrMissing)
	}
	return goBinary(t, e, dir)
}

// workArgs are the flags of the handler work e asks for: none for none.
func workArgs(e Env) []string {
	var args []string
	if e.Work.CPU != 0 {
		args = append(args, "-work-cpu", e.Work.CPU.String())
	}
	if e.Work.Wait != 0 {
		args = append(args, "-work-wait", e.Work.Wait.String())
	}
	if e.WaitInline {
		args = append(args, "-work-wait-inline")
	}
	return args
}

// fcgi starts lighttpd in front of the application the way `make
// serve-fcgi` does, through servers/fcgi/serve.sh, so that the script's
// signal handling and clean-up are what is run and tested. serve.sh
// copies the application next to its socket in TMPDIR; lighttpd and the
// application inherit the script's CPU set and GOMAXPROCS.
func fcgi(t Target, e Env, dir string) (launch, error) {
	if _, err := lookSbin("lighttpd"); err != nil {
		return launch{}, err
	}
	app := filepath.Join(e.Bin, t.Name)
	if _, err := os.Stat(app); err != nil {
		return launch{}, fmt.Errorf("no binary %s: build it with go build -o %s %s (make build does)", app, e.Bin+"/", t.Package)
	}
	script := filepath.Join(e.Root, "servers", "fcgi", "serve.sh")
	env := []string{"FCGI_BIN=" + app}
	if e.HeaderTimeout > 0 {
		env = append(env, "FCGI_HEADER_TIMEOUT="+seconds(e.HeaderTimeout))
	}
	if e.IdleTimeout > 0 {
		env = append(env, "FCGI_IDLE_TIMEOUT="+seconds(e.IdleTimeout))
	}
	if e.TLSCert != "" {
		env = append(env, "FCGI_TLS_CERT="+e.TLSCert, "FCGI_TLS_KEY="+e.TLSKey)
	}
	if e.NoTickets {
		env = append(env, "FCGI_TLS_TICKETS=off")
	}
	procs := e.Procs
	if procs <= 0 {
		procs = 1
	}
	// The first argument, the CPU list, is empty: the script is pinned.
	// What follows the address is the application's.
	args := append([]string{script, "", fmt.Sprint(procs), e.Addr}, workArgs(e)...)
	return launch{path: "sh", args: args, env: env}, nil
}

func nginx(_ Target, e Env, dir string) (launch, error) {
	bin, err := lookSbin("nginx")
	if err != nil {
		return launch{}, err
	}
	body, err := nginxBody(page.HTML)
	if err != nil {
		return launch{}, err
	}
	js, err := nginxBody(page.JSON)
	if err != nil {
		return launch{}, err
	}
	data := map[string]any{"Dir": dir, "Addr": e.Addr, "Body": body, "JSON": js, "Procs": max(e.Procs, 1)}
	if e.TLSCert != "" {
		if strings.ContainsAny(e.TLSCert+e.TLSKey, " \t\n;'\"{}$\\") {
			return launch{}, fmt.Errorf("nginx.conf cannot carry the TLS file names %q and %q as they are", e.TLSCert, e.TLSKey)
		}
		data["Cert"], data["Key"], data["NoTickets"] = e.TLSCert, e.TLSKey, e.NoTickets
		// nginx 1.25.1 turned "listen ... http2" into "http2 on".
		on, err := nginxHTTP2On(bin)
		if err != nil {
			return launch{}, err
		}
		data["HTTP2On"] = on
	}
	conf := filepath.Join(dir, "nginx.conf")
	if err := writeTemplate(conf, nginxConf, data); err != nil {
		return launch{}, err
	}
	return launch{path: bin, args: []string{"-p", dir, "-c", conf, "-e", "stderr"}}, nil
}

// nginxHTTP2On reports whether the nginx at bin takes the http2
// directive, which 1.25.1 brought, rather than listen's http2 parameter.
func nginxHTTP2On(bin string) (bool, error) {
	out, err := exec.Command(bin, "-v").CombinedOutput()
	if err != nil {
		return false, fmt.Errorf("%s -v: %v: %s", bin, err, out)
	}
	m := regexp.MustCompile(`nginx/(\d+)\.(\d+)\.(\d+)`).FindSubmatch(out)
	if m == nil {
		return false, fmt.Errorf("%s -v: no version in %q", bin, out)
	}
	var v [3]int
	for i := range v {
		v[i], _ = strconv.Atoi(string(m[i+1]))
	}
	return v[0] > 1 || v[0] == 1 && (v[1] > 25 || v[1] == 25 && v[2] >= 1), nil
}

// nginxBody quotes the page for nginx's return directive. Single quotes
// keep the page's double quotes and newlines; a $ would start a variable.
func nginxBody(b []byte) (string, error) {
	if strings.ContainsAny(string(b), `'\$`) {
		return "", errors.New(`the page contains ', \ or $, which nginx's return cannot carry verbatim`)
	}
	return "'" + string(b) + "'", nil
}

func lighttpdStatic(_ Target, e Env, dir string) (launch, error) {
	bin, err := lookSbin("lighttpd")
	if err != nil {
		return launch{}, err
	}
	host, port, err := net.SplitHostPort(e.Addr)
	if err != nil {
		return launch{}, err
	}
	root := filepath.Join(dir, "root", "hello")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return launch{}, err
	}
	if err := os.WriteFile(filepath.Join(root, "world"), page.HTML, 0o644); err != nil {
		return launch{}, err
	}
	conf := filepath.Join(dir, "lighttpd.conf")
	if err := writeTemplate(conf, lighttpdStaticConf, map[string]any{"Dir": dir, "Host": host, "Port": port, "User": dropUser(), "Procs": max(e.Procs, 1)}); err != nil {
		return launch{}, err
	}
	return launch{path: bin, args: []string{"-D", "-f", conf}}, nil
}

// dropUser returns the user lighttpd should become when started by root,
// or "" when it runs as the invoking user.
func dropUser() string {
	if os.Geteuid() != 0 {
		return ""
	}
	return "nobody"
}

// lookSbin finds a program that Debian puts in /usr/sbin, which a normal
// user's PATH may lack.
func lookSbin(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, d := range []string{"/usr/sbin", "/usr/local/sbin"} {
		p := filepath.Join(d, name)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s (%w)", deps.NotInstalled(name), ErrMissing)
}

func writeTemplate(path, text string, data any) error {
	t, err := template.New(filepath.Base(path)).Parse(text)
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := t.Execute(f, data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
