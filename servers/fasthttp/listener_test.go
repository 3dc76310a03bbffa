package main

import (
	"testing"
	"time"

	"hellobench/servers/internal/fasthttpguard/guardtest"
)

// TestFDServer serves, in a process of its own, as main does, with an
// open-file limit of fdflood.Limit, and prints its address.
func TestFDServer(t *testing.T) {
	guardtest.FDServer(t, newServer(10*time.Second, 10*time.Second).Serve, "fasthttp")
}

// TestFDExhaustion floods the server of TestFDServer with five times as
// many connections as it may have descriptors: it must keep running, log
// the failed accepts under its name a line a second at most, and serve
// again at once when the flood ends.
func TestFDExhaustion(t *testing.T) { guardtest.FDExhaustion(t, "fasthttp") }
