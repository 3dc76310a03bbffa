package conformance

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The public corpus: request cases from public HTTP parser test suites, each
// cited by its source, beside the framing cases above, in the same form and
// run the same way. They cover the request line, field lines, Host,
// message framing again, chunk lines and trailers, and requests pipelined
// in one write or cut across several. A case is a fact taken from its
// source (the bytes sent, and whether the request is to be refused or
// served); its expectation is the contract's reading of the RFC section
// named with it.
//
// The sources: nodejs/llhttp's test/request/*.md fixtures, MDA2AV/Http11Probe's
// test suites (case ids as it names them), narfindustries/http-garden's
// list of parser bugs it found, defparam/smuggler's mutation configs and
// h2o/picohttpparser's test.c.

// corpus is every request case the suite runs: the framing cases and the
// public corpus.
var corpus = slices.Concat(framingCases, publicCases)

// line is a GET of the page with the given request line and the usual Host.
func line(requestLine string) string { return head(requestLine) }

// hostReq is a GET of the page with the given header lines and no Host of
// its own.
func hostReq(lines ...string) string { return request("GET /hello/world HTTP/1.1", lines...) }

// get is a plain GET of the page.
var get = head("GET /hello/world HTTP/1.1")

// ok is the answer to a valid GET of the page: 200, then the probe.
var ok = expect{first: []int{200}, then: 1}

