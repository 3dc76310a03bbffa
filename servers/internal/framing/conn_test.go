package framing

import (
	"bytes"
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

// bang passes bytes on up to the first '!' and refuses there.
type bang struct{}

func (bang) Scan(p []byte) (int, error) {
	if i := bytes.IndexByte(p, '!'); i >= 0 {
		return i, Refuse("bang")
	}
	return len(p), nil
}

// TestCloseAfterRefusal has a client send a refused request and, before
// the server closes, more bytes it will never read: the client must still
// read the server's whole answer and a clean end, not a reset.
func TestCloseAfterRefusal(t *testing.T) {
	c, nc := pair(t)
	const answer = "HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n"
	refused, sent := make(chan error, 1), make(chan struct{})
	closed := make(chan time.Duration, 1)
	go func() {
		_, err := io.ReadAll(nc)
		refused <- err
		<-sent
		time.Sleep(20 * time.Millisecond) // the unread bytes arrive
		nc.Write([]byte(answer))
		began := time.Now()
		nc.Close()
		closed <- time.Since(began)
	}()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte("GET / HTTP/1.1\r\n!")); err != nil {
		t.Fatal(err)
	}
	var fe *Error
	if err := <-refused; !errors.As(err, &fe) || fe.Status != 400 {
		t.Fatalf("the server read %v, want the framing error", err)
	}
	if _, err := c.Write(bytes.Repeat([]byte("x"), 64<<10)); err != nil {
		t.Fatal(err)
	}
	close(sent)
	got, err := io.ReadAll(c)
	if err != nil || string(got) != answer {
		t.Fatalf("the client read %q and %v, want %q and a clean end", got, err, answer)
	}
	c.Close()
	if d := <-closed; d >= lingerFor {
		t.Errorf("Close took %v after the client closed, want well under %v", d, lingerFor)
	}
}

// TestCloseLingersNoLonger has the client neither send nor close: Close
// gives up after lingerFor.
func TestCloseLingersNoLonger(t *testing.T) {
	c, nc := pair(t)
	c.Write([]byte("!"))
	if _, err := io.ReadAll(nc); err == nil {
		t.Fatal("the server read no framing error")
	}
	began := time.Now()
	nc.Close()
	if d := time.Since(began); d < lingerFor || d > lingerFor+time.Second {
		t.Errorf("Close took %v with the client silent, want %v", d, lingerFor)
	}
}

// pair returns a client's connection over the loopback and the server's
// side of it, read through bang; the test's end closes both.
func pair(t *testing.T) (c, nc net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if c, err = net.Dial("tcp", ln.Addr().String()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if nc, err = Accept(ln, func() Scanner { return bang{} }); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return c, nc
}
