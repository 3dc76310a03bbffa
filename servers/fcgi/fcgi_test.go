package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"hellobench/page"
)

// FastCGI record types and constants (FastCGI specification, section 8).
const (
	typeBeginRequest = 1
	typeEndRequest   = 3
	typeParams       = 4
	typeStdin        = 5
	typeStdout       = 6
	typeStderr       = 7
	roleResponder    = 1
	flagKeepConn     = 1
)

// record appends one FastCGI record to b, padded to 8 bytes.
func record(b []byte, typ uint8, id uint16, content []byte) []byte {
	pad := -len(content) & 7
	b = append(b, 1, typ, byte(id>>8), byte(id), byte(len(content)>>8), byte(len(content)), byte(pad), 0)
	b = append(b, content...)
	return append(b, make([]byte, pad)...)
}

// pairs encodes FastCGI name-value pairs.
func pairs(kv ...string) []byte {
	var b []byte
	size := func(n int) {
		if n < 128 {
			b = append(b, byte(n))
		} else {
			b = binary.BigEndian.AppendUint32(b, uint32(n)|1<<31)
		}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		size(len(kv[i]))
		size(len(kv[i+1]))
		b = append(b, kv[i]...)
		b = append(b, kv[i+1]...)
	}
	return b
}

// request returns the records of one request as lighttpd sends them.
func request(id uint16, flags uint8, method, uri string) []byte {
	b := record(nil, typeBeginRequest, id, []byte{0, roleResponder, flags, 0, 0, 0, 0, 0})
	path, query, _ := strings.Cut(uri, "?")
	b = record(b, typeParams, id, pairs(
		"REQUEST_METHOD", method, "REQUEST_URI", uri, "SCRIPT_NAME", "/hello.fcgi",
		"QUERY_STRING", query, "DOCUMENT_URI", path, "SERVER_PROTOCOL", "HTTP/1.1",
		"GATEWAY_INTERFACE", "CGI/1.1", "SERVER_SOFTWARE", "lighttpd/1.4.69",
		"HTTP_HOST", "hellobench", "REMOTE_ADDR", "127.0.0.1", "REMOTE_PORT", "40000",
		"SERVER_ADDR", "127.0.0.1", "SERVER_PORT", "8085", "CONTENT_LENGTH", "0"))
	b = record(b, typeParams, id, nil)
	return record(b, typeStdin, id, nil)
}

// cgiResponse is the application's answer to one request.
type cgiResponse struct {
	status int
	header http.Header
	body   []byte
}

// readResponse reads records for request id up to its END_REQUEST and
// parses the CGI response carried in the STDOUT stream.
func readResponse(r io.Reader, id uint16) (*cgiResponse, error) {
	m, err := readResponses(r, id)
	return m[id], err
}

// readResponses reads the records of the requests ids, which the
// application may interleave, until each has its END_REQUEST.
func readResponses(r io.Reader, ids ...uint16) (map[uint16]*cgiResponse, error) {
	stdout := map[uint16]*bytes.Buffer{}
	for _, id := range ids {
		stdout[id] = new(bytes.Buffer)
	}
	done := map[uint16]*cgiResponse{}
	for len(done) < len(ids) {
		var h [8]byte
		if _, err := io.ReadFull(r, h[:]); err != nil {
			return nil, fmt.Errorf("record header: %w", err)
		}
		if h[0] != 1 {
			return nil, fmt.Errorf("record version %d", h[0])
		}
		id := binary.BigEndian.Uint16(h[2:])
		out, ok := stdout[id]
		if !ok || done[id] != nil {
			return nil, fmt.Errorf("record type %d for request %d, not in flight", h[1], id)
		}
		content := make([]byte, int(binary.BigEndian.Uint16(h[4:]))+int(h[6]))
		if _, err := io.ReadFull(r, content); err != nil {
			return nil, fmt.Errorf("record content: %w", err)
		}
		content = content[:binary.BigEndian.Uint16(h[4:])]
		switch h[1] {
		case typeStdout:
			out.Write(content)
		case typeStderr:
			return nil, fmt.Errorf("request %d: STDERR %q", id, content)
		case typeEndRequest:
			if len(content) != 8 {
				return nil, fmt.Errorf("request %d: END_REQUEST of %d bytes", id, len(content))
			}
			if app, proto := binary.BigEndian.Uint32(content), content[4]; app != 0 || proto != 0 {
				return nil, fmt.Errorf("request %d: END_REQUEST: app status %d, protocol status %d", id, app, proto)
			}
			resp, err := parseCGI(out.Bytes())
			if err != nil {
				return nil, fmt.Errorf("request %d: %w", id, err)
			}
			done[id] = resp
		default:
			return nil, fmt.Errorf("request %d: unexpected record type %d", id, h[1])
		}
	}
	return done, nil
}

