//go:build linux

package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"hellobench/internal/uring"
)

// serverName is what the Server header of every response says.
const serverName = "uring"

func main() {
	addr := flag.String("addr", ":8089", "listen `address`")
	headerTimeout := flag.Duration("header-timeout", 10*time.Second, "close a connection whose request, body included, is not complete within this `duration` of its first byte")
	idleTimeout := flag.Duration("idle-timeout", 60*time.Second, "close a keep-alive connection idle for this `duration`")
	work.Flags(flag.CommandLine)
	minWait := flag.Duration("min-wait", 0, "let the kernel gather completions for up to this `duration` before a wait returns with one (io_uring's minimum wait, Linux 6.12 or later); 0: none")
	flag.IntVar(&poolSize, "work-pool", poolSize, "at most this many `goroutines` wait off the rings at once; further waits queue until one is free")
	flag.Parse()
	if err := checkArgs(*headerTimeout, *idleTimeout, *minWait); err != nil {
		fmt.Fprintf(os.Stderr, "uring: %v\n", err)
		os.Exit(2)
	}

	// Where the kernel or a seccomp profile refuses io_uring, say so
	// before anything else.
	if r, err := uring.New(8); err != nil {
		log.Fatalf("uring: %v", err)
	} else {
		r.Close()
	}

	// Catch signals before listening: once a client can connect, a
	// signal must mean a graceful stop, not the default exit.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)

	// With SO_REUSEPORT (see listen) the loops' binds succeed even if
	// another server holds the port with that option too; a plain bind
	// first makes a taken port an error, as for any other server.
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("uring: %v", err)
	}
	ln.Close()

	s := newServer(*headerTimeout, *idleTimeout)
	s.minWait = *minWait
	done, err := s.serve(*addr, runtime.GOMAXPROCS(0))
	if err != nil {
		log.Fatalf("uring: %v", err)
	}
	log.Printf("uring: listening on %s (GOMAXPROCS=%d)", *addr, runtime.GOMAXPROCS(0))
	select {
	case err := <-done:
		log.Fatalf("uring: ring stopped: %v", err)
	case <-sig:
	}
	// The contract allows 5 s from the signal to exit: each loop drains
	// for up to grace, then closes what is left.
	s.stop()
	for range s.loops {
		if err := <-done; err != nil {
			log.Fatalf("uring: %v", err)
		}
	}
}
