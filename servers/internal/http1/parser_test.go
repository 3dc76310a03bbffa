package http1

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// result is what the parser reported for one request: its header fields and
// whether its body completed, or the status it failed with.
type result struct {
	Method, Target, Path string
	Minor                byte
	KeepAlive            bool
	Length               int64
	Chunked, Continue    bool
	Done                 bool
	End                  int // stream offset just past the message, when Done
	Status               int
	Reason               string
}

func (r result) String() string {
	if r.Status != 0 {
		return fmt.Sprintf("fail %d (%s)", r.Status, r.Reason)
	}
	return fmt.Sprintf("%s %s path=%s 1.%d keep=%v len=%d chunked=%v continue=%v done=%v end=%d",
		r.Method, r.Target, r.Path, r.Minor, r.KeepAlive, r.Length, r.Chunked, r.Continue, r.Done, r.End)
}

// feed runs a parser over data delivered in pieces of the given sizes (used
// in turn), buffering as the server does: the bytes the parser is not done
// with stay, in a fresh copy, in front of the next piece.
func feed(data []byte, sizes ...int) []result {
	var (
		p    Parser
		buf  []byte
		res  []result
		done int // stream offset of buf[0]
		pos  int // stream offset of the next byte to deliver
	)
	for i := 0; ; i++ {
		if pos < len(data) {
			k := min(sizes[i%len(sizes)], len(data)-pos)
			buf = append(append([]byte(nil), buf...), data[pos:pos+k]...)
			pos += k
		}
		for {
			n, ev := p.Parse(buf)
			buf = buf[n:]
			done += n
			switch ev {
			case Header:
				r := p.Req
				res = append(res, result{
					Method: string(r.Method), Target: string(r.Target), Path: string(r.Path),
					Minor: r.Minor, KeepAlive: r.KeepAlive, Length: r.Length,
					Chunked: r.Chunked, Continue: r.Continue,
				})
				continue
			case Done:
				res[len(res)-1].Done = true
				res[len(res)-1].End = done
				continue
			case Fail:
				return append(res, result{Status: p.Status, Reason: p.Reason})
			}
			break // More
		}
		if pos == len(data) {
			return res
		}
	}
}

// short shortens s for an error message.
func short(s string) string {
	if len(s) > 200 {
		return s[:100] + "..." + s[len(s)-100:]
	}
	return s
}

const get = "GET /hello/world HTTP/1.1\r\nHost: example.com\r\n\r\n"

