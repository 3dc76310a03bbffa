package fasthttpguard

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"
)

// outcome is what the scanner made of a stream: how many bytes it passed on,
// the status of its error (0 for none), and the stream offsets at which the
// requests it saw whole end.
type outcome struct {
	kept   int
	status int
	ends   []int
}

// scanAll feeds data to a scanner in pieces of the given sizes (used in
// turn) and notes each request's end as it goes by byte.
func scanAll(data []byte, sizes ...int) outcome {
	var s scanner
	var o outcome
	for i, pos := 0, 0; pos < len(data); i++ {
		k := min(sizes[i%len(sizes)], len(data)-pos)
		piece := append([]byte(nil), data[pos:pos+k]...)
		m, err := s.Scan(piece)
		o.kept += m
		if err != nil {
			var fe *Error
			if !errors.As(err, &fe) {
				panic(err)
			}
			o.status = fe.Status
			break
		}
		pos += k
	}
	o.ends = requestEnds(data[:o.kept])
	return o
}

// requestEnds returns the offsets at which a scanner fed b byte by byte
// ends a request: where it comes back to sStart other than past an empty
// line.
func requestEnds(b []byte) []int {
	var s scanner
	var ends []int
	for i := range b {
		before := s.state
		if _, err := s.Scan(b[i : i+1]); err != nil {
			panic(fmt.Sprintf("byte by byte: %v at %d, whole: none", err, i))
		}
		if s.state == sStart && before != sStart && before != sStartLF {
			ends = append(ends, i+1)
		}
	}
	return ends
}

const get = "GET /hello/world HTTP/1.1\r\nHost: h\r\n\r\n"

func post(body string, fields ...string) string {
	return "POST /hello/world HTTP/1.1\r\nHost: h\r\n" + strings.Join(append(fields, ""), "\r\n") + "\r\n" + body
}

func chunked(body string) string { return post(body, "Transfer-Encoding: chunked") }

