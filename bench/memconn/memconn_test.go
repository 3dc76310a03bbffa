package memconn

import (
	"bytes"
	"io"
	"testing"
)

func TestReplay(t *testing.T) {
	req := []byte("GET / HTTP/1.1\r\n\r\n")
	c := NewConn(req, 5)
	got, err := io.ReadAll(io.LimitReader(c, 1<<20))
	if err != nil {
		t.Fatal(err)
	}
	if want := bytes.Repeat(req, 5); !bytes.Equal(got, want) {
		t.Fatalf("read %q, want %q", got, want)
	}
	// Small reads split requests anywhere and still total n copies.
	c = NewConn(req, 3)
	var all []byte
	buf := make([]byte, 7)
	for {
		n, err := c.Read(buf)
		all = append(all, buf[:n]...)
		if err == io.EOF {
			break
		}
	}
	if want := bytes.Repeat(req, 3); !bytes.Equal(all, want) {
		t.Fatalf("small reads: %q, want %q", all, want)
	}
}

func TestWriteCount(t *testing.T) {
	c := NewConn(nil, 0)
	c.Write(make([]byte, 10))
	c.Write(make([]byte, 5))
	if c.Written() != 15 {
		t.Fatalf("Written = %d, want 15", c.Written())
	}
	if Check(15, 3, 5) != nil || Check(15, 2, 5) == nil || Check(0, 0, 0) == nil {
		t.Fatal("Check disagrees with arithmetic")
	}
	c.Close()
	c.Close()
	select {
	case <-c.Done():
	default:
		t.Fatal("Done not closed after Close")
	}
}

func TestListener(t *testing.T) {
	l := NewListener()
	c := NewConn(nil, 0)
	go l.Dial(c)
	got, err := l.Accept()
	if err != nil || got != c {
		t.Fatalf("Accept = %v, %v", got, err)
	}
	l.Close()
	if _, err := l.Accept(); err == nil {
		t.Fatal("Accept after Close: no error")
	}
}
