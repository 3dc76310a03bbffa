package nethttpguard

import (
	"bufio"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	"hellobench/internal/certs"
)

// TestTLSListener serves net/http over TLSListener: HTTP/1.1 requests are
// read through the scanner (a framing error is answered 400) with their
// TLS state, a client that asks for h2 gets HTTP/2, a client that does not
// handshake is closed at the timeout, and Close ends Serve.
func TestTLSListener(t *testing.T) {
	pair, err := certs.Write(t.TempDir(), certs.ECDSA)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.LoadX509KeyPair(pair.Cert, pair.Key)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := pair.Pool()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	const timeout = 300 * time.Millisecond
	ln := TLSListener(raw, &tls.Config{Certificates: []tls.Certificate{cert}}, timeout)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS == nil {
			http.Error(w, "no TLS state", http.StatusInternalServerError)
			return
		}
		io.WriteString(w, r.Proto)
	})}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	addr := raw.Addr().String()
	client := &tls.Config{RootCAs: pool, ServerName: "localhost"}

	// HTTP/1.1: a GET, then a request Transfer-Encoding and Content-Length
	// both frame: 400, and the GET behind it unanswered.
	c, err := tls.Dial("tcp", addr, client)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(c, get+"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n"+get)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	br := bufio.NewReader(c)
	for i, want := range []int{200, 400} {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("response %d: %v", i, err)
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != want || want == 200 && string(body) != "HTTP/1.1" {
			t.Errorf("response %d: %d %q, want %d", i, resp.StatusCode, body, want)
		}
	}
	if b, err := br.ReadByte(); err == nil {
		t.Errorf("read %q after the 400, want the connection closed", b)
	}
	c.Close()

	// h2 by ALPN.
	var p http.Protocols
	p.SetHTTP2(true)
	tr := &http.Transport{TLSClientConfig: client, Protocols: &p}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 5 * time.Second}).Get("https://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "HTTP/2.0" {
		t.Errorf("h2: %d %q, want 200 \"HTTP/2.0\"", resp.StatusCode, body)
	}

	// No handshake: closed at the timeout.
	idle, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	idle.SetReadDeadline(time.Now().Add(10 * timeout))
	if _, err := idle.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("a connection that never handshakes: %v, want it closed within %v", err, timeout)
	}

	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-served:
		if !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v, want ErrServerClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve still running 5 s after Close")
	}
}