func TestScan(t *testing.T) {
	all := -1
	tests := []struct {
		name   string
		in     string
		kept   int // bytes passed on; all for the whole input
		status int
	}{
		{"get", get + get, all, 0},
		{"partial get", get + "GET /hello", all, 0},
		{"empty lines first", "\r\n\r\n" + get, all, 0},
		{"length body", post("hello", "Content-Length: 5") + get, all, 0},
		{"length body, any case", post("hello", "cOnTeNt-LeNgTh:  5 ") + get, all, 0},
		{"same length twice", post("hello", "Content-Length: 5", "Content-Length: 5"), all, 0},
		{"length on GET", "GET / HTTP/1.1\r\nContent-Length: 3\r\n\r\nGET" + get, all, 0},
		{"other fields", post("", "Content-Type: text/plain", "Transfer-Encodings: x", "Content-Lengths: 9", "TE: trailers", "C: 1"), all, 0},
		{"chunked", chunked("5\r\nhello\r\nA\r\n0123456789\r\n0\r\n\r\n") + get, all, 0},
		{"chunked, any case", post("0\r\n\r\n", "TrAnSFer-EnCODinG: cHuNkeD"), all, 0},
		{"chunk extensions", chunked("2 ; a = b\t;c\r\nhi\r\n2;q=\"a \\\" ;\\\\ \xff\"\r\nhi\r\n2;x=\"\"\r\nhi\r\n00;last\r\n\r\n"), all, 0},
		{"trailers", chunked("0\r\nX-T: 1\r\nY:\r\n\r\n") + get, all, 0},
		{"crlf after body", post("hello", "Content-Length: 5") + "\r\n" + get, all, 0},

		{"bare LF ending a line", "GET / HTTP/1.1\r\nHost: h\n\r\n", len("GET / HTTP/1.1\r\nHost: h"), 400},
		{"bare LF request line", "GET / HTTP/1.1\nHost: h\r\n\r\n", len("GET / HTTP/1.1"), 400},
		{"bare LF empty line first", "\n" + get, 0, 400},
		{"CR alone before request", "\rGET", 1, 400},
		{"obs-fold", "GET / HTTP/1.1\r\nX: a\r\n b\r\n\r\n", len("GET / HTTP/1.1\r\nX: a\r\n"), 400},
		{"space in name", "GET / HTTP/1.1\r\nTransfer Encoding: chunked\r\n\r\n", len("GET / HTTP/1.1\r\nTransfer"), 400},
		{"space before colon", "GET / HTTP/1.1\r\nHost : h\r\n\r\n", len("GET / HTTP/1.1\r\nHost"), 400},
		{"non-ASCII name", "GET / HTTP/1.1\r\nX-\xc3\xb6: 1\r\n\r\n", len("GET / HTTP/1.1\r\nX-"), 400},
		{"CR without LF ending the header", "GET / HTTP/1.1\r\nHost: h\r\n\rX", len("GET / HTTP/1.1\r\nHost: h\r\n\r"), 400},

		{"length and chunked", post("0\r\n\r\n", "Content-Length: 5", "Transfer-Encoding: chunked"), len(post("", "Content-Length: 5", "Transfer-Encoding: chunked")) - 1, 400},
		{"chunked and length", post("0\r\n\r\n", "Transfer-Encoding: chunked", "Content-Length: 5"), len(post("", "Transfer-Encoding: chunked", "Content-Length: 5")) - 1, 400},
		{"identity", post("", "Transfer-Encoding: identity"), len(post("", "Transfer-Encoding: identity")) - 3, 400},
		{"chunked twice", post("", "Transfer-Encoding: chunked", "Transfer-Encoding: chunked"), len(post("", "Transfer-Encoding: chunked", "Transfer-Encoding: chunked")) - 3, 400},
		{"chunked, chunked", post("", "Transfer-Encoding: chunked, chunked"), len(post("", "Transfer-Encoding: chunked, chunked")) - 3, 400},
		{"chunked, gzip", post("", "Transfer-Encoding: chunked, gzip"), len(post("", "Transfer-Encoding: chunked, gzip")) - 3, 400},
		{"empty element", post("", "Transfer-Encoding: , chunked"), len(post("", "Transfer-Encoding: , chunked")) - 3, 400},
		{"gzip, chunked", post("", "Transfer-Encoding: gzip, chunked"), len(post("", "Transfer-Encoding: gzip, chunked")) - 3, 501},
		{"folded chunked", post("", "Transfer-Encoding:", " chunked"), len(post("", "Transfer-Encoding:")) - 3, 400},
		{"lengths differ", post("hello", "Content-Length: 5", "Content-Length: 6"), len(post("", "Content-Length: 5", "Content-Length: 6")) - 3, 400},
		{"signed length", post("hello", "Content-Length: +5"), len(post("", "Content-Length: +5")) - 3, 400},
		{"long length", post("", "Content-Length: 0000000000000000000000000000000005"), len(post("", "Content-Length:")) - 4 + len(scanner{}.value), 400},

		{"size with space", chunked("a \r\n0123456789\r\n0\r\n\r\n"), len(chunked("a ")), 400},
		{"size with tab", chunked("2\t\r\naa\r\n0\r\n\r\n"), len(chunked("2\t")), 400},
		{"size 0x", chunked("0x2\r\naa\r\n0\r\n\r\n"), len(chunked("0")), 400},
		{"no size", chunked("\r\naa\r\n0\r\n\r\n"), len(chunked("")), 400},
		{"size too long", chunked("0000000000000002\r\naa\r\n0\r\n\r\n"), len(chunked("000000000000000")), 400},
		{"empty extension", chunked("2;\r\naa\r\n0\r\n\r\n"), len(chunked("2;")), 400},
		{"extension without name", chunked("2;=v\r\naa\r\n0\r\n\r\n"), len(chunked("2;")), 400},
		{"extension without value", chunked("2;a=\r\naa\r\n0\r\n\r\n"), len(chunked("2;a=")), 400},
		{"unbalanced quote", chunked("2;a=\"b\r\naa\r\n0\r\n\r\n"), len(chunked("2;a=\"b")), 400},
		{"text after quote", chunked("2;a=\"b\"c\r\naa\r\n0\r\n\r\n"), len(chunked("2;a=\"b\"")), 400},
		{"space in value", chunked("2;a=b c\r\naa\r\n0\r\n\r\n"), len(chunked("2;a=b ")), 400},
		{"trailing space", chunked("2;a \r\naa\r\n0\r\n\r\n"), len(chunked("2;a \r")) - 1, 400},
		{"NUL in extension", chunked("2;a=\"\x00\"\r\naa\r\n0\r\n\r\n"), len(chunked("2;a=\"")), 400},
		{"bare CR in extension", chunked("2;a\rb\r\naa\r\n0\r\n\r\n"), len(chunked("2;a\r")), 400},
		{"bare LF after size", chunked("2\naa\r\n0\r\n\r\n"), len(chunked("2")), 400},
		{"data too long", chunked("2\r\naaa\r\n0\r\n\r\n"), len(chunked("2\r\naa")), 400},
		{"data bare LF", chunked("2\r\naa\n0\r\n\r\n"), len(chunked("2\r\naa")), 400},
		{"last chunk bare LF", chunked("0\n\r\n"), len(chunked("0")), 400},
		{"trailer name with space", chunked("0\r\nBad Name: v\r\n\r\n"), len(chunked("0\r\nBad")), 400},
		{"trailer bare LF", chunked("0\r\nT: v\n\r\n"), len(chunked("0\r\nT: v")), 400},
		{"obs-fold in trailer", chunked("0\r\nT: v\r\n w\r\n\r\n"), len(chunked("0\r\nT: v\r\n")), 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := outcome{kept: tt.kept, status: tt.status}
			if tt.kept == all {
				want.kept = len(tt.in)
			}
			got := scanAll([]byte(tt.in), len(tt.in))
			if got.kept != want.kept || got.status != want.status {
				t.Fatalf("scan %q: passed on %d bytes, status %d; want %d, %d", tt.in, got.kept, got.status, want.kept, want.status)
			}
			for _, sizes := range [][]int{{1}, {2, 3}, {7, 1, 13}} {
				if split := scanAll([]byte(tt.in), sizes...); split.kept != got.kept || split.status != got.status {
					t.Errorf("scan %q in pieces %v: %d bytes, status %d; whole: %d, %d", tt.in, sizes, split.kept, split.status, got.kept, got.status)
				}
			}
		})
	}
}