func TestParse(t *testing.T) {
	ok := func(method, target, path string, minor byte, keep bool) result {
		return result{Method: method, Target: target, Path: path, Minor: minor, KeepAlive: keep, Done: true}
	}
	fail := func(status int) result { return result{Status: status} }
	withBody := func(r result, length int64, chunked, cont bool) result {
		r.Length, r.Chunked, r.Continue = length, chunked, cont
		return r
	}
	// unfinished is the POST whose chunked body fails.
	unfinished := withBody(ok("POST", "/x", "/x", 1, true), 0, true, false)
	unfinished.Done = false
	big := strings.Repeat("a", 8000)
	tests := []struct {
		name string
		in   string
		want []result
	}{
		// Request line.
		{"get", get, []result{ok("GET", "/hello/world", "/hello/world", 1, true)}},
		{"query", "GET /hello/world?x=1&y=%41 HTTP/1.1\r\nHost: h\r\n\r\n", []result{ok("GET", "/hello/world?x=1&y=%41", "/hello/world", 1, true)}},
		{"head", "HEAD /hello/world HTTP/1.1\r\nHost: h\r\n\r\n", []result{ok("HEAD", "/hello/world", "/hello/world", 1, true)}},
		{"other method", "PURGE /x HTTP/1.1\r\nHost: h\r\n\r\n", []result{ok("PURGE", "/x", "/x", 1, true)}},
		{"lower-case method is a token", "get / HTTP/1.1\r\nHost: h\r\n\r\n", []result{ok("get", "/", "/", 1, true)}},
		{"absolute-form", "GET http://example.com/hello/world?q HTTP/1.1\r\nHost: example.com\r\n\r\n", []result{ok("GET", "http://example.com/hello/world?q", "/hello/world", 1, true)}},
		{"absolute-form, empty path", "GET HTTPS://Example.com:443 HTTP/1.1\r\nHost: x\r\n\r\n", []result{ok("GET", "HTTPS://Example.com:443", "/", 1, true)}},
		{"absolute-form, query only", "GET http://h?a=b HTTP/1.1\r\nHost: h\r\n\r\n", []result{ok("GET", "http://h?a=b", "/", 1, true)}},
		{"absolute-form, IPv6", "GET http://[::1]:8080/x HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n", []result{ok("GET", "http://[::1]:8080/x", "/x", 1, true)}},
		{"asterisk-form", "OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n", []result{ok("OPTIONS", "*", "*", 1, true)}},
		{"HTTP/1.0", "GET / HTTP/1.0\r\n\r\n", []result{ok("GET", "/", "/", 0, false)}},
		{"no method", " / HTTP/1.1\r\nHost: h\r\n\r\n", []result{fail(400)}},
		{"bad method char", "G(T / HTTP/1.1\r\nHost: h\r\n\r\n", []result{fail(400)}},
		{"two spaces", "GET  / HTTP/1.1\r\nHost: h\r\n\r\n", []result{fail(400)}},
		{"tab separator", "GET\t/ HTTP/1.1\r\nHost: h\r\n\r\n", []result{fail(400)}},
		{"trailing space", "GET / HTTP/1.1 \r\nHost: h\r\n\r\n", []result{fail(400)}},
		{"no version", "GET /\r\nHost: h\r\n\r\n", []result{fail(400)}},
		{"space in target", "GET /a b HTTP/1.1\r\nHost: h\r\n\r\n", []result{fail(400)}},
		{"lower-case version", "GET / http/1.1\r\nHost: h\r\n\r\n", []result{fail(400)}},
		{"version 1.10", "GET / HTTP/1.10\r\nHost: h\r\n\r\n", []result{fail(400)}},
		{"version 2", "GET / HTTP/2\r\nHost: h\r\n\r\n", []result{fail(400)}},
		{"version 2.0", "GET / HTTP/2.0\r\nHost: h\r\n\r\n", []result{fail(505)}},
		{"version 1.2", "GET / HTTP/1.2\r\nHost: h\r\n\r\n", []result{fail(505)}},
		{"version 0.9", "GET / HTTP/0.9\r\n\r\n", []result{fail(505)}},
		{"relative target", "GET hello HTTP/1.1\r\nHost: h\r\n\r\n", []result{fail(400)}},
		{"bad escape", "GET /a%zz HTTP/1.1\r\nHost: h\r\n\r\n", []result{fail(400)}},
		{"short escape", "GET /a% HTTP/1.1\r\nHost: h\r\n\r\n", []result{fail(400)}},
		{"fragment", "GET /a#b HTTP/1.1\r\nHost: h\r\n\r\n", []result{fail(400)}},
		{"non-URI char", "GET /<a> HTTP/1.1\r\nHost: h\r\n\r\n", []result{fail(400)}},
		{"control in target", "GET /a\x01 HTTP/1.1\r\nHost: h\r\n\r\n", []result{fail(400)}},
		{"asterisk with GET", "GET * HTTP/1.1\r\nHost: h\r\n\r\n", []result{fail(400)}},
		{"authority-form", "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", []result{fail(400)}},
		{"userinfo", "GET http://u@h/ HTTP/1.1\r\nHost: h\r\n\r\n", []result{fail(400)}},
		{"empty host", "GET http:///x HTTP/1.1\r\nHost: h\r\n\r\n", []result{fail(400)}},
		{"bad port", "GET http://h:80a/ HTTP/1.1\r\nHost: h\r\n\r\n", []result{fail(400)}},
		{"bad IPv6", "GET http://[::g]/ HTTP/1.1\r\nHost: h\r\n\r\n", []result{fail(400)}},
		{"other scheme", "GET ftp://h/x HTTP/1.1\r\nHost: h\r\n\r\n", []result{fail(400)}},
		{"empty line first", "\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n", []result{ok("GET", "/", "/", 1, true)}},
		{"empty lines first", "\r\n\r\nPOST /x?q HTTP/1.1\r\nHost: h\r\n\r\n", []result{ok("POST", "/x?q", "/x", 1, true)}},
		{"empty line between requests", get + "\r\n" + get, []result{
			ok("GET", "/hello/world", "/hello/world", 1, true), ok("GET", "/hello/world", "/hello/world", 1, true)}},
		{"bare LF empty line first", "\nGET / HTTP/1.1\r\nHost: h\r\n\r\n", []result{fail(400)}},
		{"space line first", " \r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n", []result{fail(400)}},
		{"empty lines over 8 KiB", strings.Repeat("\r\n", 4097), []result{fail(431)}},
		{"PRI", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", []result{fail(505)}},
		{"version 3.0", "GET / HTTP/3.0\r\nHost: h\r\n\r\n", []result{fail(505)}},

		// Line endings.
		{"bare LF", "GET / HTTP/1.1\nHost: h\n\n", []result{fail(400)}},
		{"bare LF in fields", "GET / HTTP/1.1\r\nHost: h\n\r\n", []result{fail(400)}},
		{"bare CR in value", "GET / HTTP/1.1\r\nHost: h\r\nX: a\rb\r\n\r\n", []result{fail(400)}},
		{"bare CR in request line", "GET /\r HTTP/1.1\r\nHost: h\r\n\r\n", []result{fail(400)}},

		// Header fields.
		{"value with tab and obs-text", "GET / HTTP/1.1\r\nHost: h\r\nX: a\tb \xe9\r\n\r\n", []result{ok("GET", "/", "/", 1, true)}},
		{"empty value", "GET / HTTP/1.1\r\nHost: h\r\nX:\r\n\r\n", []result{ok("GET", "/", "/", 1, true)}},
		{"empty Host", "GET / HTTP/1.1\r\nHost:\r\n\r\n", []result{fail(400)}}, // RFC 9110 section 4.2.1: an empty host is invalid
		{"Host with a bad port", "GET / HTTP/1.1\r\nHost: h:80x\r\n\r\n", []result{fail(400)}},
		{"Host with userinfo", "GET / HTTP/1.1\r\nHost: u@h\r\n\r\n", []result{fail(400)}},
		{"Host, unclosed IPv6", "GET / HTTP/1.1\r\nHost: [::1\r\n\r\n", []result{fail(400)}},
		{"Host, IPv6 and port", "GET / HTTP/1.1\r\nHost: [::1]:80\r\n\r\n", []result{ok("GET", "/", "/", 1, true)}},
		{"Host in any case", "GET / HTTP/1.1\r\nhOsT: h\r\n\r\n", []result{ok("GET", "/", "/", 1, true)}},
		{"no Host in 1.1", "GET / HTTP/1.1\r\n\r\n", []result{fail(400)}},
		{"two Hosts", "GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n", []result{fail(400)}},
		{"bad Host", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", []result{fail(400)}},
		{"space before colon", "GET / HTTP/1.1\r\nHost : h\r\n\r\n", []result{fail(400)}},
		{"tab before colon", "GET / HTTP/1.1\r\nHost\t: h\r\n\r\n", []result{fail(400)}},
		{"space in name", "GET / HTTP/1.1\r\nHost: h\r\nX Y: z\r\n\r\n", []result{fail(400)}},
		{"obs-fold", "GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n b\r\n\r\n", []result{fail(400)}},
		{"obs-fold, tab", "GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n\tb\r\n\r\n", []result{fail(400)}},
		{"no colon", "GET / HTTP/1.1\r\nHost: h\r\nX\r\n\r\n", []result{fail(400)}},
		{"empty name", "GET / HTTP/1.1\r\nHost: h\r\n: x\r\n\r\n", []result{fail(400)}},
		{"bad name char", "GET / HTTP/1.1\r\nHost: h\r\nX(y): z\r\n\r\n", []result{fail(400)}},
		{"NUL in value", "GET / HTTP/1.1\r\nHost: h\r\nX: a\x00b\r\n\r\n", []result{fail(400)}},
		{"DEL in value", "GET / HTTP/1.1\r\nHost: h\r\nX: a\x7fb\r\n\r\n", []result{fail(400)}},
		{"header section of 8 KiB", "GET / HTTP/1.1\r\nHost: h\r\nX: " + big + strings.Repeat("b", 8192-8000-len("GET / HTTP/1.1\r\nHost: h\r\nX: \r\n\r\n")) + "\r\n\r\n",
			[]result{ok("GET", "/", "/", 1, true)}},
		{"header section over 8 KiB", "GET / HTTP/1.1\r\nHost: h\r\nX: " + big + strings.Repeat("b", 8193-8000-len("GET / HTTP/1.1\r\nHost: h\r\nX: \r\n\r\n")) + "\r\n\r\n",
			[]result{fail(431)}},
		{"endless header line", "GET / HTTP/1.1\r\nHost: h\r\nX: " + big + big, []result{fail(431)}},

		// Connection.
		{"1.1 close", "GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", []result{ok("GET", "/", "/", 1, false)}},
		{"1.1 close in a list", "GET / HTTP/1.1\r\nHost: h\r\nConnection: keep-alive, Close\r\n\r\n", []result{ok("GET", "/", "/", 1, false)}},
		{"1.1 other option", "GET / HTTP/1.1\r\nHost: h\r\nConnection: upgrade\r\n\r\n", []result{ok("GET", "/", "/", 1, true)}},
		{"1.0 keep-alive", "GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", []result{ok("GET", "/", "/", 0, true)}},
		{"1.0 keep-alive, two fields", "GET / HTTP/1.0\r\nConnection: foo\r\nConnection: ,keep-alive\r\n\r\n", []result{ok("GET", "/", "/", 0, true)}},
		{"1.0 keep-alive and close", "GET / HTTP/1.0\r\nConnection: keep-alive\r\nConnection: close\r\n\r\n", []result{ok("GET", "/", "/", 0, false)}},
		// Tokens compare in ASCII: U+212A (Kelvin sign) and U+017F (long s)
		// fold to k and s in Unicode, not here.
		{"1.0 keep-alive with a Kelvin sign", "GET / HTTP/1.0\r\nConnection: \u212Aeep-alive\r\n\r\n", []result{ok("GET", "/", "/", 0, false)}},
		{"1.1 close with a long s", "GET / HTTP/1.1\r\nHost: h\r\nConnection: clo\u017Fe\r\n\r\n", []result{ok("GET", "/", "/", 1, true)}},

		// Content-Length.
		{"body", "POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello" + get,
			[]result{withBody(ok("POST", "/x", "/x", 1, true), 5, false, false), ok("GET", "/hello/world", "/hello/world", 1, true)}},
		{"zero length", "POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n", []result{ok("POST", "/x", "/x", 1, true)}},
		{"same length twice", "POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nhi",
			[]result{withBody(ok("POST", "/x", "/x", 1, true), 2, false, false)}},
		{"body on GET", "GET /x HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nGET",
			[]result{withBody(ok("GET", "/x", "/x", 1, true), 3, false, false)}},
		{"conflicting lengths", "POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nhi", []result{fail(400)}},
		{"same length, other digits", "POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nContent-Length: 02\r\n\r\nhi", []result{fail(400)}},
		{"length list", "POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 2, 2\r\n\r\nhi", []result{fail(400)}},
		{"signed length", "POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: +2\r\n\r\nhi", []result{fail(400)}},
		{"negative length", "POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", []result{fail(400)}},
		{"empty length", "POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: \r\n\r\n", []result{fail(400)}},
		{"hex length", "POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 0x2\r\n\r\nhi", []result{fail(400)}},
		{"huge length", "POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 9999999999999999999\r\n\r\n", []result{fail(400)}},

		// Transfer-Encoding.
		{"chunked", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nA;ext=1;q=\"v\"\r\n0123456789\r\n0\r\nX-Trailer: t\r\n\r\n" + get,
			[]result{withBody(ok("POST", "/x", "/x", 1, true), 0, true, false), ok("GET", "/hello/world", "/hello/world", 1, true)}},
		{"chunked, upper case", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: Chunked\r\n\r\n0\r\n\r\n",
			[]result{withBody(ok("POST", "/x", "/x", 1, true), 0, true, false)}},
		{"chunked, body looks like a request", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n" + fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(get), get),
			[]result{withBody(ok("POST", "/x", "/x", 1, true), 0, true, false)}},
		{"chunked, mixed case", "POST /x HTTP/1.1\r\nHost: h\r\nTrAnSFer-EnCODinG: cHuNkeD\r\n\r\n0\r\n\r\n",
			[]result{withBody(ok("POST", "/x", "/x", 1, true), 0, true, false)}},
		{"gzip", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n", []result{fail(400)}},
		{"identity", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: identity\r\n\r\n", []result{fail(400)}},
		{"gzip, chunked", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", []result{fail(501)}},
		{"chunked, gzip", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", []result{fail(400)}},
		{"chunked, chunked", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", []result{fail(400)}},
		{"chunked, empty element", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked,\r\n\r\n", []result{fail(400)}},
		{"chunked twice", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", []result{fail(400)}},
		{"chunked and length", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n", []result{fail(400)}},
		{"length and chunked", "POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", []result{fail(400)}},
		{"chunked with a Kelvin sign", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chun\u212Aed\r\n\r\n0\r\n\r\n", []result{fail(400)}},
		{"mixed-case chunked and length", "POST /x HTTP/1.1\r\nHost: h\r\nTrAnSFer-EnCODinG: cHuNkeD\r\nContent-Length: 5\r\n\r\n0\r\n\r\n", []result{fail(400)}},
		{"identity and length", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: identity\r\nContent-Length: 5\r\n\r\nhello", []result{fail(400)}},
		{"length and identity", "POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nTransfer-Encoding: identity\r\n\r\nhello", []result{fail(400)}},
		{"gzip, chunked and length", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n", []result{fail(400)}},
		{"folded chunked and length", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding:\r\n chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n", []result{fail(400)}},
		{"chunked after a bare LF, and length", "POST /x HTTP/1.1\r\nHost: h\r\nX: y\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n", []result{fail(400)}},
		{"space in Transfer-Encoding name", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer Encoding: chunked\r\nContent-Length: 5\r\n\r\nhello", []result{fail(400)}},
		{"chunked in 1.0", "POST /x HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", []result{fail(400)}},
		{"chunked and length in 1.0", "POST /x HTTP/1.0\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", []result{fail(400)}},
		{"bad chunk size", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", []result{unfinished, fail(400)}},
		{"chunk size with space", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5 \r\nhello\r\n0\r\n\r\n", []result{unfinished, fail(400)}},
		{"chunk size too large", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000000\r\n", []result{unfinished, fail(400)}},
		{"chunk without CRLF", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhiX\r\n0\r\n\r\n", []result{unfinished, fail(400)}},
		{"chunk ext with control", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2;a\x01\r\nhi\r\n0\r\n\r\n", []result{unfinished, fail(400)}},
		{"chunk exts", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n" +
			"2 ; a = b\t;c\r\nhi\r\n2;q=\"\"\r\nhi\r\n2;q=\"a \\\" ;\\\\ \xff\"\r\nhi\r\n00;last\r\n\r\n",
			[]result{withBody(ok("POST", "/x", "/x", 1, true), 0, true, false)}},
		{"chunk ext empty", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2;\r\nhi\r\n0\r\n\r\n", []result{unfinished, fail(400)}},
		{"chunk ext empty name", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2;=v\r\nhi\r\n0\r\n\r\n", []result{unfinished, fail(400)}},
		{"chunk ext empty value", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2;a=\r\nhi\r\n0\r\n\r\n", []result{unfinished, fail(400)}},
		{"chunk ext unbalanced quote", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2;a=\"b\r\nhi\r\n0\r\n\r\n", []result{unfinished, fail(400)}},
		{"chunk ext escaped closing quote", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2;a=\"b\\\"\r\nhi\r\n0\r\n\r\n", []result{unfinished, fail(400)}},
		{"chunk ext text after quote", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2;a=\"b\"c\r\nhi\r\n0\r\n\r\n", []result{unfinished, fail(400)}},
		{"chunk ext space in value", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2;a=b c\r\nhi\r\n0\r\n\r\n", []result{unfinished, fail(400)}},
		{"chunk ext trailing space", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2;a \r\nhi\r\n0\r\n\r\n", []result{unfinished, fail(400)}},
		{"chunk ext bare CR", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2;a\rb\r\nhi\r\n0\r\n\r\n", []result{unfinished, fail(400)}},
		{"chunk ext bare LF", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2;a\nhi\r\n0\r\n\r\n", []result{unfinished, fail(400)}},
		{"chunk size bare LF", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2\nhi\r\n0\r\n\r\n", []result{unfinished, fail(400)}},
		{"chunk data bare LF", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\n0\r\n\r\n", []result{unfinished, fail(400)}},
		{"last chunk with space", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0 \r\n\r\n", []result{unfinished, fail(400)}},
		{"last chunk bare LF", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\n\r\n", []result{unfinished, fail(400)}},
		{"trailer bare LF", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nT: v\n\r\n", []result{unfinished, fail(400)}},
		{"chunk size signed", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n+2\r\nhi\r\n0\r\n\r\n", []result{unfinished, fail(400)}},
		{"chunk size 0x", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0x2\r\nhi\r\n0\r\n\r\n", []result{unfinished, fail(400)}},
		{"chunk line too long", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2;" + big + "\r\n", []result{unfinished, fail(400)}},
		{"bad trailer", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX y\r\n\r\n", []result{unfinished, fail(400)}},
		{"trailers over 8 KiB", "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: " + big + "\r\nY: " + big + "\r\n\r\n", []result{unfinished, fail(431)}},

		// Expect.
		{"expect 100-continue", "POST /x HTTP/1.1\r\nHost: h\r\nExpect: 100-Continue\r\nContent-Length: 2\r\n\r\nhi",
			[]result{withBody(ok("POST", "/x", "/x", 1, true), 2, false, true)}},
		{"expect, chunked", "POST /x HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
			[]result{withBody(ok("POST", "/x", "/x", 1, true), 0, true, true)}},
		{"expect without body", "GET /x HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\n\r\n", []result{ok("GET", "/x", "/x", 1, true)}},
		{"expect in 1.0", "POST /x HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nhi",
			[]result{withBody(ok("POST", "/x", "/x", 0, false), 2, false, false)}},

		// Streams.
		{"pipelined", get + "HEAD /a HTTP/1.0\r\n\r\n" + get, []result{
			ok("GET", "/hello/world", "/hello/world", 1, true),
			ok("HEAD", "/a", "/a", 0, false),
			ok("GET", "/hello/world", "/hello/world", 1, true)}},
		{"partial second request", get + "GET /hello", []result{ok("GET", "/hello/world", "/hello/world", 1, true)}},
		{"error after a good request", get + "GET / HTTP/1.1\r\n\r\n", []result{ok("GET", "/hello/world", "/hello/world", 1, true), fail(400)}},
		{"partial body", "POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\nhello",
			[]result{{Method: "POST", Target: "/x", Path: "/x", Minor: 1, KeepAlive: true, Length: 10}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Offsets are checked by the split test below; statuses and
			// fields here.
			got := feed([]byte(tt.in), len(tt.in))
			for i := range got {
				got[i].End, got[i].Reason = 0, ""
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("parse %q:\n got %v\nwant %v", short(tt.in), got, tt.want)
			}
			whole := feed([]byte(tt.in), len(tt.in))
			for _, sizes := range [][]int{{1}, {2, 3}, {7, 1, 13}} {
				if split := feed([]byte(tt.in), sizes...); !reflect.DeepEqual(split, whole) {
					t.Errorf("parse %q in pieces %v:\n got %v\nwant %v", short(tt.in), sizes, split, whole)
				}
			}
		})
	}
}

// TestParseEnd checks the offsets at which messages end: the server drops
// exactly the request and its body, never a byte of the next request.
func TestParseEnd(t *testing.T) {
	body := "POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello"
	chunked := "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3;x\r\nabc\r\n0\r\nT: 1\r\n\r\n"
	in := get + body + chunked + get
	got := feed([]byte(in), 1)
	want := []int{len(get), len(get + body), len(get + body + chunked), len(in)}
	if len(got) != len(want) {
		t.Fatalf("got %d requests, want %d: %v", len(got), len(want), got)
	}
	for i, r := range got {
		if !r.Done || r.End != want[i] {
			t.Errorf("request %d: done=%v end=%d, want end %d", i, r.Done, r.End, want[i])
		}
	}
}

func TestParseIdle(t *testing.T) {
	var p Parser
	if !p.Idle() {
		t.Fatal("new parser not idle")
	}
	if _, ev := p.Parse([]byte("GE")); ev != More || p.Idle() {
		t.Fatalf("after a partial request line: event %d, idle %v", ev, p.Idle())
	}
	b := []byte("POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\n")
	if n, ev := p.Parse(b); ev != Header || n != len(b) {
		t.Fatalf("header: n=%d event %d", n, ev)
	}
	if n, ev := p.Parse([]byte("h")); ev != More || n != 1 || !p.InBody() {
		t.Fatalf("body: n=%d event %d in body %v", n, ev, p.InBody())
	}
	if n, ev := p.Parse([]byte("iGET")); ev != Done || n != 1 || !p.Idle() {
		t.Fatalf("end of body: n=%d event %d idle %v", n, ev, p.Idle())
	}
}

// What wrk sends, and what a browser sends.
var (
	wrkRequest     = []byte("GET /hello/world HTTP/1.1\r\nHost: 127.0.0.1:8084\r\n\r\n")
	browserRequest = []byte("GET /hello/world?lang=en HTTP/1.1\r\n" +
		"Host: localhost:8084\r\n" +
		"User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0\r\n" +
		"Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\n" +
		"Accept-Language: en-US,en;q=0.5\r\n" +
		"Accept-Encoding: gzip, deflate, br, zstd\r\n" +
		"Connection: keep-alive\r\n" +
		"Upgrade-Insecure-Requests: 1\r\n" +
		"Sec-Fetch-Dest: document\r\n" +
		"Sec-Fetch-Mode: navigate\r\n" +
		"Sec-Fetch-Site: none\r\n" +
		"Priority: u=0, i\r\n\r\n")
)

// BenchmarkParse measures the parser alone on one request, header and
// (empty) body.
func BenchmarkParse(b *testing.B) {
	for _, bc := range []struct {
		name string
		req  []byte
	}{{"wrk", wrkRequest}, {"browser", browserRequest}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bc.req)))
			var p Parser
			for b.Loop() {
				n, ev := p.Parse(bc.req)
				if ev != Header {
					b.Fatalf("event %d, want Header", ev)
				}
				if _, ev = p.Parse(bc.req[n:]); ev != Done {
					b.Fatalf("event %d, want Done", ev)
				}
			}
		})
	}
}
