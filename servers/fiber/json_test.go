package main

import (
	"net"
	"testing"
	"time"

	"hellobench/page"
	"hellobench/servers/internal/fasthttpguard"
	"hellobench/servers/internal/jsontest"
)

// TestJSON serves as main does, through the guard, on a real socket.
func TestJSON(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	app := newApp(time.Second, time.Second)
	go app.Listener(fasthttpguard.Listener{Listener: ln})
	defer app.Shutdown()
	jsontest.Answers(t, ln.Addr().String(), "fiber", page.JSONType)
}
