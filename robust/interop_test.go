package robust

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"mime"
	"net"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"hellobench/internal/targets"
	"hellobench/page"
)

// ngtcp2Client is ngtcp2's example HTTP/3 client, as Debian's
// ngtcp2-client installs it (built on GnuTLS).
const ngtcp2Client = "gtlsclient"

// h2loadEach is how many times h2load asks for each path.
const h2loadEach = 20

// An answer is what an HTTP/3 client got for one path: its fields and
// the body's bytes.
type answer struct {
	path   string
	fields map[string][]string
	body   []byte
}

// check returns an error unless a is 200 with the contract's answer for
// its path: for the page, its Content-Type and exact bytes; for /json,
// its media type (a charset=utf-8 allowed) and the object's bytes (a
// newline after them allowed, as an encoder may end with one); for both,
// one Content-Length that is the body's and the server's Server header.
func (a answer) check(tg targets.Target) error {
	one := func(name string) string {
		if v := a.fields[name]; len(v) == 1 {
			return v[0]
		}
		return fmt.Sprintf("%q", a.fields[name])
	}
	if s := one(":status"); s != "200" {
		return fmt.Errorf("GET %s: status %s, want 200", a.path, s)
	}
	if n, err := strconv.Atoi(one("content-length")); err != nil || n != len(a.body) {
		return fmt.Errorf("GET %s: content-length %s for a body of %d bytes", a.path, one("content-length"), len(a.body))
	}
	if s := one("server"); !strings.HasPrefix(s, tg.ServerHeader) {
		return fmt.Errorf("GET %s: server %s, want %q", a.path, s, tg.ServerHeader)
	}
	ct := one("content-type")
	switch a.path {
	case page.Path:
		if ct != page.ContentType || !bytes.Equal(a.body, page.HTML) {
			return fmt.Errorf("GET %s: content-type %s and %d bytes %q; want %s and the %d-byte page", a.path, ct, len(a.body), a.body, page.ContentType, page.Size)
		}
	case page.JSONPath:
		mt, params, err := mime.ParseMediaType(ct)
		if err != nil || mt != page.JSONType || len(params) > 1 || (len(params) == 1 && !strings.EqualFold(params["charset"], "utf-8")) {
			return fmt.Errorf("GET %s: content-type %s, want %s (a charset=utf-8 allowed)", a.path, ct, page.JSONType)
		}
		if !bytes.Equal(a.body, page.JSON) && !bytes.Equal(a.body, append(bytes.Clone(page.JSON), '\n')) {
			return fmt.Errorf("GET %s: body %q, want %q (a newline after it allowed)", a.path, a.body, page.JSON)
		}
	default:
		return fmt.Errorf("GET %s: no answer the contract names", a.path)
	}
	return nil
}

// fieldLine is how ngtcp2's client prints a field of an answer as it
// decodes it: "http: stream 0x0 [:status: 200]".
var fieldLine = regexp.MustCompile(`(?m)^http: stream (0x[0-9a-f]+) \[(:?[^:\]]+): (.*)\]$`)

// ngtcp2 asks addr for paths with ngtcp2's client, on one QUIC
// connection, a stream each, and returns the answers: the fields it
// printed and the bodies it saved. Its streams are numbered 0, 4, 8...
// in the order of the paths, and it saves each body under the path's
// last element.
func ngtcp2(ctx context.Context, client, addr string, paths ...string) ([]answer, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "hellobench-ngtcp2-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	args := []string{"--exit-on-all-streams-close", "--no-quic-dump", "--no-http-dump", "--download=" + dir, host, port}
	for _, p := range paths {
		args = append(args, "https://localhost:"+port+p)
	}
	cmd := exec.CommandContext(ctx, client, args...)
	cmd.WaitDelay = time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", cmd, err, out)
	}
	fields := map[string]map[string][]string{}
	for _, m := range fieldLine.FindAllSubmatch(out, -1) {
		id := string(m[1])
		if fields[id] == nil {
			fields[id] = map[string][]string{}
		}
		fields[id][string(m[2])] = append(fields[id][string(m[2])], string(m[3]))
	}
	var v []answer
	for i, p := range paths {
		body, err := os.ReadFile(filepath.Join(dir, path.Base(p)))
		if err != nil {
			return nil, fmt.Errorf("the body of %s: %v\n%s", p, err, out)
		}
		v = append(v, answer{path: p, fields: fields[fmt.Sprintf("0x%x", 4*i)], body: body})
	}
	return v, nil
}