func parseCGI(b []byte) (*cgiResponse, error) {
	tr := textproto.NewReader(bufio.NewReader(bytes.NewReader(b)))
	mh, err := tr.ReadMIMEHeader()
	if err != nil {
		return nil, fmt.Errorf("CGI header in %q: %w", b, err)
	}
	var code int
	if _, err := fmt.Sscanf(mh.Get("Status"), "%d", &code); err != nil {
		return nil, fmt.Errorf("CGI Status %q: %w", mh.Get("Status"), err)
	}
	body, _ := io.ReadAll(tr.R)
	return &cgiResponse{status: code, header: http.Header(mh), body: body}, nil
}

var bin string // the application, built by TestMain

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hellobench-fcgi-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "fcgi")
	code := 1
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
	} else {
		code = m.Run()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// app is the application started on a unix socket.
type app struct {
	cmd    *exec.Cmd
	socket string
	stderr bytes.Buffer
	exited chan error
}

func startApp(t *testing.T) *app {
	t.Helper()
	a := &app{socket: filepath.Join(t.TempDir(), "app.sock"), exited: make(chan error, 1)}
	a.cmd = exec.Command(bin, "-socket", a.socket)
	a.cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
	a.cmd.Stderr = &a.stderr
	if err := a.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { a.exited <- a.cmd.Wait() }()
	t.Cleanup(func() {
		a.cmd.Process.Kill()
		<-a.exited
	})
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if c, err := net.Dial("unix", a.socket); err == nil {
			c.Close()
			return a
		}
		if time.Now().After(deadline) {
			t.Fatalf("application not listening on %s after 5s", a.socket)
		}
	}
}

func (a *app) dial(t *testing.T) *net.UnixConn {
	t.Helper()
	c, err := net.Dial("unix", a.socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(5 * time.Second))
	return c.(*net.UnixConn)
}

// alive fails the test if the application has exited.
func (a *app) alive(t *testing.T) {
	t.Helper()
	select {
	case err := <-a.exited:
		a.exited <- err
		t.Fatalf("application exited: %v\n%s", err, &a.stderr)
	default:
	}
}

// do sends one request on a fresh connection and reads the answer; without
// FCGI_KEEP_CONN the application must close the connection after it.
func (a *app) do(t *testing.T, method, uri string) *cgiResponse {
	t.Helper()
	c := a.dial(t)
	if _, err := c.Write(request(1, 0, method, uri)); err != nil {
		t.Fatal(err)
	}
	r, err := readResponse(c, 1)
	if err != nil {
		t.Fatalf("%s %s: %v", method, uri, err)
	}
	expectEOF(t, c)
	return r
}

// expectEOF asserts that the application closed c without sending more.
func expectEOF(t *testing.T, c net.Conn) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(3 * time.Second))
	n, err := c.Read(make([]byte, 1))
	if n > 0 || !errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("expected the application to close the connection: read %d bytes, %v", n, err)
	}
}

func checkPage(t *testing.T, r *cgiResponse, method string) {
	t.Helper()
	if r.status != 200 {
		t.Fatalf("%s: status %d, want 200", method, r.status)
	}
	want := page.HTML
	if method == "HEAD" {
		want = nil
	}
	if !bytes.Equal(r.body, want) {
		t.Errorf("%s: body of %d bytes, want %d bytes of the page: %q", method, len(r.body), len(want), r.body)
	}
	if got := r.header.Get("Content-Type"); got != page.ContentType {
		t.Errorf("%s: Content-Type %q, want %q", method, got, page.ContentType)
	}
	if got := r.header.Values("Content-Length"); len(got) != 1 || got[0] != "257" {
		t.Errorf("%s: Content-Length %q, want 257", method, got)
	}
	if got := r.header.Get("Server"); got != "" {
		t.Errorf("%s: Server %q: the application must leave it to lighttpd", method, got)
	}
	if _, err := time.Parse(http.TimeFormat, r.header.Get("Date")); err != nil {
		t.Errorf("%s: Date %q: %v", method, r.header.Get("Date"), err)
	}
}

