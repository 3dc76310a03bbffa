// Package jsontest checks a server's JSON answer (page.JSONPath) over a
// real connection, for the servers' own tests: the encoded Message, its
// type and length, HEAD without a body, 405 with Allow and 404 beside it.
// It is for tests only, as the guards' guardtest packages are. The servers
// on net/http's server hand Served their constructor; the others serve on
// a listener of their own and hand Answers its address.
package jsontest

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/textproto"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"hellobench/page"
	"hellobench/servers/internal/nethttpguard"
)

// Served serves GET and HEAD /json over a connection, as main serves,
// guarded and bare, with the server newServer builds: net/http, not the
// handler, sets Content-Length, which a ResponseRecorder would not show.
// One connection carries every request in turn, so a HEAD that sent a body
// would break the answer after it. want is the body the stack's encoder
// writes, ctype its Content-Type.
func Served(t *testing.T, server, want, ctype string, newServer func(bare bool) *http.Server) {
	t.Helper()
	for _, bare := range []bool{false, true} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := newServer(bare)
		l := ln
		if !bare {
			l = nethttpguard.Listener{Listener: ln}
		}
		go srv.Serve(l)
		defer srv.Close()
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		br := bufio.NewReader(c)
		for _, tc := range []struct {
			method, target string
			status         int
		}{
			{"GET", page.JSONPath, 200},
			{"HEAD", page.JSONPath, 200},
			{"GET", page.JSONPath + "?n=1", 200},
			{"HEAD", page.JSONPath + "?n=1", 200},
			{"POST", page.JSONPath, 405},
			{"PUT", page.JSONPath, 405},
			{"DELETE", page.JSONPath, 405},
			{"PATCH", page.JSONPath, 405},
			{"OPTIONS", page.JSONPath, 405},
			{"GET", "/json/", 404},
			{"GET", "/JSON", 404},
			{"GET", "/jsons", 404},
			{"GET", "/json/x", 404},
			{"GET", page.Path, 200}, // the page beside it, unchanged
		} {
			fmt.Fprintf(c, "%s %s HTTP/1.1\r\nHost: test\r\n\r\n", tc.method, tc.target)
			what := fmt.Sprintf("bare=%v %s %s", bare, tc.method, tc.target)
			status, h, body, err := ReadAnswer(br, tc.method == "HEAD")
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if status != tc.status {
				t.Errorf("%s: status %d, want %d", what, status, tc.status)
			}
			if got := h.Values("Server"); len(got) != 1 || got[0] != server {
				t.Errorf("%s: Server %q, want one %s", what, got, server)
			}
			if _, err := time.Parse(http.TimeFormat, h.Get("Date")); err != nil {
				t.Errorf("%s: Date %q: %v", what, h.Get("Date"), err)
			}
			switch {
			case tc.status == 405:
				if got := h.Values("Allow"); len(got) != 1 || got[0] != page.Allow {
					t.Errorf("%s: Allow %q, want one %q", what, got, page.Allow)
				}
			case tc.status == 200 && tc.target != page.Path:
				if got := h.Values("Content-Type"); len(got) != 1 || got[0] != ctype {
					t.Errorf("%s: Content-Type %q, want one %q", what, got, ctype)
				}
				if got := h.Values("Content-Length"); len(got) != 1 || got[0] != strconv.Itoa(len(want)) {
					t.Errorf("%s: Content-Length %q, want one %d", what, got, len(want))
				}
				if tc.method == "GET" && body != want {
					t.Errorf("%s: body %q, want %q", what, body, want)
				}
			case tc.status == 200:
				if len(body) != page.Size && tc.method == "GET" {
					t.Errorf("%s: %d bytes of body, want the page's %d", what, len(body), page.Size)
				}
			}
		}
	}
}

// Answers asks /json and its neighbours on one keep-alive connection to
// addr: GET gets the encoded Message with ctype and the page's header
// fields, HEAD the same fields and no body (a body would garble the next
// answer), other methods 405 with Allow, and near paths 404.
func Answers(t *testing.T, addr, server, ctype string) {
	t.Helper()
	AnswersWith(t, addr, server, ctype, page.JSON)
}

