package memconn

import (
	"net"
	"testing"
)

// Bench measures one request through a server loop. serve runs the stack's
// own accept loop on the Listener it is given (http.Server.Serve,
// fasthttp.Server.Serve, ...). With keepAlive, one connection carries b.N
// requests; otherwise each of b.N connections carries one, which should then
// ask for Connection: close. The bytes written must be exactly b.N responses
// of the size one request gets, or the benchmark fails: every request was
// served, none twice.
func Bench(b *testing.B, serve func(net.Listener) error, req []byte, keepAlive bool) {
	b.Helper()
	l := NewListener()
	served := make(chan error, 1)
	go func() { served <- serve(l) }()
	defer func() {
		l.Close()
		<-served
	}()

	// One request first: its response's size is the unit of the count.
	c := NewConn(req, 1)
	l.Dial(c)
	<-c.Done()
	size := c.Written()
	if size == 0 {
		b.Fatal("memconn: the server wrote nothing for one request")
	}

	b.ReportAllocs()
	b.ResetTimer()
	var written int64
	if keepAlive {
		c := NewConn(req, b.N)
		l.Dial(c)
		<-c.Done()
		written = c.Written()
	} else {
		for range b.N {
			c := NewConn(req, 1)
			l.Dial(c)
			<-c.Done()
			written += c.Written()
		}
	}
	b.StopTimer()
	if err := Check(written, b.N, int(size)); err != nil {
		b.Fatalf("%v: %d bytes for %d requests of %d", err, written, b.N, size)
	}
}

// Guard measures a server loop with its framing guard and without it, as
// two sub-benchmarks of Bench's keep-alive loop, guard=on and guard=off,
// for benchstat -col /guard. serve serves l, guarded or bare as main does
// with and without -bare. (make compare WHAT=guards runs the two in turns, each
// in its own process: a benchmark's -count rounds run back to back, and
// the second of two runs in a process measured slower.)
func Guard(b *testing.B, serve func(l net.Listener, guarded bool) error, req []byte) {
	for _, guarded := range []bool{true, false} {
		name := "guard=on"
		if !guarded {
			name = "guard=off"
		}
		b.Run(name, func(b *testing.B) {
			Bench(b, func(l net.Listener) error { return serve(l, guarded) }, req, true)
		})
	}
}
