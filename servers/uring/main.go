//go:build linux

// Command uring serves the hellobench page on io_uring, driven by raw system
// calls (package hellobench/internal/uring): no networking library, no
// netpoller. It is what servers/gnet is on gnet, on the other readiness
// model: where gnet is told a socket is ready and then reads and writes it
// with a system call each, uring hands the kernel the reads and writes
// themselves and takes their results, many per io_uring_enter.
//
// Beside the page it answers /json, a page.Message encoded with
// encoding/json's json.Marshal on every request (package jsonreply).
//
// It is a complete server, not a benchmark special: the HTTP/1.1 parser is
// the project's own (servers/internal/http1, shared with gnet); it validates
// requests per RFC 9112, reads requests split over any number of receives,
// answers pipelined ones in order in one send per batch of completions,
// consumes bodies (chunked included) up to maxBody, enforces a deadline on
// each whole request, body included, and an idle timeout (one list per
// timeout, no timer per connection: timer.go), drains on SIGINT or
// SIGTERM, and keeps serving when connections outnumber its open-file limit
// (limit.go).
//
// Each connection has one multishot receive into a ring of buffers the
// loop provides (a buffer is lent only while its bytes are parsed), so an
// idle connection holds no buffer: its memory is its state alone.
//
// With -work-cpu and -work-wait its handler does work before it answers,
// as every server's can; a wait runs off the ring, on a bounded pool of
// goroutines (work.go), and its answer comes back through an eventfd the
// ring reads.
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
	"hellobench/servers/internal/timeouts"
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
	if err := timeouts.Check(*headerTimeout, *idleTimeout); err != nil {
		fmt.Fprintf(os.Stderr, "uring: %v\n", err)
		os.Exit(2)
	}
	if err := work.Check(); err != nil {
		fmt.Fprintf(os.Stderr, "uring: %v\n", err)
		os.Exit(2)
	}
	if *minWait < 0 || *minWait > time.Second {
		fmt.Fprintf(os.Stderr, "uring: -min-wait %v: want 0 to 1s\n", *minWait)
		os.Exit(2)
	}
	if poolSize < 1 {
		fmt.Fprintf(os.Stderr, "uring: -work-pool %d: want at least 1\n", poolSize)
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

	// With SO_REUSEPORT (see open) the loops' binds succeed even if
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

// serve starts n loops on addr and returns once they serve; done receives
// each loop's end.
func (s *server) serve(addr string, n int) (done chan error, err error) {
	loops, err := s.open(addr, n)
	if err != nil {
		return nil, err
	}
	// Each loop owns a thread: its ring is set up for a single issuer, and
	// the loop sleeps in io_uring_enter, not in the Go scheduler, unless
	// handler waits need the P (loop.setup).
	ready := make(chan error, len(loops))
	done = make(chan error, len(loops))
	for _, l := range loops {
		go func() {
			runtime.LockOSThread()
			if err := l.setup(); err != nil {
				ready <- err
				return
			}
			ready <- nil
			done <- l.run()
		}()
	}
	for range loops {
		if err := <-ready; err != nil {
			return nil, err
		}
	}
	return done, nil
}

// open makes n loops, each with a listening socket of its own. The sockets
// share the port with SO_REUSEPORT, so the kernel spreads connections over
// the loops with no hand-off between them.
func (s *server) open(addr string, n int) ([]*loop, error) {
	s.limit = newLimit(n)
	for range n {
		lfd, err := listen(addr)
		if err != nil {
			return nil, fmt.Errorf("listen %s: %w", addr, err)
		}
		s.loops = append(s.loops, newLoop(s, lfd))
	}
	return s.loops, nil
}
