// Command serve runs one target of the table (internal/targets) in the
// foreground, pinned to a CPU set with GOMAXPROCS, as `make serve-NAME`
// does: it prints the URL to point a client at, passes the target's output
// through, and turns Ctrl-C (SIGINT) or SIGTERM into the target's graceful
// stop, saying when it is done. A second signal kills it.
//
// Usage:
//
//	serve [-cpu 0] [-procs 1] [-addr :PORT] [-tls [-h3]] NAME
//
// With -tls (`make serve-NAME TLS=1`) a target that serves HTTPS serves
// it, with a self-signed ECDSA certificate for 127.0.0.1 and localhost
// written into a temporary directory that serve removes on its way out;
// serve prints the https URL and the certificate's file, for a client to
// trust (curl --cacert FILE). With -h3 as well (`make serve-NAME TLS=1
// H3=1`) a target that serves HTTP/3 serves it too, on the same port over
// UDP, and serve prints how to reach it; on another target, or without
// -tls, serve exits 2 with one line saying why.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"hellobench/bench"
	"hellobench/internal/certs"
	"hellobench/internal/proc"
	"hellobench/internal/targets"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("serve: ")
	cpus := flag.String("cpu", "0", "taskset CPU `list` to pin the server to (\"\": not pinned)")
	procs := flag.Int("procs", 1, "the server's GOMAXPROCS")
	addr := flag.String("addr", "", "listen `address` (default: the target's own port on every interface)")
	useTLS := flag.Bool("tls", false, "serve HTTPS with a certificate generated for this run (targets that serve HTTPS: "+strings.Join(targets.ServingTLS(), ", ")+")")
	useH3 := flag.Bool("h3", false, "with -tls, serve HTTP/3 too, on the same port over UDP (targets that serve HTTP/3: "+strings.Join(targets.ServingH3(), ", ")+")")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: serve [-cpu 0] [-procs 1] [-addr :PORT] [-tls [-h3]] NAME\nNAME: one of %v\n", targets.Names())
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	t, err := targets.Lookup(flag.Arg(0))
	if err != nil {
		log.Fatal(err)
	}
	if *useH3 {
		// Bad usage, as the flag package exits for it.
		err := t.CheckH3()
		if err == nil && !*useTLS {
			err = fmt.Errorf("-h3 (H3=1) needs -tls (TLS=1): HTTP/3 runs over TLS 1.3")
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "serve: %v\n", err)
			os.Exit(2)
		}
	}
	if *useTLS {
		if err := t.CheckTLS(); err != nil {
			log.Fatal(err)
		}
	}
	if *cpus != "" {
		if _, err := proc.ParseCPUs(*cpus); err != nil {
			log.Fatal(err)
		}
	}
	if *procs < 1 {
		log.Fatalf("-procs %d: want 1 or more", *procs)
	}
	if *addr == "" {
		if t.Port == 0 {
			log.Fatalf("%s has no port of its own: give -addr", t.Name)
		}
		*addr = ":" + strconv.Itoa(t.Port)
	}
	root, err := bench.FindRoot()
	if err != nil {
		log.Fatal(err)
	}
	if t.Package != "" {
		if _, err := t.Binary(root, root+"/bin"); err != nil {
			log.Fatal(err)
		}
	}
	e := targets.Env{Root: root, Addr: *addr, CPUs: *cpus, Procs: *procs, H3: *useH3, Echo: os.Stderr}
	if !*useTLS {
		os.Exit(serve(t, e))
	}
	dir, err := os.MkdirTemp("", "hellobench-serve-tls-")
	if err != nil {
		log.Fatal(err)
	}
	code := serveTLS(t, e, dir)
	os.RemoveAll(dir)
	os.Exit(code)
}

// serveTLS serves t over HTTPS with a certificate written into dir.
func serveTLS(t targets.Target, e targets.Env, dir string) int {
	// lighttpd, started by root, serves as nobody, who must reach the
	// files.
	if err := os.Chmod(dir, 0o755); err != nil {
		log.Print(err)
		return 1
	}
	p, err := certs.Write(dir, certs.ECDSA)
	if err != nil {
		log.Print(err)
		return 1
	}
	e.TLSCert, e.TLSKey = p.Cert, p.Key
	fmt.Fprintf(os.Stderr, "serve: the certificate, self-signed for 127.0.0.1 and localhost: %s (curl --cacert %s)\n", p.Cert, p.Cert)
	return serve(t, e)
}

// serve starts t, waits for a signal or for t to exit, and returns the exit
// status for serve itself.
func serve(t targets.Target, e targets.Env) int {
	// Catch signals before starting: from here on, Ctrl-C means a graceful stop.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	in, err := t.Start(e)
	if err != nil {
		log.Print(err)
		return 1
	}
	where := "not pinned"
	if e.CPUs != "" {
		where = "on CPU " + e.CPUs
	}
	fmt.Fprintf(os.Stderr, "serve: %s serving %s %s, GOMAXPROCS=%d; Ctrl-C stops it\n", t.Name, url(e.Addr, e.TLSCert != ""), where, e.Procs)
	if e.H3 {
		_, port := loopback(e.Addr)
		fmt.Fprintf(os.Stderr, "serve: and over HTTP/3, on UDP port %s, which every answer over TCP advertises in Alt-Svc: %s\n", port, h3Client(e))
	}
	select {
	case <-in.Proc.Exited():
		code, err := in.Proc.ExitCode()
		log.Printf("%s exited on its own (status %d, %v)", t.Name, code, err)
		in.Stop()
		return 1
	case sig := <-sigs:
		fmt.Fprintf(os.Stderr, "serve: %v: stopping %s gracefully (a second Ctrl-C kills it)\n", sig, t.Name)
	}
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- in.Stop() }()
	select {
	case err := <-done:
		if err != nil {
			log.Print(err)
			return 1
		}
	case <-sigs:
		in.Proc.Kill()
		<-done
		log.Printf("%s killed", t.Name)
		return 1
	}
	fmt.Fprintf(os.Stderr, "serve: %s stopped gracefully in %v\n", t.Name, time.Since(start).Round(time.Millisecond))
	return 0
}

// url is the page's URL for a client on this machine.
func url(addr string, https bool) string {
	host, port := loopback(addr)
	if port == "" {
		return addr
	}
	scheme := "http://"
	if https {
		scheme = "https://"
	}
	return scheme + net.JoinHostPort(host, port) + "/hello/world"
}

// loopback returns the host and port a client on this machine reaches
// addr at; no port when addr has none.
func loopback(addr string) (host, port string) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", ""
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return host, port
}

// h3Client says how to fetch the page over HTTP/3 from the target e
// starts: with a curl built with HTTP/3, or with ngtcp2's example client
// (Debian's ngtcp2-client), which saves it to ./world and trusts any
// certificate.
func h3Client(e targets.Env) string {
	host, port := loopback(e.Addr)
	u := url(e.Addr, true)
	return fmt.Sprintf("curl --http3-only --cacert %s %s (a curl built with HTTP/3), or gtlsclient -q --exit-on-all-streams-close --download=. %s %s %s && cat world",
		e.TLSCert, u, host, port, u)
}