var publicCases = func() []framingCase {
	const (
		rfc3   = "RFC 9112 section 3"
		rfc23  = "RFC 9112 section 2.3"
		rfc32  = "RFC 9112 section 3.2"
		rfc322 = "RFC 9112 section 3.2.2"
		rfc5   = "RFC 9112 section 5"
		rfc52  = "RFC 9112 section 5.2"
		rfc22  = "RFC 9112 section 2.2"
		rfc61  = "RFC 9112 section 6.1"
		rfc63  = "RFC 9112 section 6.3"
		rfc71  = "RFC 9112 section 7.1"
		rfc712 = "RFC 9112 section 7.1.2"
		rfc86  = "RFC 9110 section 8.6"
		rfc92  = "RFC 9112 section 9.3 (persistence) and 9.3.2 (pipelining)"
		llInv  = "llhttp test/request/invalid.md"
		garden = "http-garden's bug list"
	)
	// A request behind a refused one must not be answered; the probe
	// follows every case, so reject(...) closes before it.
	reqLine := func(name, rl string, want expect, src string) framingCase {
		return newCase(name, "request-line", line(rl), want, src)
	}
	field := func(name string, want expect, src string, lines ...string) framingCase {
		return newCase(name, "field-lines", head("GET /hello/world HTTP/1.1", lines...), want, src)
	}
	host := func(name string, want expect, src string, lines ...string) framingCase {
		return newCase(name, "host", hostReq(lines...), want, src)
	}
	body := func(name string, req string, want expect, src string) framingCase {
		return newCase(name, "framing-more", req, want, src)
	}
	chunk := func(name, b string, want expect, src string) framingCase {
		return newCase(name, "chunk-lines", chunked(b), want, src)
	}
	posted := served(405) // a POST to the page: 405, its body read
	cases := []framingCase{
		// The request line: method SP request-target SP HTTP-version
		// CRLF; the method a token, the target no whitespace or CTL, the
		// version HTTP/DIGIT.DIGIT (RFC 9112 sections 3 and 2.3).
		reqLine("method-nul", "G\x00ET /hello/world HTTP/1.1", reject(400), rfc3+" (method = token); the issue"),
		reqLine("method-tab-inside", "GE\tT /hello/world HTTP/1.1", reject(400), rfc3+"; the issue"),
		reqLine("method-separator", "GE(T /hello/world HTTP/1.1", reject(400), rfc3+"; the issue"),
		reqLine("method-colon", "GET: /hello/world HTTP/1.1", reject(400), rfc3),
		reqLine("method-non-ascii", "G\xc3\x89T /hello/world HTTP/1.1", reject(400), rfc3),
		reqLine("target-nul", "GET /hello/wor\x00ld HTTP/1.1", reject(400), rfc3+" and RFC 3986; the issue"),
		reqLine("target-del", "GET /hello/wor\x7fld HTTP/1.1", reject(400), rfc3+" and RFC 3986; the issue"),
		reqLine("target-ctl", "GET /hello/wor\x01ld HTTP/1.1", reject(400), rfc3+" and RFC 3986"),
		reqLine("target-tab", "GET /hello/wor\tld HTTP/1.1", reject(400), rfc3+" and RFC 3986"),
		reqLine("target-space", "GET /hello world HTTP/1.1", reject(400), rfc3+" (three words, one SP each)"),
		reqLine("target-empty", "GET  HTTP/1.1", reject(400), rfc3),
		reqLine("target-relative", "GET hello/world HTTP/1.1", reject(400), "RFC 9112 section 3.2 (origin-form starts with /)"),
		reqLine("target-authority-get", "GET hellobench:80 HTTP/1.1", reject(400), "RFC 9112 section 3.2.3 (authority-form is for CONNECT only)"),
		reqLine("target-asterisk-get", "GET * HTTP/1.1", reject(400), "RFC 9112 section 3.2.4 (asterisk-form is for OPTIONS only)"),
		reqLine("two-spaces-after-method", "GET  /hello/world HTTP/1.1", reject(400), rfc3+" (single SP)"),
		reqLine("space-after-version", "GET /hello/world HTTP/1.1 ", reject(400), rfc3),
		reqLine("no-version", "GET /hello/world", reject(400, 505), rfc3+" (HTTP/0.9's request line is not HTTP/1.1's)"),
		reqLine("version-5.6", "GET /hello/world HTTP/5.6", reject(505, 400), rfc23+" and RFC 9110 section 15.6.6; the issue"),
		reqLine("version-1.32", "GET /hello/world HTTP/1.32", reject(400), rfc23+" (DIGIT \".\" DIGIT); the issue"),
		reqLine("version-01.01", "GET /hello/world HTTP/01.01", reject(400), rfc23+"; the issue"),
		reqLine("version-huge", "GET /hello/world HTTP/4294967295.255", reject(400), rfc23+"; the issue (a major version that wraps to 1 in 32 bits)"),
		reqLine("version-bare-cr", "GET /hello/world HTTP/1.\r1", reject(400), rfc22+" (a bare CR is refused or replaced by SP); the issue"),
		reqLine("version-no-minor", "GET /hello/world HTTP/1", reject(400), rfc23),
		reqLine("version-no-slash", "GET /hello/world HTTP1.1", reject(400), rfc23),
		reqLine("version-spaced", "GET /hello/world HTTP/ 1.1", reject(400), rfc23),
		reqLine("version-name-other", "GET /hello/world HTTPS/1.1", reject(400), rfc23+" (HTTP-name is \"HTTP\")"),
		reqLine("version-ice", "GET /hello/world ICE/1.0", reject(400), rfc23+"; "+llInv+" \"ICE protocol and GET method\""),
		reqLine("version-rtsp", "GET /hello/world RTSP/1.1", reject(400), rfc23+"; "+llInv+" \"RTSP protocol and PUT method\" (with GET here)"),
		newCase("request-line-cr-only", "request-line", "GET /hello/world HTTP/1.1\rHost: hellobench\r\n\r\n", reject(400), rfc22+" (a line ends in CRLF, or in LF alone; never in CR alone); the issue"),
		newCase("all-lines-cr-only", "request-line", "GET /hello/world HTTP/1.1\rHost: hellobench\r\r", reject(400), rfc22+" (every line ended by CR alone)"),
		newCase("two-leading-crlf", "request-line", "\r\n\r\n"+get, ok, rfc22+" (at least one empty line ignored; two here)"),
		newCase("absolute-form", "request-line", "GET http://hellobench/hello/world HTTP/1.1\r\nHost: hellobench\r\n\r\n", ok, "RFC 9112 section 3.2.2 (a server MUST accept the absolute-form)"),
		newCase("absolute-form-other-host", "request-line", "GET http://hellobench/hello/world HTTP/1.1\r\nHost: elsewhere\r\n\r\n", ok, rfc322+" (the target's authority wins over Host)"),
		newCase("target-query", "request-line", line("GET /hello/world?a=1&b=%20 HTTP/1.1"), ok, "RFC 9112 section 3.2.1 (origin-form = absolute-path [ \"?\" query ])"),

		// Field lines: field-name ":" OWS field-value OWS, each ended by
		// CRLF (RFC 9112 section 5).
		field("no-colon", reject(400), rfc5+"; the issue (hertz waited for the header deadline)", "X-No-Colon"),
		field("no-colon-then-cl", reject(400), rfc5+"; the issue", "X-No-Colon", "Content-Length: 5"),
		field("no-colon-space", reject(400), rfc5, "X No Colon"),
		newCase("space-before-first-field", "field-lines", "GET /hello/world HTTP/1.1\r\n Host: hellobench\r\n\r\n", reject(400), rfc22+" (reject, or ignore the line: then no Host, 400 either way)"),
		field("field-line-bare-cr", reject(400), rfc22, "X-A: 1\rX-B: 2"),
		field("field-name-nul", reject(400), "RFC 9110 section 5.1 (field-name = token)", "X-\x00A: 1"),
		field("field-name-del", reject(400), "RFC 9110 section 5.1", "X-\x7fA: 1"),
		field("field-name-ctl", reject(400), "RFC 9110 section 5.1", "X-\x01A: 1"),
		field("field-name-slash", reject(400), "RFC 9110 section 5.1 (/ is a delimiter, not a tchar)", "X/A: 1"),
		field("field-name-quote", reject(400), "RFC 9110 section 5.1", "X\"A: 1"),
		field("field-value-ctl-esc", reject(400), "RFC 9110 section 5.5 (field-vchar)", "X-A: a\x1bb"),
		field("field-value-tab", ok, "RFC 9110 section 5.5 (HTAB is allowed in a value)", "X-A: a\tb"),
		field("field-value-obs-text", ok, "RFC 9110 section 5.5 (obs-text is allowed in a value)", "X-A: caf\xe9"),
		field("field-value-empty", ok, "RFC 9110 section 5.5 (field-value = *field-content)", "X-A:"),
		field("obs-fold-ordinary", either(reject(400), ok), rfc52+" (a server MUST refuse obs-fold with 400, or replace it with SP)", "X-A: 1", " 2"),

		// Host: one, valid, in every HTTP/1.1 request (RFC 9112 section
		// 3.2: 400 for none, more than one, or an invalid value).
		host("host-missing", reject(400), rfc32+"; the issue", "X-A: 1"),
		host("host-duplicate", reject(400), rfc32+"; the issue", "Host: hellobench", "Host: hellobench"),
		host("host-duplicate-different", reject(400), rfc32, "Host: hellobench", "Host: elsewhere"),
		host("host-comma-list", reject(400), rfc32+" (a list is not a uri-host); the issue", "Host: hellobench, elsewhere"),
		host("host-space-inside", reject(400), rfc32, "Host: hello bench"),
		host("host-userinfo", reject(400), rfc32+" (Host = uri-host [ \":\" port ], no userinfo)", "Host: user@hellobench"),
		host("host-bad-port", reject(400), rfc32+" (port = *DIGIT)", "Host: hellobench:80x"),
		host("host-slash", reject(400), rfc32, "Host: hellobench/x"),
		host("host-ipv6-unclosed", reject(400), rfc32+" (IP-literal)", "Host: [::1"),
		host("host-ipv6", ok, rfc32, "Host: [::1]:8080"),
		host("host-port", ok, rfc32, "Host: hellobench:8080"),
		host("host-empty", either(ok, reject(400)), rfc32+" (an empty value is the empty authority; RFC 9110 section 4.2.1 lets a recipient refuse an http URI with an empty host); the issue", "Host: "),
		host("host-after-other-fields", ok, rfc32+" (Host need not come first)", "X-A: 1", "Host: hellobench"),
		host("host-obs-fold", reject(400), rfc52+" (refused, or unfolded into an invalid Host)", "Host: hellobench", " elsewhere"),
		newCase("http10-no-host", "host", "GET /hello/world HTTP/1.0\r\n\r\n", reject(200), rfc32+" (HTTP/1.0 needs no Host; the connection then closes, RFC 9112 section 9.3)"),

		// More framing: what a valid body looks like, and codings beyond
		// chunked (RFC 9112 sections 6 and 7, RFC 9110 section 8.6).
		body("te-pigeons", post("0\r\n\r\n", "Transfer-Encoding: pigeons"), reject(400, 501), rfc61+" and "+rfc63+" (a coding not understood, chunked not last); the issue"),
		body("te-pigeons-cl", post("0\r\n\r\n", "Transfer-Encoding: pigeons", "Content-Length: 5"), reject(400, 501), rfc61),
		body("te-quoted-chunked", post("0\r\n\r\n", "Transfer-Encoding: \"chunked\""), reject(400, 501), rfc61+" (a coding is a token, not a quoted string)"),
		body("te-chunked-param", post("0\r\n\r\n", "Transfer-Encoding: chunked;q=1"), reject(400, 501), "RFC 9112 section 7 (chunked has no parameters)"),
		body("te-chunked-upper", post("5\r\nhello\r\n0\r\n\r\n", "Transfer-Encoding: CHUNKED"), posted, "RFC 9112 section 7 (coding names are case-insensitive)"),
		body("te-chunked-get", head("GET /hello/world HTTP/1.1", "Transfer-Encoding: chunked")+"5\r\nhello\r\n0\r\n\r\n", served(200), rfc63+" (a GET may have a body; it is read, then the probe)"),
		body("te-two-lines-chunked", post("0\r\n\r\n", "Transfer-Encoding: chunked", "Transfer-Encoding: chunked"), reject(400), "RFC 9112 section 7 (chunked applied twice)"),
		body("cl-leading-zeros", post("hello", "Content-Length: 005"), posted, rfc86+" (1*DIGIT)"),
		body("cl-tab-ows", post("hello", "Content-Length:\t5"), posted, rfc5+" (OWS may be HTAB)"),
		body("cl-trailing-ows", post("hello", "Content-Length: 5 "), posted, rfc5),
		body("cl-duplicate-same", post("hello", "Content-Length: 5", "Content-Length: 5"), either(posted, reject(400)), rfc86+" (refuse, or take the one value)"),
		body("cl-list-same", post("hello", "Content-Length: 5, 5"), either(posted, reject(400)), rfc86+" (refuse, or take the one value)"),
		body("cl-get-body", head("GET /hello/world HTTP/1.1", "Content-Length: 5")+"hello", served(200), rfc63+" (the body is read, then the probe)"),
		body("cl-zero", post("", "Content-Length: 0"), posted, rfc86),
		body("cl-body-is-request", post(smuggled, "Content-Length: "+strconv.Itoa(len(smuggled))), posted, rfc63+" (a request inside a body is body: no /smuggled 404)"),
		body("cl-body-shorter-than-sent", post("hel", "Content-Length: 3")+"lo\r\n", expect{lead: []int{405}, first: []int{400}}, rfc63+" (the body is 3 bytes: \"lo\" is the next request line, and invalid)"),

		// Smuggling mutations beyond the framing cases: each hides or
		// disguises Transfer-Encoding beside a Content-Length that counts
		// a body holding a request (teBody), or frames a body a front
		// server may read otherwise.
		newCase("te-cow-comma-chunked-cl", "cl-te", post(teBody, "Transfer-Encoding: cow, chunked", cl(teBody)), reject(400, 501), rfc61+" (with Content-Length: 400; a coding not implemented: 501)"),
		newCase("te-cow-line-chunked-cl", "cl-te", post(teBody, "Transfer-Encoding: cow", "Transfer-Encoding: chunked", cl(teBody)), reject(400, 501), rfc61+" (with Content-Length: 400; a coding not implemented: 501)"),
		newCase("te-bare-lf-fold-cl", "cl-te", post(teBody, "Transfer-Encoding:\n chunked", cl(teBody)), reject(400), rfc61+" and "+rfc52),
		newCase("te-cr-suffix-cl", "cl-te", post(teBody, "Transfer-Encoding: chunked\r", cl(teBody)), reject(400), rfc61+" and "+rfc22),
		newCase("te-after-bare-cr-cl", "cl-te", post(teBody, "X: X\rTransfer-Encoding: chunked", cl(teBody)), reject(400), rfc22+" and "+rfc61),
		newCase("te-name-bare-cr-cl", "cl-te", post(teBody, "Transfer\r-Encoding: chunked", cl(teBody)), reject(400), "RFC 9110 section 5.1 and "+rfc22),
		newCase("te-formfeed-cl", "cl-te", post(teBody, "Transfer-Encoding: \x0cchunked", cl(teBody)), reject(400), rfc61+" and RFC 9110 section 5.5"),
		newCase("te-trailing-comma-cl", "cl-te", post(teBody, "Transfer-Encoding: chunked,", cl(teBody)), reject(400), rfc61),
		newCase("te-underscore-name-cl", "framing-more", post("hello", "Transfer_Encoding: chunked", "Content-Length: 5"), either(posted, reject(400)), "RFC 9110 section 5.1 (Transfer_Encoding is another field: the body is Content-Length's)"),
		newCase("content-encoding-chunked", "framing-more", post(teBody, "Content-Encoding: chunked", cl(teBody)), posted, "RFC 9110 section 8.4 (a content coding does not frame the message)"),
		newCase("te-nbsp-around-chunked", "framing-more", post("0\r\n\r\n", "Transfer-Encoding: \xa0chunked\xa0"), reject(400, 501), rfc61+" (\\xa0 is not whitespace: the coding is not chunked)"),
		newCase("te-leading-comma", "framing-more", post("5\r\nhello\r\n0\r\n\r\n", "Transfer-Encoding: ,chunked"), either(posted, reject(400, 501)), "RFC 9110 section 5.6.1 (an empty list element may be ignored, or the list refused, or the empty coding found not implemented)"),
		newCase("te-chunked-line-then-deflate", "framing-more", post("World", "Transfer-Encoding: chunked", "Transfer-Encoding: deflate"), reject(400, 501), rfc63+" (chunked is not last)"),
		newCase("te-deflate-line-then-chunked", "framing-more", post("5\r\nWorld\r\n0\r\n\r\n", "Transfer-Encoding: deflate", "Transfer-Encoding: chunked"), reject(501, 400), rfc61+" (a coding not implemented: 501; or two fields refused)"),
		newCase("cl-double-zero", "framing-more", post("", "Content-Length: 00"), posted, rfc86+" (1*DIGIT)"),
		newCase("cl-negative-zero", "framing-more", post("", "Content-Length: -0"), reject(400), rfc86),
		newCase("cl-list-triple", "framing-more", post("hello", "Content-Length: 5, 5, 5"), either(posted, reject(400)), rfc86+" (refuse, or take the one value)"),
		newCase("cl-empty-then-value", "framing-more", head("GET /hello/world HTTP/1.1", "Content-Length: ", cl(smuggled))+smuggled, reject(400), rfc86+" (an empty Content-Length is invalid, not 0)"),
		newCase("options-cl-body", "framing-more", head("OPTIONS /hello/world HTTP/1.1", cl("hello"))+"hello", served(405), rfc63+" (an OPTIONS body is read like any other)"),
		newCase("field-name-continued", "field-lines", post("0\r\n\r\n", "Transfer-", "Encoding: chunked", "Content-Length: 5"), reject(400), rfc5+" (a field line without a colon; no continuation of names)"),
		newCase("header-end-bare-cr-junk", "field-lines", "GET /hello/world HTTP/1.1\r\nHost: hellobench\r\n\rZGET /smuggled HTTP/1.1\r\nHost: hellobench\r\n\r\n", reject(400), rfc22+" (the header section ends in CRLF CRLF, not CRLF CR and any byte)"),
		newCase("field-name-x85-cl", "field-lines", head("GET /hello/world HTTP/1.1", "Content-Length\x85: 10")+"0123456789", reject(400), "RFC 9110 section 5.1 (\\x85 is no token character)"),
		newCase("field-name-underscore-cl", "field-lines", post("hello world", "Content-Length: 11", "Content_Length: 99"), posted, "RFC 9110 section 5.1 (Content_Length is another field)"),
		reqLine("method-nul-version-dots", "\x00 /hello/world HTTP/............0596.7407.", reject(400, 501), rfc3),
		newCase("target-fragment", "request-line", line("GET /hello/world#frag HTTP/1.1"), either(reject(400), ok, expect{first: []int{404}, then: 1}), "RFC 9112 section 3.2.1 (origin-form has no fragment: refused, the fragment dropped, or read as part of a path not found)"),
		newCase("target-backslash", "request-line", line("GET /hello\\world HTTP/1.1"), either(reject(400), expect{first: []int{404}, then: 1}), "RFC 3986 section 3.3 (\\ is no pchar: refused, or no such page)"),

		// Chunk lines and trailers (RFC 9112 section 7.1).
		chunk("chunk-size-leading-zeros", "0005\r\nhello\r\n0\r\n\r\n", posted, rfc71+" (1*HEXDIG)"),
		chunk("chunk-many", "1\r\na\r\n1\r\nb\r\n1\r\nc\r\n0\r\n\r\n", posted, rfc71),
		chunk("chunk-last-zeros", "5\r\nhello\r\n00000\r\n\r\n", posted, rfc71),
		chunk("trailer-two-fields", "5\r\nhello\r\n0\r\nX-A: 1\r\nX-B: 2\r\n\r\n", posted, rfc712),
		chunk("trailer-content-length", "5\r\nhello\r\n0\r\nContent-Length: 50\r\n\r\n", either(posted, reject(400)), rfc712+" (a trailer field does not frame the message; RFC 9110 section 6.5.1 lets a recipient refuse one that must not be a trailer)"),
		chunk("trailer-obs-fold", "0\r\nX-A: 1\r\n 2\r\n\r\n", reject(400), rfc712+" and "+rfc52),
		chunk("trailer-no-colon", "0\r\nX-A\r\n\r\n", reject(400), rfc712+" and "+rfc5),
		chunk("trailer-bare-lf", "0\r\nX-A: 1\n\r\n", reject(400), rfc712+" (erratum 7633: no bare LF in chunked coding)"),
		chunk("trailer-bare-cr", "0\r\nX-A: 1\r\r\n", reject(400), rfc712+" and "+rfc22),
		chunk("chunk-data-cr-only", "2\r\naa\r0\r\n\r\n", reject(400), rfc71),
		chunk("chunk-data-short", "5\r\nhell\r\n0\r\n\r\n", reject(400), rfc71+" (the data is exactly chunk-size octets, then CRLF)"),
		chunk("chunk-ext-bare-lf", "2;a\naa\r\n0\r\n\r\n", reject(400), rfc71),
		chunk("chunk-size-only-ext", ";a\r\naa\r\n0\r\n\r\n", reject(400), rfc71+" (chunk-size = 1*HEXDIG)"),
		chunk("chunk-size-64bit-max", "ffffffffffffffff\r\naa\r\n0\r\n\r\n", reject(400), rfc71+" (2^64-1: too large for any server)"),
		chunk("chunk-no-last", "5\r\nhello\r\n", reject(400), rfc71+" (the probe's request line is read as a chunk size)"),
		chunk("chunk-size-bws-ext", "2 ;a\r\naa\r\n0\r\n\r\n", either(posted, reject(400)), "RFC 9112 section 7.1.1 (BWS before \";\": valid, and refused by parsers that find whitespace after a chunk size ambiguous)"),

		chunk("chunk-size-cr-cr-ext", "5\r\r;ABCD\r\nhello\r\n0\r\n\r\n", reject(400), rfc71+" and "+rfc22),
		chunk("trailer-looks-like-request", "0\r\nX:POST / HTTP/1.1\r\n\r\n", posted, rfc712+" (a trailer field whose value reads like a request line)"),
		chunk("chunk-size-garbage-then-request", "5\r\nhello\r\nzz\r\n"+smuggled, reject(400), rfc71+" (nothing after an invalid chunk is read)"),
		chunk("chunk-extra-crlf-before-last", "5\r\nhello\r\n\r\n0\r\n\r\n", reject(400), rfc71+" (an empty line is no chunk size)"),
		chunk("trailer-transfer-encoding", "5\r\nhello\r\n0\r\nTransfer-Encoding: chunked\r\n\r\n", either(posted, reject(400)), rfc712+" (a framing field in a trailer frames nothing; RFC 9110 section 6.5.1 lets a recipient refuse it)"),
		chunk("trailer-host", "5\r\nhello\r\n0\r\nHost: elsewhere\r\n\r\n", either(posted, reject(400)), rfc712+" (RFC 9110 section 6.5.1)"),
		newCase("chunked-then-nul", "pipelined", head("GET /hello/world HTTP/1.1", "Transfer-Encoding: chunked")+"0\r\n\r\n\x00", expect{lead: []int{200}, first: []int{400}}, rfc3+" (a NUL where the next request line starts)"),

		// Pipelined: requests sent together are answered in order, each
		// once (RFC 9112 section 9.3.2); nothing after a refused one.
		newCase("pipelined-three", "pipelined", get+get+get, expect{first: []int{200}, then: 3}, rfc92),
		newCase("pipelined-post-get", "pipelined", post("hello", "Content-Length: 5")+get, expect{first: []int{405}, then: 2, closeOK: true}, rfc92),
		newCase("pipelined-chunked-get", "pipelined", chunked("5\r\nhello\r\n0\r\n\r\n")+get, expect{first: []int{405}, then: 2, closeOK: true}, rfc92),
		newCase("pipelined-then-bad-host", "pipelined", get+hostReq("Host: a", "Host: b"), expect{lead: []int{200}, first: []int{400}}, rfc92+" and "+rfc32),
		newCase("pipelined-then-bad-version", "pipelined", get+line("GET /hello/world HTTP/1.32"), expect{lead: []int{200}, first: []int{400}}, rfc92+" and "+rfc23),
		newCase("pipelined-then-te-cl", "pipelined", get+post(teBody, "Transfer-Encoding: chunked", cl(teBody)), expect{lead: []int{200}, first: []int{400}}, rfc92+" and "+rfc61),
		newCase("pipelined-close", "pipelined", head("GET /hello/world HTTP/1.1", "Connection: close")+get, reject(200), "RFC 9112 section 9.6 (nothing is read after Connection: close)"),
		newCase("pipelined-http10", "pipelined", "GET /hello/world HTTP/1.0\r\n\r\n"+get, reject(200), "RFC 9112 section 9.3 (HTTP/1.0 without keep-alive closes)"),
		newCase("pipelined-http10-keep-alive", "pipelined", "GET /hello/world HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"+get, expect{first: []int{200}, then: 2}, "RFC 9112 section 9.3 and RFC 7230 appendix A.1.2 (keep-alive in HTTP/1.0)"),
		newCase("pipelined-crlf-between", "pipelined", get+"\r\n"+get, expect{first: []int{200}, then: 2}, rfc22+" (an empty line between requests is ignored)"),

		// Split: a request cut across writes is read as if whole (RFC
		// 9112 section 2: the message is a byte stream).
		split("split-method", "split", ok, "RFC 9112 section 2", "GE", "T /hello/world HTTP/1.1\r\nHost: hellobench\r\n\r\n"),
		split("split-request-line-crlf", "split", ok, "RFC 9112 section 2", "GET /hello/world HTTP/1.1\r", "\nHost: hellobench\r\n\r\n"),
		split("split-final-crlf", "split", ok, "RFC 9112 section 2", "GET /hello/world HTTP/1.1\r\nHost: hellobench\r\n\r", "\n"),
		split("split-field-name", "split", ok, "RFC 9112 section 2", "GET /hello/world HTTP/1.1\r\nHo", "st: hellobench\r\n\r\n"),
		split("split-many", "split", ok, "RFC 9112 section 2", "G", "ET /hel", "lo/world HT", "TP/1.1\r", "\nHost", ": hello", "bench\r\n", "\r\n"),
		split("split-leading-crlf", "split", ok, rfc22, "\r", "\n"+get),
		split("split-cl-body", "split", posted, "RFC 9112 section 6.2", post("", "Content-Length: 5"), "hel", "lo"),
		split("split-chunk-size", "split", posted, rfc71, chunked("1"), "0\r\n0123456789abcdef\r\n0\r\n\r\n"),
		split("split-chunk-size-crlf", "split", posted, rfc71, chunked("5\r"), "\nhello\r\n0\r\n\r\n"),
		split("split-chunk-data-crlf", "split", posted, rfc71, chunked("5\r\nhello"), "\r\n0\r\n\r\n"),
		split("split-chunk-data-cr-lf", "split", posted, rfc71, chunked("5\r\nhello\r"), "\n0\r\n\r\n"),
		split("split-last-chunk", "split", posted, rfc71, chunked("5\r\nhello\r\n0\r\n"), "\r\n"),
		split("split-trailer", "split", posted, rfc712, chunked("5\r\nhello\r\n0\r\nX-A"), ": 1\r\n\r\n"),
		split("split-te-cl", "split", reject(400), rfc61+" (the framing fields arrive before the body)", post("", "Transfer-Encoding: chunked", cl(teBody)), teBody),
		split("split-bad-chunk", "split", reject(400), rfc71, chunked("5\r\nhello\r\n"), "2 \r\naa\r\n0\r\n\r\n"),
		split("split-bare-cr", "split", reject(400), rfc22, "GET /hello/world HTTP/1.1\r", "Host: hellobench\r\n\r\n"),
		split("split-pipelined", "split", expect{first: []int{200}, then: 2}, rfc92, get+"GE", "T /hello/world HTTP/1.1\r\nHost: hellobench\r\n\r\n"),
	}
	for i, c := range cases {
		if src, ok := publicSources[c.name]; ok {
			cases[i].source += "; " + src
		}
	}
	return cases
}()

