//go:build linux

package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"hellobench/servers/internal/fdflood"
)

// TestFDServer serves, in a process of its own, with an open-file limit of
// fdflood.Limit, and prints its address.
func TestFDServer(t *testing.T) {
	if !fdflood.InServer() {
		t.Skip("the server side of TestFDExhaustion")
	}
	fdflood.LimitFiles(t)
	_, addr := start(t, 10*time.Second, 10*time.Second)
	fmt.Println(addr)
	time.Sleep(time.Hour) // until killed
}

// TestFDExhaustion floods a server limited to fdflood.Limit descriptors
// with five times as many connections: it must keep running (limit.go),
// log the connections it closes a line a second at most, never fail an
// accept, and serve again at once when the flood ends. It does so with one
// event loop and with two, each accepting on its own listener.
func TestFDExhaustion(t *testing.T) {
	if fdflood.InServer() {
		t.Skip("in the server process")
	}
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprintf("GOMAXPROCS=%d", procs), func(t *testing.T) {
			log := fdflood.Run(t, []string{fmt.Sprintf("GOMAXPROCS=%d", procs)}, "at the open-file limit")
			if strings.Contains(log, "too many open files") {
				t.Errorf("accept failed:\n%s", log)
			}
		})
	}
}
