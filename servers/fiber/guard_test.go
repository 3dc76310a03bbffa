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
	app := newApp(time.Second, time.Second)
	guardtest.Guard(t, app.Listener, app.Shutdown)
}
