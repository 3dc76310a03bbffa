package main

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
)

// TestJSON serves as main does, through the guard (serve, in
// guard_test.go), and bare: c.JSON adds a charset to the media type.
func TestJSON(t *testing.T) {
	for _, bare := range []bool{false, true} {
		t.Run(fmt.Sprintf("bare=%v", bare), func(t *testing.T) {
			testJSON(t, serve(t, 5*time.Second, bare), "hertz", page.JSONType+"; charset=utf-8")
		})
	}
}

// testJSON asks /json and its neighbours on one keep-alive connection to
// addr: GET gets the encoded Message with ctype and the page's header
// fields, HEAD the same fields and no body (a body would garble the next
// answer), other methods 405 with Allow, and near paths 404.
func testJSON(t *testing.T, addr, server, ctype string) {
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
		status, h, body, err := readAnswer(br, method == "HEAD")
		if err != nil {
			t.Fatalf("%s %s: %v", method, target, err)
		}
		return status, h, body
	}

	_, ph, _ := ask("GET", page.Path)
	for _, target := range []string{page.JSONPath, page.JSONPath + "?a=1"} {
		for _, method := range []string{"GET", "HEAD"} {
			status, h, body := ask(method, target)
			want := string(page.JSON)
			if method == "HEAD" {
				want = ""
			}
			if status != 200 || body != want {
				t.Errorf("%s %s: %d %q, want 200 %q", method, target, status, body, want)
			}
			for _, f := range []struct{ name, want string }{
				{"Content-Type", ctype},
				{"Content-Length", strconv.Itoa(page.JSONSize)},
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

// readAnswer reads one HTTP/1.1 response: its status, its header fields as
// sent (textproto merges none and drops none), and the body its one
// Content-Length frames, none after a HEAD.
func readAnswer(br *bufio.Reader, head bool) (int, textproto.MIMEHeader, string, error) {
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
