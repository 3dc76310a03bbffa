package main

import (
	"net/http/httptest"
	"testing"
	"time"

	"hellobench/page"
)

// TestRoutes checks the answers where echo's defaults differ from the
// contract: OPTIONS and a 405's Allow header.
func TestRoutes(t *testing.T) {
	for _, bare := range []bool{false, true} {
		h := newServer("", time.Second, time.Second, bare).Handler
		for _, tc := range []struct {
			method, path string
			status       int
			allow        string
			body         int // bytes
		}{
			{"GET", page.Path, 200, "", page.Size},
			{"HEAD", page.Path, 200, "", -1}, // net/http drops the body on the wire
			{"POST", page.Path, 405, page.Allow, -1},
			{"OPTIONS", page.Path, 405, page.Allow, -1},
			{"BREW", page.Path, 405, page.Allow, -1},
			{"GET", page.Path + "/", 404, "", -1},
			{"OPTIONS", "/", 404, "", -1},
		} {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(tc.method, tc.path, nil))
			if w.Code != tc.status {
				t.Errorf("bare=%v %s %s: status %d, want %d", bare, tc.method, tc.path, w.Code, tc.status)
			}
			if got := w.Header().Values("Allow"); tc.allow != "" && (len(got) != 1 || got[0] != tc.allow) {
				t.Errorf("bare=%v %s %s: Allow %q, want one %q", bare, tc.method, tc.path, got, tc.allow)
			}
			if got := w.Header().Get("Server"); got != "echo" {
				t.Errorf("bare=%v %s %s: Server %q, want echo", bare, tc.method, tc.path, got)
			}
			if tc.body >= 0 && w.Body.Len() != tc.body {
				t.Errorf("bare=%v %s %s: %d bytes of body, want %d", bare, tc.method, tc.path, w.Body.Len(), tc.body)
			}
			if tc.status == 200 && w.Header().Get("Content-Type") != page.ContentType {
				t.Errorf("bare=%v %s %s: Content-Type %q", bare, tc.method, tc.path, w.Header().Get("Content-Type"))
			}
		}
	}
}

// TestStrict: unless bare, a version net/http serves as 1.1 is refused,
// and the refusal names the stack.
func TestStrict(t *testing.T) {
	for _, tc := range []struct {
		bare   bool
		status int
	}{{false, 505}, {true, 200}} {
		r := httptest.NewRequest("GET", page.Path, nil)
		r.Proto, r.ProtoMajor, r.ProtoMinor = "HTTP/1.2", 1, 2
		w := httptest.NewRecorder()
		newServer("", time.Second, time.Second, tc.bare).Handler.ServeHTTP(w, r)
		if w.Code != tc.status || w.Header().Get("Server") != "echo" {
			t.Errorf("bare=%v: HTTP/1.2: status %d, Server %q; want %d, echo", tc.bare, w.Code, w.Header().Get("Server"), tc.status)
		}
	}
}
