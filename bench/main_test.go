package bench

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"hellobench/internal/proc"
)

// TestMain stops every server and client the tests started when the run
// is interrupted, or when go test, its parent, dies. Started with
// HELLOBENCH_SLOW_SERVER=1 (and copied as bin/nethttp), the test binary is
// instead a server that cannot be saturated, for TestSaturateNever.
func TestMain(m *testing.M) {
	if os.Getenv("HELLOBENCH_SLOW_SERVER") == "1" {
		slowServer()
		return
	}
	proc.Handle("bench tests", 2*time.Second, nil)
	proc.Exit(m.Run())
}

// slowServer answers one request at a time, each after 1 ms of sleep: a
// thousand requests a second, whatever the load, its core mostly idle. It
// takes the servers' -addr flag and logs their ready line.
func slowServer() {
	addr := ""
	for i, a := range os.Args {
		if a == "-addr" && i+1 < len(os.Args) {
			addr = os.Args[i+1]
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "nethttp: listening on %s\n", ln.Addr())
	var one sync.Mutex
	http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		one.Lock()
		time.Sleep(time.Millisecond)
		one.Unlock()
		w.Write([]byte("hello"))
	}))
}
