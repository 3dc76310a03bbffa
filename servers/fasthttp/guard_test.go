package main

import (
	"testing"
	"time"

	"hellobench/servers/internal/fasthttpguard/guardtest"
)

// TestGuard serves through the guard on a real socket: a refused request
// gets 400 (or 501) and a close, a valid chunked one is answered and the
// connection kept.
func TestGuard(t *testing.T) {
	srv := newServer(time.Second, time.Second)
	guardtest.Guard(t, srv.Serve, srv.Shutdown)
}