// TestH3Interop fetches the page and /json over HTTP/3 from every server
// serving it with clients not written in Go, QUIC, TLS and HTTP/3 none of
// them quic-go's, and checks each answer exactly (answer.check).
//
// ngtcp2's example client (Debian's gtlsclient, on GnuTLS) asks for both
// on one connection. It verifies no certificate: it loads the system's
// roots but never checks the server's chain against them, and takes no CA
// of the test's, so a client that could verify one is not to be had here;
// quic-go's client, trusting the certificate the suite writes and nothing
// else, verifies it in the conformance suite (conformance/h3_test.go).
//
// h2load is the second, where it speaks HTTP/3 (h2load3 says whether):
// Debian 12's, nghttp2 1.52 built without ngtcp2 and nghttp3, does not,
// and its rows are skipped with the reason. It verifies no certificate
// either.
func TestH3Interop(t *testing.T) {
	requireUDP(t)
	raiseUDPBuffers(t)
	pair, _ := h3Pair(t)
	for _, tg := range h3Servers() {
		t.Run(tg.Name, func(t *testing.T) {
			t.Parallel()
			t.Run("ngtcp2", func(tt *testing.T) {
				t := &test{T: tt, row: newRow(tt, tg.Name, "HTTP/3 interop: ngtcp2", "the page and /json, one connection")}
				client := t.tool(ngtcp2Client)
				in := t.startH3(tg, pair)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				answers, err := ngtcp2(ctx, client, in.Addr, page.Path, page.JSONPath)
				if err != nil {
					t.Fatalf("%v", err)
				}
				for _, a := range answers {
					if err := a.check(tg); err != nil {
						t.Errorf("%v", err)
						continue
					}
					t.row.add(t, "GET "+a.path, "200 and the contract's %d bytes", len(a.body))
				}
			})
			t.Run("h2load", func(tt *testing.T) {
				n := h2loadEach
				t := &test{T: tt, row: newRow(tt, tg.Name, "HTTP/3 interop: h2load", fmt.Sprintf("%d of each, one connection", n))}
				h2load := t.tool("h2load")
				if why := h2load3(h2load); why != "" {
					t.Skipf("%s", why)
				}
				in := t.startH3(tg, pair)
				for _, p := range []string{page.Path, page.JSONPath} {
					got, err := h2loadRun(h2load, "h3", in.Addr, p, n)
					if err != nil {
						t.Errorf("%v", err)
						continue
					}
					t.row.add(t, "GET "+p, "%d answers 2xx, %d body bytes", n, got)
				}
			})
		})
	}
}

// h2loadProbe caches h2load3's answer: the program does not change during
// a run.
var h2loadProbe struct {
	once sync.Once
	why  string
}

// h2load3 returns why the h2load at path cannot speak HTTP/3, or "" when
// it can. Given --npn-list=h3 and a URL whose port has a UDP socket of
// the test's, an h2load with HTTP/3 sends a QUIC Initial there (a long
// header packet); one without it speaks TCP alone, and no datagram comes.
func h2load3(path string) string {
	h2loadProbe.once.Do(func() {
		c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			h2loadProbe.why = fmt.Sprintf("no UDP socket to probe h2load with: %v", err)
			return
		}
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, path, "--npn-list=h3", "-n", "1", "-c", "1", "https://"+c.LocalAddr().String()+"/")
		cmd.WaitDelay = time.Second
		if err := cmd.Start(); err != nil {
			h2loadProbe.why = fmt.Sprintf("h2load: %v", err)
			return
		}
		// An h2load without HTTP/3 fails at once, its TCP connection
		// refused or turned down; one with it sends its Initial at once
		// and waits for an answer until it is stopped.
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		exited := make(chan struct{})
		go func() {
			cmd.Wait()
			c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
			close(exited)
		}()
		buf := make([]byte, 2048)
		n, err := c.Read(buf)
		cancel()
		<-exited
		if err == nil && n > 0 && buf[0]&0x80 != 0 {
			return
		}
		version, _ := exec.Command(path, "--version").Output()
		h2loadProbe.why = fmt.Sprintf("%s speaks no HTTP/3: given --npn-list=h3 it sent no QUIC packet (built without HTTP/3, as Debian 12's nghttp2 is)",
			cmp.Or(strings.TrimSpace(string(version)), "h2load"))
	})
	return h2loadProbe.why
}

// h2load's summary lines: the requests, the status codes, the bytes of
// the bodies, and the protocol it spoke.
var (
	h2loadRequests = regexp.MustCompile(`(?m)^requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored`)
	h2loadStatus   = regexp.MustCompile(`(?m)^status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx`)
	h2loadData     = regexp.MustCompile(`(?m)^traffic: .*, \S+ \((\d+)\) data$`)
	h2loadProto    = regexp.MustCompile(`(?m)^Application protocol: (\S+)$`)
)

