package main

import (
	"fmt"
	"net"
	"testing"
	"time"

	"hellobench/servers/internal/fdflood"
)

// TestFDServer serves, in a process of its own, as main does, with an
// open-file limit of fdflood.Limit, and prints its address. nbio's accept
// loop would retry a failed accept at once; the server's listener pauses
// instead (serve.go) and logs the failure once a second at most.
func TestFDServer(t *testing.T) {
	if !fdflood.InServer() {
		t.Skip("the server side of TestFDExhaustion")
	}
	fdflood.LimitFiles(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := start(ln, config{headerTimeout: 10 * time.Second, idleTimeout: 10 * time.Second}, contract(newMux())); err != nil {
		t.Fatal(err)
	}
	fmt.Println(ln.Addr())
	select {} // until the test kills it
}

// TestFDExhaustion floods a server limited to fdflood.Limit descriptors
// with five times as many connections: it must keep running, log the
// failed accepts a line a second at most, and serve again at once when the
// flood ends.
func TestFDExhaustion(t *testing.T) {
	if fdflood.InServer() {
		t.Skip("in the server process")
	}
	fdflood.Run(t, nil, "too many open files")
}
