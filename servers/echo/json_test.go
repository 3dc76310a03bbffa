package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"testing"
	"time"

	"hellobench/page"
	"hellobench/servers/internal/nethttpguard"
)

// TestJSON serves GET and HEAD /json over a connection, as main serves,
// guarded and bare: net/http, not the handler, sets Content-Length, which a
// ResponseRecorder would not show. One connection carries every request in
// turn, so a HEAD that sent a body would break the answer after it.
func TestJSON(t *testing.T) {
	// echo's serializer is json.Encoder, whose output ends with a newline.
	want := string(page.JSON) + "\n"
	for _, bare := range []bool{false, true} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := newServer("", time.Second, time.Second, bare)
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
			status, h, body, err := readAnswer(br, tc.method)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if status != tc.status {
				t.Errorf("%s: status %d, want %d", what, status, tc.status)
			}
			if got := h.Values("Server"); len(got) != 1 || got[0] != "echo" {
				t.Errorf("%s: Server %q, want one echo", what, got)
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
				if got := h.Values("Content-Type"); len(got) != 1 || got[0] != page.JSONType {
					t.Errorf("%s: Content-Type %q, want one %q", what, got, page.JSONType)
				}
				if got := h.Values("Content-Length"); len(got) != 1 || got[0] != strconv.Itoa(len(want)) {
					t.Errorf("%s: Content-Length %q, want one %d", what, got, len(want))
				}
				if tc.method == "GET" && string(body) != want {
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

// readAnswer reads one HTTP/1.1 response from br: its status, its header
// as sent, and the Content-Length bytes of its body (none for HEAD).
func readAnswer(br *bufio.Reader, method string) (int, textproto.MIMEHeader, []byte, error) {
	tp := textproto.NewReader(br)
	line, err := tp.ReadLine()
	if err != nil {
		return 0, nil, nil, err
	}
	proto, rest, _ := strings.Cut(line, " ")
	code, _, _ := strings.Cut(rest, " ")
	status, err := strconv.Atoi(code)
	if proto != "HTTP/1.1" || err != nil {
		return 0, nil, nil, fmt.Errorf("status line %q", line)
	}
	h, err := tp.ReadMIMEHeader()
	if err != nil {
		return 0, nil, nil, err
	}
	if method == "HEAD" {
		return status, h, nil, nil
	}
	cl := h.Values("Content-Length")
	n, err := strconv.Atoi(strings.Join(cl, ","))
	if len(cl) != 1 || err != nil {
		return 0, nil, nil, fmt.Errorf("Content-Length %q, want one", cl)
	}
	body := make([]byte, n)
	_, err = io.ReadFull(br, body)
	return status, h, body, err
}
