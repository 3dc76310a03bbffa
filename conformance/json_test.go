package conformance

import (
	"bytes"
	"mime"
	"strconv"
	"strings"
	"testing"
	"time"

	"hellobench/page"
)

// json checks the second endpoint: GET and HEAD /json answer the object
// {"message":"Hello, World!"} as application/json, serialized by the
// stack's own encoder (so 27 bytes, or 28 with json.Encoder's newline),
// and the page's rules hold on the new path: 405 with Allow, 404 beside it,
// pipelining with the page.
func (s *suite) json(t *testing.T) {
	t.Run("get", func(t *testing.T) {
		c := s.dial(t)
		for _, target := range []string{page.JSONPath, page.JSONPath + "?n=1"} {
			c.send(req("GET", target))
			s.checkJSON(t, c.read("GET"), "GET", -1)
		}
	})
	t.Run("head", func(t *testing.T) {
		c := s.dial(t)
		c.send(req("GET", page.JSONPath) + req("HEAD", page.JSONPath) + req("GET", page.JSONPath))
		n := s.checkJSON(t, c.read("GET"), "GET", -1)
		s.checkJSON(t, c.read("HEAD"), "HEAD", n)
		s.checkJSON(t, c.read("GET"), "GET", n)
	})
	t.Run("method-not-allowed", func(t *testing.T) {
		for _, m := range []string{"POST", "PUT", "DELETE", "PATCH", "OPTIONS"} {
			c := s.dial(t)
			c.send(req(m, page.JSONPath, "Content-Length: 0"))
			r := c.read(m)
			if r.StatusCode != 405 {
				t.Errorf("%s %s: status %d, want 405", m, page.JSONPath, r.StatusCode)
			} else if got := r.Header.Get("Allow"); got != page.Allow {
				t.Errorf("%s %s: Allow %q, want %q", m, page.JSONPath, got, page.Allow)
			}
		}
	})
	t.Run("not-found", func(t *testing.T) {
		c := s.dial(t)
		for _, target := range []string{"/json/", "/JSON", "/jsons", "/json/x", "/hello/json"} {
			c.send(req("GET", target))
			if r := c.read("GET"); r.StatusCode != 404 {
				t.Errorf("GET %s: status %d, want 404", target, r.StatusCode)
			}
		}
	})
	t.Run("pipelined-with-the-page", func(t *testing.T) {
		var all strings.Builder
		for range 5 {
			all.WriteString(req("GET", page.JSONPath) + req("GET", page.Path) + req("HEAD", page.JSONPath) + req("HEAD", page.Path))
		}
		c := s.dial(t)
		c.send(all.String())
		for range 5 {
			n := s.checkJSON(t, c.read("GET"), "GET", -1)
			s.checkPage(t, c.read("GET"), "GET")
			s.checkJSON(t, c.read("HEAD"), "HEAD", n)
			s.checkPage(t, c.read("HEAD"), "HEAD")
		}
		c.expectOpen(100 * time.Millisecond)
	})
}

// checkJSON asserts the contract's 200 answer at page.JSONPath to GET or
// HEAD and returns its Content-Length; a HEAD's must be getLength, the
// GET's on the same server.
func (s *suite) checkJSON(t *testing.T, r *response, method string, getLength int) int {
	t.Helper()
	if r.StatusCode != 200 {
		t.Fatalf("%s %s: status %d, want 200", method, page.JSONPath, r.StatusCode)
	}
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != page.JSONType || len(params) > 1 || (len(params) == 1 && !strings.EqualFold(params["charset"], "utf-8")) {
		t.Errorf("%s: Content-Type %q, want %s (a charset=utf-8 allowed)", method, r.Header.Get("Content-Type"), page.JSONType)
	}
	cl := r.Header.Values("Content-Length")
	n, err := strconv.Atoi(strings.Join(cl, ","))
	if len(cl) != 1 || err != nil {
		t.Fatalf("%s: Content-Length %q, want one", method, cl)
	}
	switch method {
	case "HEAD":
		if len(r.body) != 0 {
			t.Errorf("HEAD: a body of %d bytes", len(r.body))
		}
		if n != getLength {
			t.Errorf("HEAD: Content-Length %d, the GET's is %d", n, getLength)
		}
	default:
		if !bytes.Equal(r.body, page.JSON) && !bytes.Equal(r.body, append(page.JSON[:len(page.JSON):len(page.JSON)], '\n')) {
			t.Errorf("GET: body %q, want %q (a newline after it allowed)", r.body, page.JSON)
		}
		if n != len(r.body) {
			t.Errorf("GET: Content-Length %d for a body of %d bytes", n, len(r.body))
		}
	}
	if got := r.Header.Get("Server"); !strings.HasPrefix(got, s.tg.ServerHeader) {
		t.Errorf("%s: Server %q, want %q", method, got, s.tg.ServerHeader)
	}
	checkDate(t, r)
	return n
}