func TestResponses(t *testing.T) {
	a := startApp(t)
	checkPage(t, a.do(t, "GET", page.Path), "GET")
	checkPage(t, a.do(t, "GET", page.Path+"?name=hellobench"), "GET")
	checkPage(t, a.do(t, "HEAD", page.Path), "HEAD")
	for _, uri := range []string{"/", "/hello", "/hello/world/", "/Hello/world", "/hello.fcgi"} {
		if r := a.do(t, "GET", uri); r.status != 404 || r.header.Get("Content-Length") != fmt.Sprint(len(r.body)) {
			t.Errorf("GET %s: status %d, Content-Length %q, %d body bytes; want 404 with its length", uri, r.status, r.header.Get("Content-Length"), len(r.body))
		}
	}
	for _, m := range []string{"POST", "PUT", "DELETE", "OPTIONS", "BREW"} {
		r := a.do(t, m, page.Path)
		if r.status != 405 || r.header.Get("Allow") != page.Allow {
			t.Errorf("%s: status %d, Allow %q; want 405, %q", m, r.status, r.header.Get("Allow"), page.Allow)
		}
	}
	if !strings.Contains(a.stderr.String(), "fcgi: listening on "+a.socket+" (GOMAXPROCS=1)") {
		t.Errorf("no start line in the log: %q", a.stderr.String())
	}
}

func TestKeepConn(t *testing.T) {
	a := startApp(t)
	c := a.dial(t)
	// Three requests with FCGI_KEEP_CONN on one connection, the records of
	// all three in one write; then one without it, which ends the connection.
	var b []byte
	for id := uint16(1); id <= 3; id++ {
		b = append(b, request(id, flagKeepConn, "GET", page.Path)...)
	}
	if _, err := c.Write(b); err != nil {
		t.Fatal(err)
	}
	// net/http/fcgi serves them concurrently: records may interleave.
	rs, err := readResponses(c, 1, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		checkPage(t, r, "GET")
	}
	if _, err := c.Write(request(4, 0, "GET", page.Path)); err != nil {
		t.Fatal(err)
	}
	r, err := readResponse(c, 4)
	if err != nil {
		t.Fatalf("request 4: %v", err)
	}
	checkPage(t, r, "GET")
	expectEOF(t, c)
}

func TestBadRecords(t *testing.T) {
	a := startApp(t)
	cases := []struct {
		name string
		b    []byte
	}{
		// Version 2 in the first record's header.
		{"bad-version", func() []byte { b := request(1, 0, "GET", page.Path); b[0] = 2; return b }()},
		// A PARAMS header promising 100 bytes, 10 of them sent.
		{"truncated", append(record(nil, typeBeginRequest, 1, []byte{0, roleResponder, 0, 0, 0, 0, 0, 0}),
			1, typeParams, 0, 1, 0, 100, 0, 0, 'R', 'E', 'Q', 'U', 'E', 'S', 'T', '_', 'M', 'E')},
		// Half a record header.
		{"short-header", []byte{1, typeBeginRequest, 0}},
		// A BEGIN_REQUEST body of 4 bytes instead of 8.
		{"short-begin", record(nil, typeBeginRequest, 1, []byte{0, roleResponder, 0, 0})},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := a.dial(t)
			if _, err := c.Write(tc.b); err != nil {
				t.Fatal(err)
			}
			// A truncated record is only known as such at end of input.
			if tc.name == "truncated" || tc.name == "short-header" {
				c.CloseWrite()
			}
			expectEOF(t, c)
			a.alive(t)
			checkPage(t, a.do(t, "GET", page.Path), "GET")
		})
	}
}

func TestSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			a := startApp(t)
			a.cmd.Process.Signal(sig)
			select {
			case err := <-a.exited:
				a.exited <- err
				if err != nil {
					t.Fatalf("exit: %v\n%s", err, &a.stderr)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("still running 5s after the signal")
			}
			if _, err := os.Stat(a.socket); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("socket file left behind: %v", err)
			}
		})
	}
}

// TestNoSocket checks that the application, run by hand without -socket, says
// what is wrong instead of serving nothing.
func TestNoSocket(t *testing.T) {
	cmd := exec.Command(bin)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() == 0 {
		t.Fatalf("exit %v, want a failure", err)
	}
	if !strings.Contains(string(out), "stdin is not a listening socket") {
		t.Errorf("message %q does not say what is wrong", out)
	}
}
