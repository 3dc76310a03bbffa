package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/bytedance/sonic"
	gojson "github.com/goccy/go-json"

	"hellobench/bench/memconn"
	"hellobench/page"
	"hellobench/servers/internal/nethttpguard"
)

// The JSON encoders a net/http user chooses between, each answering /json
// on the same server loop as main serves it, so that the rows differ by the
// encoder alone. encoders_jsonv2_test.go adds encoding/json/v2, which
// needs GOEXPERIMENT=jsonv2.

// An encoder writes page.Message{page.Greeting} as the answer's body.
type encoder struct {
	name  string
	write func(w http.ResponseWriter, m *page.Message) error
}

// marshalled answers with the bytes of a Marshal-like function, its
// Content-Length set from them.
func marshalled(marshal func(any) ([]byte, error)) func(http.ResponseWriter, *page.Message) error {
	return func(w http.ResponseWriter, m *page.Message) error {
		b, err := marshal(m)
		if err != nil {
			return err
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		_, err = w.Write(b)
		return err
	}
}

var encoders = []encoder{
	// The idiom of main's handler: 28 bytes, the Encoder's newline included.
	{"encoding-json-Encoder", func(w http.ResponseWriter, m *page.Message) error { return json.NewEncoder(w).Encode(m) }},
	{"encoding-json-Marshal", marshalled(json.Marshal)},
	// sonic's default config, as hertz uses it: bytedance's JIT encoder.
	{"sonic-Marshal", marshalled(sonic.Marshal)},
	{"go-json-Marshal", marshalled(gojson.Marshal)},
}

// serveEncoder serves e's answer at /json as main's server does (its
// guard, limits and Server header), the page elsewhere as main does.
func serveEncoder(e encoder) func(net.Listener) error {
	return func(l net.Listener) error {
		srv := newServer("", 10*time.Second, 60*time.Second, false)
		mux := http.NewServeMux()
		mux.HandleFunc("GET "+page.JSONPath, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", page.JSONType)
			if err := e.write(w, &page.Message{Message: page.Greeting}); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
			}
		})
		guarded := nethttpguard.Handler(mux)
		srv.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Server", "nethttp")
			guarded.ServeHTTP(w, r)
		})
		return srv.Serve(nethttpguard.Listener{Listener: l})
	}
}

var jsonRequest = []byte("GET /json HTTP/1.1\r\nHost: bench\r\n\r\n")

// BenchmarkEncoder is net/http's keep-alive loop answering /json with
// each encoder: the difference between two rows is their encoders'.
func BenchmarkEncoder(b *testing.B) {
	for _, e := range encoders {
		b.Run(e.name, func(b *testing.B) {
			memconn.Bench(b, serveEncoder(e), jsonRequest, true)
		})
	}
}

// TestEncoders checks that every encoder's answer is the object, so that
// the benchmark compares equal work.
func TestEncoders(t *testing.T) {
	for _, e := range append(encoders, v2Encoders...) {
		t.Run(e.name, func(t *testing.T) {
			r := answer(t, serveEncoder(e))
			want := string(page.JSON)
			if e.name == "encoding-json-Encoder" {
				want += "\n"
			}
			if r.status != 200 || r.body != want || r.header.Get("Content-Type") != page.JSONType ||
				r.header.Get("Content-Length") != strconv.Itoa(len(want)) || r.header.Get("Server") != "nethttp" {
				t.Errorf("%d %q %v, want 200 %q with its length, type and Server", r.status, r.body, r.header, want)
			}
		})
	}
}

type reply struct {
	status int
	header http.Header
	body   string
}

// answer is serve's answer to one GET /json, over loopback TCP.
func answer(t *testing.T, serve func(net.Listener) error) reply {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- serve(l) }()
	defer func() { l.Close(); <-done }()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte("GET /json HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	r, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return reply{r.StatusCode, r.Header, string(b)}
}
