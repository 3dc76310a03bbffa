//go:build linux

package main

import (
	"errors"
	"log"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/panjf2000/gnet/v2"
)

// run serves s on addr with gnet until SIGINT or SIGTERM, then drains
// (drain.go).
func run(s *server, addr string) {
	// Catch signals before listening: once a client can connect, a
	// signal must mean a graceful stop, not the default exit.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	// With SO_REUSEPORT (see options) gnet's bind succeeds even if another
	// server holds the port with that option too; a plain bind first makes
	// a taken port an error, as for any other server.
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatalf("gnet: %v", err)
	}
	ln.Close()

	done := make(chan error, 1)
	go func() { done <- gnet.Run(s, "tcp://"+addr, options()...) }()

	select {
	case err := <-done:
		if err == nil {
			err = errors.New("engine stopped")
		}
		log.Fatalf("gnet: %v", err)
	case <-s.booted:
	}
	select {
	case err := <-done:
		log.Fatalf("gnet: engine stopped: %v", err)
	case <-sig:
	}
	// The contract allows 5 s from the signal to exit: up to 3 s for
	// requests in flight, up to 1 s for the engine to stop, and a little
	// for gnet.Run to return.
	s.shutdown(3 * time.Second)
	select {
	case <-done:
	case <-time.After(500 * time.Millisecond):
		log.Print("gnet: engine still running at exit")
	}
}

// quiet passes gnet's errors to the log package and drops the rest.
type quiet struct{}

func (quiet) Debugf(string, ...any)             {}
func (quiet) Infof(string, ...any)              {}
func (quiet) Warnf(string, ...any)              {}
func (quiet) Errorf(format string, args ...any) { log.Printf("gnet: "+format, args...) }
func (quiet) Fatalf(format string, args ...any) { log.Fatalf("gnet: "+format, args...) }