// TestCorpus checks the corpus itself: at least 140 cases, each named once,
// with a source, and deviations only for cases that exist.
func TestCorpus(t *testing.T) {
	t.Logf("%d cases: %d framing, %d from the public suites", len(corpus), len(framingCases), len(publicCases))
	if len(corpus) < 140 {
		t.Errorf("%d cases; the contract claims at least 140", len(corpus))
	}
	// The documents state the corpus's size: keep them true.
	for path, says := range map[string]string{
		"../README.md":        fmt.Sprintf("the %d hostile and unusual", len(corpus)),
		"../docs/contract.md": fmt.Sprintf("a corpus of %d requests", len(corpus)),
	} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(strings.Fields(string(b)), " "), says) {
			t.Errorf("%s does not say %q", path, says)
		}
	}
	names := map[string]bool{}
	for _, fc := range corpus {
		switch {
		case names[fc.name]:
			t.Errorf("%s: named twice", fc.name)
		case fc.source == "" || fc.category == "":
			t.Errorf("%s: no source or category", fc.name)
		case fc.parts != nil && strings.Join(fc.parts, "") != fc.req:
			t.Errorf("%s: parts do not make up the request", fc.name)
		}
		names[fc.name] = true
	}
	for name := range publicSources {
		if !names[name] {
			t.Errorf("publicSources: %q is no case", name)
		}
	}
	for server, devs := range framingDeviations {
		for name := range devs {
			if !names[name] {
				t.Errorf("%s: deviation for %q, which is no case", server, name)
			}
		}
	}
}

