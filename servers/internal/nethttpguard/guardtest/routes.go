// Package guardtest checks, for the routers on net/http's server (echo,
// chi), the answers where a router's defaults may differ from the contract,
// and that the handler half of package nethttpguard is wired in. It is for
// tests only. A server's tests pass its name and its handler, guarded or
// bare, as main builds it:
//
//	func handler(bare bool) http.Handler {
//		return newServer("", time.Second, time.Second, bare).Handler
//	}
//
//	func TestRoutes(t *testing.T) { guardtest.Routes(t, "chi", handler) }
//	func TestStrict(t *testing.T) { guardtest.Strict(t, "chi", handler) }
package guardtest

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"hellobench/page"
)

// Routes checks the page's routes, guarded and bare: the page to GET and
// HEAD, 405 with one Allow line of the contract to any other method
// (OPTIONS included, which routers like to answer themselves), 404
// elsewhere, and every answer naming the stack.
func Routes(t *testing.T, name string, handler func(bare bool) http.Handler) {
	t.Helper()
	for _, bare := range []bool{false, true} {
		h := handler(bare)
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
			if got := w.Header().Get("Server"); got != name {
				t.Errorf("bare=%v %s %s: Server %q, want %s", bare, tc.method, tc.path, got, name)
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

// Strict checks that, unless bare, a version net/http serves as 1.1 is
// refused, and that the refusal names the stack.
func Strict(t *testing.T, name string, handler func(bare bool) http.Handler) {
	t.Helper()
	for _, tc := range []struct {
		bare   bool
		status int
	}{{false, 505}, {true, 200}} {
		r := httptest.NewRequest("GET", page.Path, nil)
		r.Proto, r.ProtoMajor, r.ProtoMinor = "HTTP/1.2", 1, 2
		w := httptest.NewRecorder()
		handler(tc.bare).ServeHTTP(w, r)
		if w.Code != tc.status || w.Header().Get("Server") != name {
			t.Errorf("bare=%v: HTTP/1.2: status %d, Server %q; want %d, %s", tc.bare, w.Code, w.Header().Get("Server"), tc.status, name)
		}
	}
}