// h2loadRun asks addr for p n times with h2load over HTTPS, offering
// proto alone by ALPN ("h3": HTTP/3 over QUIC), on one connection, and
// returns the body bytes it counted, or an error unless every request
// succeeded with a 2xx over proto and the bytes are n bodies of the
// contract's answer (the page, or the JSON object with or without a
// newline).
func h2loadRun(h2load, proto, addr, p string, n int) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, h2load, "--npn-list="+proto, "-n", strconv.Itoa(n), "-c", "1", "https://"+addr+p)
	cmd.WaitDelay = time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("%s: %v\n%s", cmd, err, out)
	}
	want := strconv.Itoa(n)
	r, s, d, spoke := h2loadRequests.FindSubmatch(out), h2loadStatus.FindSubmatch(out), h2loadData.FindSubmatch(out), h2loadProto.FindSubmatch(out)
	if r == nil || s == nil || d == nil || spoke == nil {
		return 0, fmt.Errorf("%s: no summary in its output:\n%s", cmd, out)
	}
	if string(spoke[1]) != proto || string(r[4]) != want || string(s[1]) != want {
		return 0, fmt.Errorf("%s: protocol %s, %s of %d succeeded, %s 2xx; want %s and all:\n%s", cmd, spoke[1], r[4], n, s[1], proto, out)
	}
	got, _ := strconv.Atoi(string(d[1]))
	size := page.Size
	if p == page.JSONPath {
		size = page.JSONSize
		if got == n*(size+1) {
			size++
		}
	}
	if got != n*size {
		return got, fmt.Errorf("%s: %d body bytes, want %d answers of %d", cmd, got, n, size)
	}
	return got, nil
}

// TestH2loadCount checks h2loadRun's reading of h2load's summary on
// h2load's real output, where Debian's h2load cannot speak HTTP/3: over
// HTTP/2 to nethttp, each path h2loadEach times, every answer counted to
// the byte; and offering a protocol nethttp does not speak, an error.
func TestH2loadCount(t *testing.T) {
	tg, err := targets.Lookup("nethttp")
	if err != nil {
		t.Fatal(err)
	}
	// The rows of this test are not the report's: it checks the suite.
	tt := &test{T: t, row: &row{Server: tg.Name, Test: "h2load count"}}
	h2load := tt.tool("h2load")
	pair, _ := h3Pair(t)
	in := tt.start(tg, targets.Env{TLSCert: pair.Cert, TLSKey: pair.Key})
	for _, p := range []string{page.Path, page.JSONPath} {
		if _, err := h2loadRun(h2load, "h2", in.Addr, p, h2loadEach); err != nil {
			t.Errorf("%v", err)
		}
	}
	if _, err := h2loadRun(h2load, "h3", in.Addr, page.Path, h2loadEach); err == nil {
		t.Errorf("h2load offering h3 alone to a server over TCP: no error")
	}
}

// TestAnswerCheck shows answer.check failing what is not the contract's
// answer, one field or byte off, and passing what is.
func TestAnswerCheck(t *testing.T) {
	tg, err := targets.Lookup("nethttp")
	if err != nil {
		t.Fatal(err)
	}
	fields := func(ct string, n int) map[string][]string {
		return map[string][]string{":status": {"200"}, "content-type": {ct}, "content-length": {strconv.Itoa(n)}, "server": {tg.ServerHeader}}
	}
	bad := bytes.Clone(page.HTML)
	bad[100]++
	jsonNL := append(bytes.Clone(page.JSON), '\n')
	for _, c := range []struct {
		name string
		a    answer
		ok   bool
	}{
		{"page", answer{page.Path, fields(page.ContentType, page.Size), page.HTML}, true},
		{"page, a byte off", answer{page.Path, fields(page.ContentType, page.Size), bad}, false},
		{"page, cut short", answer{page.Path, fields(page.ContentType, page.Size), page.HTML[:page.Size-1]}, false},
		{"page, length off", answer{page.Path, fields(page.ContentType, page.Size+1), page.HTML}, false},
		{"page, JSON's type", answer{page.Path, fields(page.JSONType, page.Size), page.HTML}, false},
		{"json", answer{page.JSONPath, fields(page.JSONType, page.JSONSize), page.JSON}, true},
		{"json, newline", answer{page.JSONPath, fields(page.JSONType+"; charset=utf-8", page.JSONSize+1), jsonNL}, true},
		{"json, two newlines", answer{page.JSONPath, fields(page.JSONType, page.JSONSize+2), append(bytes.Clone(jsonNL), '\n')}, false},
		{"json, the page's type", answer{page.JSONPath, fields(page.ContentType, page.JSONSize), page.JSON}, false},
	} {
		err := c.a.check(tg)
		if (err == nil) != c.ok {
			t.Errorf("%s: check says %v, want ok %v", c.name, err, c.ok)
		}
	}
	a := answer{page.Path, fields(page.ContentType, page.Size), page.HTML}
	a.fields[":status"] = []string{"404"}
	if a.check(tg) == nil {
		t.Errorf("status 404: check says nothing")
	}
	a = answer{page.Path, fields(page.ContentType, page.Size), page.HTML}
	a.fields["server"] = []string{"other"}
	if a.check(tg) == nil {
		t.Errorf("another Server: check says nothing")
	}
}