// TestScanAgrees checks, on the valid streams of TestScan, that the scanner
// ends each request where fasthttp does; FuzzScan does so on any input.
func TestScanAgrees(t *testing.T) {
	for _, in := range []string{
		get + get,
		post("hello", "Content-Length: 5") + "\r\n" + get,
		chunked("5;a=\"b\"\r\nhello\r\n0\r\nX-T: 1\r\n\r\n") + post("", "Expect: 100-continue", "Content-Length: 0") + get,
		"GET / HTTP/1.1\r\nContent-Length: 3\r\n\r\nGET" + get,
	} {
		agree(t, []byte(in))
	}
}

// agree checks that fasthttp, reading what the scanner passes on of data
// as the server does, ends each request it reads where the scanner does.
func agree(t *testing.T, data []byte) {
	o := scanAll(data, len(data))
	rd := bytes.NewReader(data[:o.kept])
	br := bufio.NewReader(rd)
	var req fasthttp.Request
	for i := 0; ; i++ {
		req.Reset()
		err := req.Header.Read(br)
		if err == nil {
			err = req.ContinueReadBody(br, 0, false)
		}
		if err != nil {
			return // fasthttp refuses, or the input ends: the connection ends
		}
		end := o.kept - rd.Len() - br.Buffered()
		if i >= len(o.ends) || o.ends[i] != end {
			t.Fatalf("input %q: fasthttp ends request %d at %d, the scanner ends requests at %v", data, i, end, o.ends)
		}
	}
}

// FuzzScan checks that where the scanner passes bytes on, fasthttp reads
// them as the same requests: a split of the input changes nothing, and
// fasthttp ends every request it reads where the scanner does.
func FuzzScan(f *testing.F) {
	f.Add([]byte(get + get))
	f.Add([]byte(post("hello", "Content-Length: 5") + get))
	f.Add([]byte(chunked("5;a=\"b\\\"\"\r\nhello\r\n0\r\nT: 1\r\n\r\n") + get))
	f.Add([]byte("\r\n" + post("0\r\n\r\n", "Transfer-Encoding: chunked", "Content-Length: 5")))
	f.Fuzz(func(t *testing.T, data []byte) {
		whole := scanAll(data, len(data))
		if split := scanAll(data, 1); split.kept != whole.kept || split.status != whole.status {
			t.Fatalf("input %q byte by byte: %d, %d; whole %d, %d", data, split.kept, split.status, whole.kept, whole.status)
		}
		agree(t, data)
	})
}

// BenchmarkScan is the guard's cost on a plain GET.
func BenchmarkScan(b *testing.B) {
	req := []byte("GET /hello/world HTTP/1.1\r\nHost: bench\r\n\r\n")
	var s scanner
	b.SetBytes(int64(len(req)))
	for b.Loop() {
		if _, err := s.Scan(req); err != nil {
			b.Fatal(err)
		}
	}
}
