package nethttpguard

import (
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"hellobench/servers/internal/framing"
)

const get = "GET /hello/world HTTP/1.1\r\nHost: x\r\n\r\n"

// hidden is a request whose body looks like a head and empty lines.
var hidden = func() string {
	body := "Transfer-Encoding: chunked\r\n\r\n\r\n\r\n" + get
	return "POST / HTTP/1.1\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}()

// The scanner's cases: in, what net/http must be handed of it, and whether
// the stream ends in a framing error there.
var scanCases = []struct {
	name, in, out string
	err           bool
}{
	{"get", get + get, get + get, false},
	{"bare-lf-lines", "GET / HTTP/1.1\nHost: x\n\n" + get, "GET / HTTP/1.1\nHost: x\n\n" + get, false},
	{"leading-empty-lines", "\r\n\r\n\n" + get + "\r\n" + get, get + get, false},
	{"body-skipped", hidden + get, hidden + get, false},
	{"same-content-length-twice", "POST / HTTP/1.1\r\ncontent-length: 2\r\nCONTENT-LENGTH:\t2 \r\n\r\nab" + get, "POST / HTTP/1.1\r\ncontent-length: 2\r\nCONTENT-LENGTH:\t2 \r\n\r\nab" + get, false},
	{"chunked", "POST / HTTP/1.1\r\nTransfer-Encoding: gzip, Chunked\r\n\r\n" +
		"A;a=b;c;d=\"q\\\"\"\r\n0123456789\r\n1 ; e = f\r\nx\r\n000\r\nT: v\r\n\r\n" + get,
		"POST / HTTP/1.1\r\nTransfer-Encoding: gzip, Chunked\r\n\r\n" +
			"A;a=b;c;d=\"q\\\"\"\r\n0123456789\r\n1 ; e = f\r\nx\r\n000\r\nT: v\r\n\r\n" + get, false},
	{"obs-fold-elsewhere", "GET / HTTP/1.1\r\nX: a\r\n Transfer-Encoding: chunked\r\n\r\n" + get, "GET / HTTP/1.1\r\nX: a\r\n Transfer-Encoding: chunked\r\n\r\n" + get, false},
	{"names-alike", "GET / HTTP/1.1\r\nContent-Type: a\r\nTE: trailers\r\nTransfer_Encoding: chunked\r\nContent-Lengths: 5\r\n\r\n" + get, "GET / HTTP/1.1\r\nContent-Type: a\r\nTE: trailers\r\nTransfer_Encoding: chunked\r\nContent-Lengths: 5\r\n\r\n" + get, false},
	{"http10-chunked-words", "GET /HTTP/1.0 HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", "GET /HTTP/1.0 HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", false},

	// HTTP/2 with prior knowledge: frames after the preface pass unread,
	// bytes that would end an HTTP/1.1 stream included.
	{"h2-preface", h2Preface + "\x00\x00\x00\x04\x00\x00\x00\x00\x00\r\rTransfer-Encoding: x\r\n\r\n", h2Preface + "\x00\x00\x00\x04\x00\x00\x00\x00\x00\r\rTransfer-Encoding: x\r\n\r\n", false},

	{"h2-preface-not-first", get + h2Preface + "\r\r", get + h2Preface, true},
	{"h2-preface-differs", "PRI * HTTP/2.0\r\n\r\nSN\r\n\r\n\r\r", "PRI * HTTP/2.0\r\n\r\nSN\r\n\r\n", true},
	{"te-cl", get + "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n", get + "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r", true},
	{"te-http10", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r", true},
	{"te-not-chunked", "POST / HTTP/1.1\r\nTransfer-Encoding: identity\r\n\r\n", "POST / HTTP/1.1\r\nTransfer-Encoding: identity\r\n\r", true},
	{"te-chunked-first", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r", true},
	{"te-folded", "POST / HTTP/1.1\r\nTransfer-Encoding:\r\n chunked\r\n\r\n", "POST / HTTP/1.1\r\nTransfer-Encoding:\r\n", true},
	{"cl-differ", "POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", "POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r", true},
	{"cl-sign", "POST / HTTP/1.1\r\nContent-Length: +1\r\n\r\n", "POST / HTTP/1.1\r\nContent-Length: +1\r", true},
	{"cr-before-request", "\r\rGET", "", true},
	{"chunk-ext-empty", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2;\r\naa\r\n0\r\n\r\n", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2;", true},
	{"chunk-size-space", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2 \r\naa\r\n0\r\n\r\n", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2 ", true},
	{"chunk-ext-space-end", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2;a \r\naa\r\n0\r\n\r\n", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2;a ", true},
	{"chunk-ext-quote-open", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2;a=\"b\r\naa\r\n", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2;a=\"b", true},
	{"chunk-bare-lf", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\naa\r\n", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2", true},
	{"chunk-overrun", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\naaa\r\n", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\naa", true},
	{"chunk-size-huge", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000002\r\n", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1000000000000000", true},
	{"trailer-name", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nA B: c\r\n\r\n", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nA", true},
}

// scanAll feeds in to a fresh scanner in pieces cut at cuts and returns
// what it keeps and whether it ended in an error.
func scanAll(in string, cuts []int) (string, bool) {
	var s scanner
	var out strings.Builder
	prev := 0
	for _, cut := range append(cuts, len(in)) {
		p := []byte(in[prev:cut])
		prev = cut
		n, err := s.Scan(p)
		out.Write(p[:n])
		if err != nil {
			return out.String(), true
		}
	}
	return out.String(), false
}

func TestScanner(t *testing.T) {
	for _, tc := range scanCases {
		t.Run(tc.name, func(t *testing.T) {
			check := func(how string, cuts []int) {
				t.Helper()
				out, err := scanAll(tc.in, cuts)
				if out != tc.out || err != tc.err {
					t.Fatalf("%s: kept %q, error %v; want %q, error %v", how, out, err, tc.out, tc.err)
				}
			}
			check("whole", nil)
			// Reads end anywhere, as small as net/http's one-byte
			// background read.
			for cut := 1; cut < len(tc.in); cut++ {
				check("cut at "+strconv.Itoa(cut), []int{cut})
			}
			var each []int
			for i := 1; i < len(tc.in); i++ {
				each = append(each, i)
			}
			check("byte by byte", each)
		})
	}
}

// FuzzScan checks that a split of the input changes nothing: what the
// scanner keeps and whether it ends in an error are the same whole, byte by
// byte, and in pieces of sizes taken from the input.
func FuzzScan(f *testing.F) {
	for _, tc := range scanCases {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in := string(data)
		out, err := scanAll(in, nil)
		var each, pieces []int
		for i := 1; i < len(in); i++ {
			each = append(each, i)
		}
		for i, k := 0, 1; len(in) > 0; i++ {
			if k += int(data[i%len(data)]%13) + 1; k >= len(in) {
				break
			}
			pieces = append(pieces, k)
		}
		for _, cuts := range [][]int{each, pieces} {
			if out2, err2 := scanAll(in, cuts); out2 != out || err2 != err {
				t.Fatalf("%q cut at %v: kept %q, error %v; whole: %q, %v", in, cuts, out2, err2, out, err)
			}
		}
	})
}

// TestConnError checks that net/http is handed the bytes before a framing
// error, then the error, and never the rest.
func TestConnError(t *testing.T) {
	client, server := net.Pipe()
	defer client.Close()
	c := framing.NewConn(server, new(scanner))
	go func() {
		io.WriteString(client, "\r\n"+get+"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n")
	}()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	got, err := io.ReadAll(c)
	var fe *framing.Error
	if !errors.As(err, &fe) || fe.Status != 400 {
		t.Fatalf("error %v, want a framing error with status 400", err)
	}
	if want := get + "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r"; string(got) != want {
		t.Errorf("read %q, want %q", got, want)
	}
	if _, err2 := c.Read(make([]byte, 10)); err2 != err {
		t.Errorf("the next read returned %v, want the framing error again", err2)
	}
}

// BenchmarkScan is the guard's cost on a plain GET.
func BenchmarkScan(b *testing.B) {
	req := []byte("GET /hello/world HTTP/1.1\r\nHost: bench\r\n\r\n")
	var s scanner
	b.SetBytes(int64(len(req)))
	for b.Loop() {
		if n, err := s.Scan(req); err != nil || n != len(req) {
			b.Fatalf("scan: %d of %d bytes, %v", n, len(req), err)
		}
	}
}
