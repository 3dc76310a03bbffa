//go:build linux

package loadgen

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// h2Server is an HTTP/2 server over TLS that counts requests, connections
// and the most requests in flight on one connection.
type h2Server struct {
	url                string
	requests, conns    atomic.Int64
	mu                 sync.Mutex
	inFlight, maxPerCC map[string]int // by the client's address
}

func newH2Server(t *testing.T, hold time.Duration) *h2Server {
	s := &h2Server{inFlight: map[string]int{}, maxPerCC: map[string]int{}}
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor != 2 {
			http.Error(w, "HTTP/2 only", http.StatusHTTPVersionNotSupported)
			return
		}
		s.requests.Add(1)
		s.mu.Lock()
		s.inFlight[r.RemoteAddr]++
		s.maxPerCC[r.RemoteAddr] = max(s.maxPerCC[r.RemoteAddr], s.inFlight[r.RemoteAddr])
		s.mu.Unlock()
		time.Sleep(hold)
		s.mu.Lock()
		s.inFlight[r.RemoteAddr]--
		s.mu.Unlock()
		w.Header().Set("Server", "test")
		w.Write([]byte(strings.Repeat("x", 257)))
	}))
	ts.EnableHTTP2 = true
	ts.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	ts.StartTLS()
	t.Cleanup(ts.Close)
	s.url = ts.URL + "/hello/world"
	return s
}

// TestH2KeepAlive: -h2 -k -c 4 -streams 8 sends its requests on 4 HTTP/2
// connections, at most 8 in flight on each, every one counted once on both
// sides.
func TestH2KeepAlive(t *testing.T) {
	s := newH2Server(t, 2*time.Millisecond)
	const n = 400
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, err := Run(ctx, Config{URL: s.url, Requests: n, Concurrency: 4, KeepAlive: true, H2: true, Streams: 8, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if r.Complete != n || r.Failed != 0 || r.Status[200] != n || r.DocumentLength != 257 || r.HTMLBytes != n*257 {
		t.Errorf("complete %d, failed %d %+v, status %v, document %d; want %d complete 200s of 257 bytes", r.Complete, r.Failed, r.Failures, r.Status, r.DocumentLength, n)
	}
	if got := s.requests.Load(); got != n {
		t.Errorf("the server counted %d requests, want %d", got, n)
	}
	if r.Connections != 4 || s.conns.Load() != 4 || r.Handshakes != 4 {
		t.Errorf("connections %d, handshakes %d; the server saw %d; want 4 each", r.Connections, r.Handshakes, s.conns.Load())
	}
	s.mu.Lock()
	for addr, m := range s.maxPerCC {
		if m != 8 {
			t.Errorf("%s: at most %d requests in flight, want 8", addr, m)
		}
	}
	s.mu.Unlock()
	if r.Engine != EngineH2 || r.Pipeline != 8 || !strings.HasSuffix(r.TLS, " over TCP (h2)") {
		t.Errorf("engine %q, pipeline %d, TLS %q; want %s, 8, over TCP (h2)", r.Engine, r.Pipeline, r.TLS, EngineH2)
	}
}

// TestH2Rate: -h2 at 2 000 requests a second for half a second sends
// about a thousand, as the pacer schedules them.
//
// More than the schedule fails at once; fewer is tried again, up to three
// runs in all: beside the rest of make test on two cores, a descheduled
// client has sent 840 of 1000 in one run, and a fault of loadgen's falls
// short in all three.
func TestH2Rate(t *testing.T) {
	tryRuns(t, 3, 0, func() string {
		s := newH2Server(t, 0)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		r, err := Run(ctx, Config{URL: s.url, Duration: 500 * time.Millisecond, Rate: 2000, Concurrency: 4, KeepAlive: true, H2: true, Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if r.Complete > 1000 || s.requests.Load() > 1001 {
			t.Fatalf("%d complete, the server counted %d; want 1000 at most", r.Complete, s.requests.Load())
		}
		if r.Complete < 990 {
			return fmt.Sprintf("%d complete, the server counted %d; want 990 to 1000", r.Complete, s.requests.Load())
		}
		return ""
	})
}

// TestH2NotNegotiated: a server that speaks no HTTP/2 over TLS ends the run
// with the reason.
func TestH2NotNegotiated(t *testing.T) {
	ts := httptest.NewUnstartedServer(http.NotFoundHandler())
	ts.TLS = &tls.Config{NextProtos: []string{"http/1.1"}}
	ts.StartTLS()
	defer ts.Close()
	_, err := Run(context.Background(), Config{URL: ts.URL + "/", Requests: 1, KeepAlive: true, H2: true, Timeout: 2 * time.Second})
	if err == nil || !strings.Contains(err.Error(), `negotiated "http/1.1", not h2`) {
		t.Errorf("Run: %v, want the server's protocol named", err)
	}
}
