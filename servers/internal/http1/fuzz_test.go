package http1

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"reflect"
	"regexp"
	"testing"
)

// bwsBeforeExt matches a chunk-size line with whitespace before its
// extension; it may match inside chunk data too, which only ends a
// comparison early.
var bwsBeforeExt = regexp.MustCompile("\r\n[0-9A-Fa-f]+[ \t]+;")

// FuzzParse checks two properties of the parser on any input.
//
// Split invariance: the input fed whole, byte by byte, and in pieces of
// sizes taken from the input itself yields the same requests, body ends and
// error.
//
// Agreement with net/http: every request the parser accepts, Go's
// http.ReadRequest accepts too, with the same method, target, version,
// connection persistence and body framing, and Go's body ends at the same
// offset. The converse is not checked: the parser is deliberately stricter
// than Go in places, and refuses with 400 (or 431, 501, 505) what Go lets
// through: a missing or repeated Host in HTTP/1.1; bare LF line endings;
// obs-fold; URI characters outside RFC 3986 and bad percent-escapes in the
// query; chunked together with Content-Length (Go drops the length);
// Transfer-Encoding in HTTP/1.0 (Go ignores it); control characters in
// chunk-size lines, and chunk extensions outside RFC 9112 section 7.1.1's
// grammar (Go cuts the line at the first ';' and ignores the rest, so it
// takes "2;" or an unbalanced quote, and trailing whitespace); authority-form
// targets; absolute-form targets other than http and https, or with
// userinfo; a header section over 8 KiB (Go's ReadRequest has no such limit,
// its server has a 1 MB one); and versions other than 1.0 and 1.1 (Go's
// server answers 505 too, after ReadRequest).
//
// Where the parser follows RFC 9112 and Go is stricter, the comparison
// allows it: empty lines before a request line, which section 2.2 says a
// server SHOULD ignore and Go refuses, are skipped before Go reads the
// request; and whitespace between a chunk size and its extension's ';',
// which section 7.1.1 allows (BWS) and Go refuses, ends the comparison of
// that input.
func FuzzParse(f *testing.F) {
	f.Add([]byte(get))
	f.Add([]byte("POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello" + get))
	f.Add([]byte("POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5;a=b\r\nhello\r\n0\r\nT: v\r\n\r\n" + get))
	f.Add([]byte("GET http://h:80/a?b HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"))
	f.Add([]byte("\r\nPOST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2 ;a=\"\\\"\"\r\nhi\r\n0\r\n\r\n\r\n" + get))
	f.Fuzz(func(t *testing.T, data []byte) {
		whole := feed(data, len(data))
		sizes := []int{1}
		if len(data) > 0 {
			sizes = append(sizes, int(data[0]%17)+1, int(data[len(data)-1]%5)+1)
		}
		for _, s := range [][]int{{1}, sizes} {
			if split := feed(data, s...); !reflect.DeepEqual(split, whole) {
				t.Fatalf("input %q in pieces %v:\n got %v\nwant %v", data, s, split, whole)
			}
		}

		rd := bytes.NewReader(data)
		br := bufio.NewReader(rd)
		for i, r := range whole {
			if r.Status != 0 {
				return
			}
			for {
				if b, _ := br.Peek(2); string(b) != "\r\n" {
					break
				}
				br.Discard(2)
			}
			start := len(data) - rd.Len() - br.Buffered()
			req, err := http.ReadRequest(br)
			if err != nil {
				t.Fatalf("input %q: request %d: we accept %v, net/http refuses: %v", data, i, r, err)
			}
			if req.Method != r.Method || req.RequestURI != r.Target || req.ProtoMajor != 1 || req.ProtoMinor != int(r.Minor) {
				t.Fatalf("input %q: request %d: we read %v, net/http %s %s %s", data, i, r, req.Method, req.RequestURI, req.Proto)
			}
			if req.Close == r.KeepAlive {
				t.Fatalf("input %q: request %d: we read keep-alive %v, net/http Close %v", data, i, r.KeepAlive, req.Close)
			}
			goChunked := len(req.TransferEncoding) == 1 && req.TransferEncoding[0] == "chunked"
			if goChunked != r.Chunked || (!r.Chunked && req.ContentLength != r.Length) {
				t.Fatalf("input %q: request %d: we read length %d chunked %v, net/http %d %v",
					data, i, r.Length, r.Chunked, req.ContentLength, req.TransferEncoding)
			}
			if !r.Done {
				return // the body is cut short; so would Go's be
			}
			if _, err := io.Copy(io.Discard, req.Body); err != nil {
				if r.Chunked && bwsBeforeExt.Match(data[start:r.End]) {
					return
				}
				t.Fatalf("input %q: request %d: we read the body, net/http fails: %v", data, i, err)
			}
			if end := len(data) - rd.Len() - br.Buffered(); end != r.End {
				t.Fatalf("input %q: request %d: we end the message at %d, net/http at %d", data, i, r.End, end)
			}
		}
	})
}
