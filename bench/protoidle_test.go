package bench

import (
	"errors"
	"testing"
	"time"

	"hellobench/internal/certs"
)

// TestProtoIdle holds idle connections to nethttp in each protocol and
// checks that every one was answered and is still open after the quiet
// period, then that each protocol's check sees the server close them.
func TestProtoIdle(t *testing.T) {
	cfg := realConfig(t)
	pair, err := certs.Write(t.TempDir(), certs.ECDSA)
	if err != nil {
		t.Fatal(err)
	}
	cfg.TLSCert, cfg.TLSKey, cfg.H3 = pair.Cert, pair.Key, true
	s, err := cfg.StartWith("nethttp", "", Work{})
	if errors.Is(err, ErrMissing) {
		skipMissing(t, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			s.Stop()
		}
	}()
	const n = 20
	for _, p := range IdleProtocols {
		r, err := ProtoIdle(s, p, n, 50*time.Millisecond)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if r.Conns != n || r.Held != n || r.Err != nil {
			t.Errorf("%s: %d of %d connections held (%v), want all %d", p, r.Held, r.Conns, r.Err, n)
		}
	}
	if _, err := ProtoIdle(s, "h4", n, 0); err == nil {
		t.Error("ProtoIdle in h4: no error")
	}

	// One connection in each protocol, then the server stopped: each
	// connection's check must see it gone.
	var conns []idleConn
	for _, dial := range []func(string) (idleConn, error){dialIdleH1, dialIdleH2, dialIdleH3} {
		c, err := dial(s.Addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if err := c.open(); err != nil {
			t.Fatalf("%T: open right after its request: %v", c, err)
		}
		conns = append(conns, c)
	}
	stopped = true
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, c := range conns {
		deadline := time.Now().Add(5 * time.Second)
		for c.open() == nil && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if c.open() == nil {
			t.Errorf("%T: still open 5 s after the server stopped", c)
		}
	}
}
