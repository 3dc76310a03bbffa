// Command serve runs one target of the table (internal/targets) in the
// foreground, pinned to a CPU set with GOMAXPROCS, as `make serve-NAME`
// does: it prints the URL to point a client at, passes the target's output
// through, and turns Ctrl-C (SIGINT) or SIGTERM into the target's graceful
// stop, saying when it is done. A second signal kills it.
//
// Usage:
//
//	serve [-cpu 0] [-procs 1] [-addr :PORT] NAME
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"hellobench/bench"
	"hellobench/internal/proc"
	"hellobench/internal/targets"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("serve: ")
	cpus := flag.String("cpu", "0", "taskset CPU `list` to pin the server to (\"\": not pinned)")
	procs := flag.Int("procs", 1, "the server's GOMAXPROCS")
	addr := flag.String("addr", "", "listen `address` (default: the target's own port on every interface)")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: serve [-cpu 0] [-procs 1] [-addr :PORT] NAME\nNAME: one of %v\n", targets.Names())
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
	os.Exit(serve(t, targets.Env{Root: root, Addr: *addr, CPUs: *cpus, Procs: *procs, Echo: os.Stderr}))
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
	fmt.Fprintf(os.Stderr, "serve: %s serving %s %s, GOMAXPROCS=%d; Ctrl-C stops it\n", t.Name, url(e.Addr), where, e.Procs)
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
func url(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/hello/world"
}
