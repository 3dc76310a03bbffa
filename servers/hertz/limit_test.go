package main

import (
	"fmt"
	"net"
	"testing"
	"time"

	"hellobench/servers/internal/fdflood"
)

// TestFDServer serves, in a process of its own, as main does, with an
// open-file limit of fdflood.Limit, and prints its address. hertz needs no
// listener of ours for it: netpoll stops accepting on EMFILE and retries
// after a pause of up to a second.
func TestFDServer(t *testing.T) {
	if !fdflood.InServer() {
		t.Skip("the server side of TestFDExhaustion")
	}
	fdflood.LimitFiles(t)
	quietLogs()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println(ln.Addr())
	t.Fatal(newHertz(ln, 10*time.Second, 10*time.Second, false, nil).Run())
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