// publicSources names where each case of the public corpus comes from,
// as its source names it: an Http11Probe case id, an llhttp fixture title,
// an http-garden bug, a picohttpparser test.
var publicSources = map[string]string{
	"te-cow-comma-chunked-cl":         "defparam/smuggler configs/exhaustive.py mutation \"cowComma\"",
	"te-cow-line-chunked-cl":          "defparam/smuggler configs/exhaustive.py mutation \"revdualchunk\"",
	"te-bare-lf-fold-cl":              "defparam/smuggler configs/exhaustive.py mutation \"linewrapped1\"",
	"te-cr-suffix-cl":                 "defparam/smuggler configs/exhaustive.py mutation \"0dsuffix\"",
	"te-after-bare-cr-cl":             "defparam/smuggler configs/exhaustive.py mutation \"x-rout\"",
	"te-name-bare-cr-cl":              "defparam/smuggler configs/exhaustive.py mutation \"0dspam\"",
	"te-formfeed-cl":                  "Http11Probe SMUG-TE-FORMFEED",
	"te-trailing-comma-cl":            "Http11Probe SMUG-TE-TRAILING-COMMA",
	"te-underscore-name-cl":           "Http11Probe SMUG-TRANSFER_ENCODING; defparam/smuggler configs/exhaustive.py mutation \"underjoin1\"",
	"content-encoding-chunked":        "defparam/smuggler configs/exhaustive.py mutation \"contentEnc\"",
	"te-nbsp-around-chunked":          "http-garden TROPHIES.md Server Bugs #12 \"`\\xa0` and `\\x85` are stripped from the beginnings and ends of header values.\"",
	"te-leading-comma":                "http-garden TROPHIES.md Server Bugs #21 \"`,chunked` is treated as an encoding distinct from `chunked`.\"",
	"te-chunked-line-then-deflate":    "llhttp test/request/transfer-encoding.md \"POST with `chunked` and duplicate transfer-encoding\"",
	"te-deflate-line-then-chunked":    "llhttp test/request/transfer-encoding.md \"POST with `chunked` as last transfer-encoding (multiple headers)\"",
	"cl-double-zero":                  "Http11Probe SMUG-CL-DOUBLE-ZERO",
	"cl-negative-zero":                "Http11Probe SMUG-CL-NEGATIVE-ZERO",
	"cl-list-triple":                  "Http11Probe SMUG-CL-COMMA-TRIPLE",
	"cl-empty-then-value":             "http-garden TROPHIES.md Server Bugs #42 \"Empty `Content-Length` values are interpreted as equivalent to `0`, and prioritized over any subsequent `Content-Length` values.\"",
	"options-cl-body":                 "Http11Probe SMUG-OPTIONS-CL-BODY",
	"field-name-continued":            "http-garden TROPHIES.md Server Bugs #37 \"Header names can be continued across lines.\"",
	"header-end-bare-cr-junk":         "llhttp test/request/invalid.md \"Headers separated by dummy characters\"; http-garden TROPHIES.md Server Bugs #30",
	"field-name-x85-cl":               "http-garden TROPHIES.md Server Bugs #20 \"`\\xa0` and `\\x85` bytes are stripped from the ends of header names, before the `:`.\"",
	"field-name-underscore-cl":        "Http11Probe NORM-UNDERSCORE-CL",
	"method-nul-version-dots":         "http-garden TROPHIES.md Server Bugs #40 \"HTTP methods and versions are not validated.\"",
	"target-fragment":                 "Http11Probe RFC9112-3.2-FRAGMENT-IN-TARGET; llhttp test/request/uri.md \"Fragment in URI\" (accepted there)",
	"target-backslash":                "Http11Probe MAL-URL-BACKSLASH",
	"chunk-size-cr-cr-ext":            "llhttp test/request/transfer-encoding.md \"Chunk header not terminated by CRLF\"; http-garden TROPHIES.md Server Bugs #31",
	"trailer-looks-like-request":      "http-garden TROPHIES.md Server Bugs #39 \"Chunked message bodies are terminated on `\\r\\nXX`, where `XX` can be any two bytes.\"",
	"chunk-size-garbage-then-request": "http-garden TROPHIES.md Server Bugs #47",
	"chunk-extra-crlf-before-last":    "http-garden TROPHIES.md Transducer Bugs #17",
	"trailer-transfer-encoding":       "Http11Probe SMUG-TRAILER-TE",
	"trailer-host":                    "Http11Probe SMUG-TRAILER-HOST",
	"chunked-then-nul":                "http-garden TROPHIES.md Bonus bugs #3 \"Sending an extra byte after a request with a chunked message body crashes the server with a segfault.\"",
	"method-nul":                      "picohttpparser test.c test_request \"NUL in method\"",
	"method-tab-inside":               "picohttpparser test.c test_request \"tab in method\"",
	"method-separator":                "http-garden TROPHIES.md Server Bugs #6 \"HTTP methods are interpreted as their longest valid prefix.\"",
	"method-colon":                    "picohttpparser test.c test_request \"invalid method\" (\":GET\" there)",
	"target-nul":                      "Http11Probe MAL-NUL-IN-URL",
	"target-del":                      "picohttpparser test.c test_request \"DEL in uri-path\"",
	"target-space":                    "Http11Probe COMP-SPACE-IN-TARGET; llhttp test/request/uri.md \"Space in URI\"",
	"target-empty":                    "picohttpparser test.c test_request \"empty request-target\"",
	"target-asterisk-get":             "Http11Probe COMP-ASTERISK-WITH-GET",
	"two-spaces-after-method":         "Http11Probe RFC9112-3-MULTI-SP-REQUEST-LINE",
	"no-version":                      "Http11Probe RFC9112-2.3-HTTP09-REQUEST",
	"version-5.6":                     "llhttp test/request/invalid.md \"Invalid HTTP version\"",
	"version-1.32":                    "http-garden TROPHIES.md Server Bugs #5 \"HTTP versions are interpreted as their longest valid prefix.\"",
	"version-01.01":                   "Http11Probe COMP-VERSION-LEADING-ZEROS",
	"version-huge":                    "http-garden TROPHIES.md Server Bugs #24 \"8-bit integer overflow in HTTP version numbers.\"",
	"version-bare-cr":                 "http-garden TROPHIES.md Server Bugs #15 \"HTTP versions are not validated.\"",
	"version-no-minor":                "Http11Probe COMP-VERSION-MISSING-MINOR",
	"version-spaced":                  "Http11Probe COMP-VERSION-WHITESPACE",
	"request-line-cr-only":            "Http11Probe RFC9112-3-CR-ONLY-LINE-ENDING; llhttp test/request/sample.md \"No LF after CR\"",
	"two-leading-crlf":                "Http11Probe COMP-LEADING-CRLF",
	"absolute-form":                   "Http11Probe COMP-ABSOLUTE-FORM",
	"absolute-form-other-host":        "Http11Probe SMUG-ABSOLUTE-URI-HOST-MISMATCH (which prefers 400; the RFC lets the target win)",
	"no-colon":                        "Http11Probe RFC9112-5-HEADER-NO-COLON",
	"no-colon-then-cl":                "http-garden TROPHIES.md Server Bugs #28 \"Header names can be separated from values on space alone; no `:` required.\"",
	"space-before-first-field":        "Http11Probe COMP-WHITESPACE-BEFORE-HEADERS; llhttp test/request/invalid.md \"Invalid space after start line\"",
	"field-name-nul":                  "picohttpparser test.c test_request \"NUL in header name\"",
	"field-name-ctl":                  "picohttpparser test.c test_request \"CTL in header name\"",
	"field-name-slash":                "picohttpparser test.c test_request \"invalid char in header value\"",
	"field-value-ctl-esc":             "Http11Probe MAL-CONTROL-CHARS-HEADER",
	"field-value-obs-text":            "llhttp test/request/sample.md \"255 ASCII in header value\"",
	"obs-fold-ordinary":               "Http11Probe RFC9112-5.1-OBS-FOLD; llhttp test/request/sample.md \"Line folding in header value with CRLF\"",
	"host-missing":                    "Http11Probe RFC9112-7.1-MISSING-HOST",
	"host-duplicate":                  "Http11Probe COMP-DUPLICATE-HOST-SAME",
	"host-duplicate-different":        "Http11Probe RFC9110-5.4-DUPLICATE-HOST",
	"host-comma-list":                 "Http11Probe SMUG-MULTIPLE-HOST-COMMA",
	"host-userinfo":                   "Http11Probe COMP-HOST-WITH-USERINFO",
	"host-slash":                      "Http11Probe COMP-HOST-WITH-PATH",
	"host-empty":                      "Http11Probe COMP-HOST-EMPTY-VALUE",
	"http10-no-host":                  "Http11Probe COMP-HTTP10-NO-HOST",
	"te-pigeons":                      "llhttp test/request/transfer-encoding.md \"Ignoring `pigeons`\"",
	"te-pigeons-cl":                   "http-garden TROPHIES.md Server Bugs #44 \"All unknown transfer codings are treated as equivalent to `chunked`.\"",
	"te-quoted-chunked":               "defparam/smuggler configs/exhaustive.py mutation \"quoted\"",
	"te-chunked-param":                "Http11Probe SMUG-CHUNKED-WITH-PARAMS",
	"te-two-lines-chunked":            "http-garden TROPHIES.md Server Bugs #11 \"Requests containing multiple `Transfer-Encoding: chunked` headers are accepted and treated as having no message body.\"",
	"cl-leading-zeros":                "Http11Probe SMUG-CL-LEADING-ZEROS; llhttp test/request/content-length.md \"`Content-Length` with zeroes\"",
	"cl-tab-ows":                      "llhttp test/request/content-length.md \"Tabs in `Content-Length` (surrounding)\"",
	"cl-trailing-ows":                 "Http11Probe SMUG-CL-TRAILING-SPACE",
	"cl-list-same":                    "Http11Probe SMUG-CL-COMMA-SAME",
	"trailer-content-length":          "Http11Probe SMUG-TRAILER-CL",
	"chunk-size-bws-ext":              "picohttpparser test.c test_chunked (\"6 ; comment\", decoded)",
	"chunk-ext-bare-lf":               "Http11Probe SMUG-CHUNK-EXT-LF",
	"chunk-no-last":                   "Http11Probe COMP-CHUNKED-NO-FINAL",
	"trailer-bare-lf":                 "Http11Probe SMUG-CHUNK-LF-TRAILER",
	"pipelined-close":                 "llhttp test/request/connection.md \"CRLF between requests, explicit `close`\"",
	"pipelined-http10":                "llhttp test/request/connection.md \"No restart when keep-alive is off (1.0)\"",
	"pipelined-then-bad-host":         "http-garden TROPHIES.md Server Bugs #45 \"Connections are closed prematurely when an invalid request is pipelined after a valid request.\"",
	"split-method":                    "picohttpparser test.c test_request \"incomplete 1\"",
	"split-request-line-crlf":         "picohttpparser test.c test_request \"incomplete 8\"",
	"split-final-crlf":                "picohttpparser test.c test_request \"slowloris (incomplete)\"",
	"split-field-name":                "llhttp test/request/finish.md \"It should be unsafe to finish inside of the header\"",
	"split-chunk-size":                "picohttpparser test.c test_chunked_per_byte",
	"split-chunk-size-crlf":           "picohttpparser test.c test_chunked_per_byte",
	"split-chunk-data-crlf":           "picohttpparser test.c do_test_chunked_overhead",
	"split-chunk-data-cr-lf":          "picohttpparser test.c test_chunked_per_byte",
	"split-last-chunk":                "picohttpparser test.c test_chunked_consume_trailer",
	"split-bare-cr":                   "Http11Probe RFC9112-3-CR-ONLY-LINE-ENDING, cut after the CR",
	"split-cl-body":                   "http-garden TROPHIES.md Server Bugs #48, the body in a second write",
}
