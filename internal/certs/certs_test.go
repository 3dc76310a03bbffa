package certs

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"testing"
)

// TestHandshake serves each kind of certificate with crypto/tls and
// completes a handshake from a client that trusts only the certificate's
// pool, for 127.0.0.1 and for localhost.
func TestHandshake(t *testing.T) {
	for _, k := range []Kind{ECDSA, RSA} {
		t.Run(k.String(), func(t *testing.T) {
			p, err := Write(t.TempDir(), k)
			if err != nil {
				t.Fatal(err)
			}
			cert, err := tls.LoadX509KeyPair(p.Cert, p.Key)
			if err != nil {
				t.Fatalf("the pair does not load: %v", err)
			}
			pool, err := p.Pool()
			if err != nil {
				t.Fatal(err)
			}
			ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}})
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					c.Write([]byte("ok"))
					c.Close()
				}
			}()
			for _, name := range []string{"127.0.0.1", "localhost"} {
				c, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{RootCAs: pool, ServerName: name})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				b, _ := io.ReadAll(c)
				c.Close()
				if string(b) != "ok" {
					t.Errorf("%s: read %q, want ok", name, b)
				}
			}
			// An untrusting client refuses it.
			c, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{RootCAs: x509.NewCertPool(), ServerName: "localhost"})
			if err == nil {
				c.Close()
				t.Error("a client without the certificate in its pool completed the handshake")
			}
		})
	}
}
