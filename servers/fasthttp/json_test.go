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
	srv := newServer(time.Second, time.Second)
	go srv.Serve(fasthttpguard.Listener{Listener: ln})
	defer srv.Shutdown()
	jsontest.Answers(t, ln.Addr().String(), "fasthttp", page.JSONType)
}
