package nethttpguard

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"
)

func TestHandler(t *testing.T) {
	tests := []struct {
		name   string
		major  int
		minor  int
		te     []string
		body   io.Reader
		status int
		close  bool // the answer says Connection: close
		called bool // h ran
	}{
		{"HTTP/1.1", 1, 1, nil, nil, 200, false, true},
		{"HTTP/1.0", 1, 0, nil, nil, 200, false, true},
		{"HTTP/1.2", 1, 2, nil, nil, 505, true, false},
		// net/http's HTTP/1 reader passes on no 2.x request line but
		// "PRI * HTTP/2.0"; any other 2.0 request came in HTTP/2 frames.
		{"HTTP/2.0 PRI", 2, 0, nil, nil, 505, true, false},
		{"HTTP/2", 2, 0, nil, nil, 200, false, true},
		{"HTTP/2.1", 2, 1, nil, nil, 505, true, false},
		// quic-go's http3.Server hands a handler HTTP/3.0 requests.
		{"HTTP/3", 3, 0, nil, nil, 200, false, true},
		{"HTTP/3.1", 3, 1, nil, nil, 505, true, false},
		{"chunked", 1, 1, []string{"chunked"}, strings.NewReader("body"), 200, false, true},
		{"chunked, framing error", 1, 1, []string{"chunked"}, iotest.ErrReader(errors.New("framing: bad chunk")), 400, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			called := false
			h := Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				called = true
				if n, _ := io.Copy(io.Discard, r.Body); n != 0 {
					t.Errorf("h read %d bytes of a body Handler should have read", n)
				}
			}))
			method := "POST"
			if tt.name == "HTTP/2.0 PRI" {
				method = "PRI"
			}
			r := httptest.NewRequest(method, "/", tt.body)
			r.ProtoMajor, r.ProtoMinor, r.TransferEncoding = tt.major, tt.minor, tt.te
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tt.status || (w.Header().Get("Connection") == "close") != tt.close || called != tt.called {
				t.Errorf("status %d, Connection %q, h ran %v; want %d, close %v, ran %v",
					w.Code, w.Header().Get("Connection"), called, tt.status, tt.close, tt.called)
			}
		})
	}
}

// TestHostAndTarget: a Host or a target form Go lets through is answered
// 400 and a close.
func TestHostAndTarget(t *testing.T) {
	tests := []struct {
		name, method, target, host string
		minor, status              int
	}{
		{"origin-form", "GET", "/hello", "h", 1, 200},
		{"Host with port", "GET", "/", "h:8080", 1, 200},
		{"Host IPv6", "GET", "/", "[::1]:80", 1, 200},
		{"HTTP/1.0, no Host", "GET", "/", "", 0, 200},
		{"absolute-form", "GET", "http://h/x", "h", 1, 200},
		{"OPTIONS *", "OPTIONS", "*", "h", 1, 200},
		{"empty Host", "GET", "/", "", 1, 400},
		{"Host, bad port", "GET", "/", "h:80x", 1, 400},
		{"Host, unclosed IPv6", "GET", "/", "[::1", 1, 400},
		{"Host, userinfo", "GET", "/", "u@h", 1, 400},
		{"GET *", "GET", "*", "h", 1, 400},
		{"GET authority-form", "GET", "h:80", "h", 1, 400},
		{"absolute-form, other scheme", "GET", "ftp://h/x", "h", 1, 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
			r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(
				tt.method + " " + tt.target + " HTTP/1.1\r\nHost: x\r\n\r\n")))
			if err != nil {
				t.Fatal(err)
			}
			r.Host, r.ProtoMinor = tt.host, tt.minor
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tt.status || (tt.status == 400) != (w.Header().Get("Connection") == "close") {
				t.Errorf("status %d, Connection %q; want %d", w.Code, w.Header().Get("Connection"), tt.status)
			}
		})
	}
}

// TestHTTP3 checks that an HTTP/3 request the guard refuses gets its
// status without a Connection field, which HTTP/3 does not have, and that
// one it lets through reaches h.
func TestHTTP3(t *testing.T) {
	for _, tt := range []struct {
		name, method, target, host string
		status                     int
	}{
		{"GET", "GET", "/hello/world", "localhost:8443", 200},
		{"CONNECT", "CONNECT", "localhost:8443", "localhost:8443", 200},
		{"Host, bad port", "GET", "/", "localhost:84x", 400},
		{"Host, userinfo", "GET", "/", "u@localhost", 400},
	} {
		t.Run(tt.name, func(t *testing.T) {
			called := false
			h := Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { called = true }))
			r := httptest.NewRequest(tt.method, tt.target, nil)
			r.Proto, r.ProtoMajor, r.ProtoMinor, r.Host = "HTTP/3.0", 3, 0, tt.host
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tt.status || called != (tt.status == 200) {
				t.Errorf("status %d, h ran %v; want %d", w.Code, called, tt.status)
			}
			if v, ok := w.Header()["Connection"]; ok {
				t.Errorf("Connection %q in an HTTP/3 answer", v)
			}
		})
	}
}
