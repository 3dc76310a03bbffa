package main

import (
	"errors"
	"log"
	"net"
	"net/http"
	"net/http/fcgi"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// drainTimeout bounds the wait for open connections after a signal; the
// contract allows 5 s from signal to exit.
const drainTimeout = 4 * time.Second

// serveSocket serves on socket (see listen) until SIGINT or SIGTERM, then waits
// for the connections open to close.
func serveSocket(socket string) {
	// Catch signals before listening: once a client can connect, a
	// signal must mean a graceful stop, not the default exit.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	ln, err := listen(socket)
	if err != nil {
		log.Fatalf("fcgi: %v", err)
	}
	tl := &trackedListener{Listener: ln}

	stopped := make(chan struct{})
	go func() {
		<-sig
		close(stopped)
		// Closing the listener stops accepting; a unix socket file that
		// we created is removed with it.
		ln.Close()
	}()

	log.Printf("fcgi: listening on %s (GOMAXPROCS=%d)", ln.Addr(), runtime.GOMAXPROCS(0))
	err = fcgi.Serve(tl, http.HandlerFunc(hello))
	select {
	case <-stopped:
		// Connections carry the responses in flight; lighttpd opens one
		// per request and we close it after the last record.
		if !tl.wait(drainTimeout) {
			log.Printf("fcgi: %d connections still open after %v", tl.open(), drainTimeout)
		}
	default:
		log.Fatalf("fcgi: %v", err)
	}
}

// listen returns the listener named by socket, or the one lighttpd passed
// on stdin when socket is empty.
func listen(socket string) (net.Listener, error) {
	switch {
	case socket == "":
		// Spawned: die with lighttpd, so that a lighttpd killed outright
		// leaves no orphan serving a socket nobody connects to.
		if err := dieWithParent(); err != nil {
			return nil, err
		}
		if os.Getppid() == 1 {
			return nil, errors.New("no -socket given and no parent lighttpd")
		}
		ln, err := net.FileListener(os.Stdin)
		if err != nil {
			return nil, errors.New("no -socket given and stdin is not a listening socket")
		}
		return ln, nil
	case strings.Contains(socket, "/"):
		return net.Listen("unix", socket)
	default:
		return net.Listen("tcp", socket)
	}
}

// trackedListener counts the connections it has accepted that are still
// open, so that a signal can wait for them to finish.
type trackedListener struct {
	net.Listener
	mu    sync.Mutex
	n     int
	empty chan struct{} // closed when n drops to zero after a wait began
}

func (l *trackedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.n++
	l.mu.Unlock()
	return &trackedConn{Conn: c, l: l}, nil
}

func (l *trackedListener) open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}

// wait reports whether all connections closed within d.
func (l *trackedListener) wait(d time.Duration) bool {
	l.mu.Lock()
	if l.n == 0 {
		l.mu.Unlock()
		return true
	}
	l.empty = make(chan struct{})
	empty := l.empty
	l.mu.Unlock()
	select {
	case <-empty:
		return true
	case <-time.After(d):
		return false
	}
}

type trackedConn struct {
	net.Conn
	l    *trackedListener
	once sync.Once
}

func (c *trackedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		l := c.l
		l.mu.Lock()
		l.n--
		if l.n == 0 && l.empty != nil {
			close(l.empty)
			l.empty = nil
		}
		l.mu.Unlock()
	})
	return err
}
