package main

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"hellobench/page"
)

// jsonBody is what json.Encoder writes for the Message: the object and a
// newline.
var jsonBody = append(page.JSON[:len(page.JSON):len(page.JSON)], '\n')

func checkJSON(t *testing.T, r *cgiResponse, method string) {
	t.Helper()
	if r.status != 200 {
		t.Fatalf("%s: status %d, want 200", method, r.status)
	}
	want := jsonBody
	if method == "HEAD" {
		want = nil
	}
	if !bytes.Equal(r.body, want) {
		t.Errorf("%s: body %q, want %q", method, r.body, want)
	}
	if got := r.header.Values("Content-Type"); len(got) != 1 || got[0] != page.JSONType {
		t.Errorf("%s: Content-Type %q, want one %q", method, got, page.JSONType)
	}
	// HEAD's too: the GET's length, which lighttpd passes on.
	if got := r.header.Values("Content-Length"); len(got) != 1 || got[0] != strconv.Itoa(len(jsonBody)) {
		t.Errorf("%s: Content-Length %q, want one %d", method, got, len(jsonBody))
	}
	if got := r.header.Get("Server"); got != "" {
		t.Errorf("%s: Server %q: the application must leave it to lighttpd", method, got)
	}
	if _, err := time.Parse(http.TimeFormat, r.header.Get("Date")); err != nil {
		t.Errorf("%s: Date %q: %v", method, r.header.Get("Date"), err)
	}
}

// TestJSON checks /json as TestResponses checks the page: the Message to
// GET and HEAD, 405 with Allow to other methods, 404 beside it.
func TestJSON(t *testing.T) {
	a := startApp(t)
	checkJSON(t, a.do(t, "GET", page.JSONPath), "GET")
	checkJSON(t, a.do(t, "GET", page.JSONPath+"?n=1"), "GET")
	checkJSON(t, a.do(t, "HEAD", page.JSONPath), "HEAD")
	for _, uri := range []string{"/json/", "/JSON", "/jsons", "/json/x", "/hello/json"} {
		if r := a.do(t, "GET", uri); r.status != 404 || r.header.Get("Content-Length") != fmt.Sprint(len(r.body)) {
			t.Errorf("GET %s: status %d, Content-Length %q, %d body bytes; want 404 with its length", uri, r.status, r.header.Get("Content-Length"), len(r.body))
		}
	}
	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH", "OPTIONS", "BREW"} {
		r := a.do(t, m, page.JSONPath)
		if r.status != 405 || r.header.Get("Allow") != page.Allow {
			t.Errorf("%s: status %d, Allow %q; want 405, %q", m, r.status, r.header.Get("Allow"), page.Allow)
		}
	}
}

// TestJSONKeepConn sends /json and the page, GET and HEAD, on one
// connection with FCGI_KEEP_CONN, as nginx would.
func TestJSONKeepConn(t *testing.T) {
	a := startApp(t)
	c := a.dial(t)
	var b []byte
	b = append(b, request(1, flagKeepConn, "GET", page.JSONPath)...)
	b = append(b, request(2, flagKeepConn, "GET", page.Path)...)
	b = append(b, request(3, flagKeepConn, "HEAD", page.JSONPath)...)
	if _, err := c.Write(b); err != nil {
		t.Fatal(err)
	}
	rs, err := readResponses(c, 1, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	checkJSON(t, rs[1], "GET")
	checkPage(t, rs[2], "GET")
	checkJSON(t, rs[3], "HEAD")
}