// AnswersWith is Answers for a server whose encoder sends json, not
// page.JSON: json.Encoder's, with its newline.
func AnswersWith(t *testing.T, addr, server, ctype string, json []byte) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	br := bufio.NewReader(c)
	ask := func(method, target string) (int, textproto.MIMEHeader, string) {
		t.Helper()
		io.WriteString(c, method+" "+target+" HTTP/1.1\r\nHost: h\r\n\r\n")
		status, h, body, err := ReadAnswer(br, method == "HEAD")
		if err != nil {
			t.Fatalf("%s %s: %v", method, target, err)
		}
		return status, h, body
	}

	_, ph, _ := ask("GET", page.Path)
	for _, target := range []string{page.JSONPath, page.JSONPath + "?a=1"} {
		for _, method := range []string{"GET", "HEAD"} {
			status, h, body := ask(method, target)
			want := string(json)
			if method == "HEAD" {
				want = ""
			}
			if status != 200 || body != want {
				t.Errorf("%s %s: %d %q, want 200 %q", method, target, status, body, want)
			}
			for _, f := range []struct{ name, want string }{
				{"Content-Type", ctype},
				{"Content-Length", strconv.Itoa(len(json))},
				{"Server", server},
			} {
				if v := h[f.name]; len(v) != 1 || v[0] != f.want {
					t.Errorf("%s %s: %s %q, want %q", method, target, f.name, v, f.want)
				}
			}
			if d := h["Date"]; len(d) != 1 {
				t.Errorf("%s %s: Date %q, want one", method, target, d)
			} else if _, err := http.ParseTime(d[0]); err != nil {
				t.Errorf("%s %s: Date: %v", method, target, err)
			}
			if got, want := names(h), names(ph); !slices.Equal(got, want) {
				t.Errorf("%s %s: header fields %q, the page's %q", method, target, got, want)
			}
		}
	}
	for _, method := range []string{"POST", "PUT", "DELETE", "OPTIONS"} {
		if status, h, _ := ask(method, page.JSONPath); status != 405 || !slices.Equal(h["Allow"], []string{page.Allow}) {
			t.Errorf("%s %s: %d, Allow %q; want 405, %q", method, page.JSONPath, status, h["Allow"], page.Allow)
		}
	}
	for _, target := range []string{"/json/", "/JSON", "/jsons", "/json/x"} {
		if status, _, _ := ask("GET", target); status != 404 {
			t.Errorf("GET %s: %d, want 404", target, status)
		}
	}
}

// ReadAnswer reads one HTTP/1.1 response: its status, its header fields as
// sent (textproto merges none and drops none), and the body its one
// Content-Length frames, none after a HEAD.
func ReadAnswer(br *bufio.Reader, head bool) (int, textproto.MIMEHeader, string, error) {
	tr := textproto.NewReader(br)
	line, err := tr.ReadLine()
	if err != nil {
		return 0, nil, "", err
	}
	proto, rest, _ := strings.Cut(line, " ")
	code, _, _ := strings.Cut(rest, " ")
	status, err := strconv.Atoi(code)
	if proto != "HTTP/1.1" || err != nil {
		return 0, nil, "", fmt.Errorf("status line %q", line)
	}
	h, err := tr.ReadMIMEHeader()
	if err != nil || head {
		return status, h, "", err
	}
	cl := h["Content-Length"]
	n, err := strconv.Atoi(strings.Join(cl, ","))
	if len(cl) != 1 || err != nil || n < 0 {
		return status, h, "", fmt.Errorf("%d: Content-Length %q", status, cl)
	}
	body := make([]byte, n)
	_, err = io.ReadFull(br, body)
	return status, h, string(body), err
}

// names returns the names of h's fields, sorted.
func names(h textproto.MIMEHeader) []string {
	return slices.Sorted(maps.Keys(h))
}
