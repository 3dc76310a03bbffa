package conformance

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"hellobench/internal/targets"
)

// The framing cases: requests whose framing is broken, ambiguous or
// obfuscated, the ways one HTTP parser is made to read a request other
// than another does (request smuggling, RFC 9112 section 11.2). Every
// server must refuse each of them with the status below and close the
// connection, sending nothing more: a second response would be an answer
// to bytes that were meant as part of the first request.
//
// Each case is sent in one write, followed by a plain GET (probe): a
// server that misreads where the request ends answers the bytes left over,
// the probe or a request the case hides in its body, and that extra
// response is the desync the case catches.
//
// The cases come from RFC 9110 and RFC 9112 and from public corpora, each
// cited: llhttp's test/request/*.md fixtures, Http11Probe's smuggling and
// compliance suites, defparam/smuggler's Transfer-Encoding mutations.

// probe is the request sent after every case.
const probe = "GET /hello/world HTTP/1.1\r\nHost: hellobench\r\n\r\n"

// smuggled is a request hidden in a body: a 404 for it shows a desync.
const smuggled = "GET /smuggled HTTP/1.1\r\nHost: hellobench\r\n\r\n"

// The timeouts the framing servers run with: long enough that a server
// still waiting for bytes is told apart from one that closed on purpose.
const (
	framingHeaderTimeout = 5 * time.Second
	framingIdleTimeout   = 10 * time.Second
	// firstWait bounds the wait for the first response; closeWait, the
	// wait for the close (or another response) after one.
	firstWait = 3 * time.Second
	closeWait = 1500 * time.Millisecond
)

// An expect is what a server must do with a case.
type expect struct {
	// lead lists the statuses of the responses before the first: to the
	// requests a case pipelines ahead of the one it tests.
	lead []int
	// first lists the statuses the first response may have; one, but for
	// where the RFC leaves a choice. None: no response at all, and the
	// connection still open (a deviation only).
	first []int
	// then is how many 200 responses follow the first on a connection left
	// open (the probe, and any request the case pipelines before it); 0:
	// the connection closes right after the first response.
	then int
	// closeOK lets a server close after the first response instead of
	// reading a request body, when that response says Connection: close
	// (RFC 9112 section 9.6), as the contract allows.
	closeOK bool
	// held: after the first response the connection stays open and
	// nothing more is answered, the probe taken as part of the request
	// (a deviation only).
	held bool
	// alt, when set, is a second answer the RFC allows as well.
	alt *expect
}

// reject is the answer to every broken request: status, then close.
func reject(status ...int) expect { return expect{first: status} }

// served is the answer to a valid request with a body: status, then the
// probe is served, or the server says close and closes.
func served(status int) expect { return expect{first: []int{status}, then: 1, closeOK: true} }

// either is an answer of several the RFC allows.
func either(a expect, others ...expect) expect {
	if len(others) > 0 {
		b := either(others[0], others[1:]...)
		a.alt = &b
	}
	return a
}

func (e expect) String() string {
	if e.alt != nil {
		a := e
		a.alt = nil
		return a.String() + ", or " + e.alt.String()
	}
	if len(e.first) == 0 {
		return "no response, open"
	}
	var lead string
	for _, s := range e.lead {
		lead += strconv.Itoa(s) + " "
	}
	var first []string
	for _, s := range e.first {
		first = append(first, strconv.Itoa(s))
	}
	f := lead + strings.Join(first, "|")
	if e.held {
		return f + " open, nothing more"
	}
	if e.then == 0 {
		return f + " closed"
	}
	s := f + strings.Repeat(" 200", e.then) + " open"
	if e.closeOK {
		s += " (or " + f + " closed)"
	}
	return s
}

// A framingCase is one request, its expected handling and its sources.
type framingCase struct {
	name, category string
	req            string // sent as is, followed by probe
	want           expect
	source         string
	// parts, when set, is req cut where it is sent in separate writes, a
	// pause apart; the probe follows the last in its write.
	parts []string
}

// newCase is a case sent in one write.
func newCase(name, category, req string, want expect, source string) framingCase {
	return framingCase{name: name, category: category, req: req, want: want, source: source}
}

// split is a case whose request arrives in the given parts, one write each.
func split(name, category string, want expect, source string, parts ...string) framingCase {
	return framingCase{name: name, category: category, req: strings.Join(parts, ""), want: want, source: source, parts: parts}
}

// head builds a request head: the request line, a Host header, the given
// header lines, each ended with CRLF, and the empty line.
func head(requestLine string, lines ...string) string {
	return request(requestLine, append([]string{"Host: hellobench"}, lines...)...)
}

// request builds a request head: the request line and the given header
// lines, each ended with CRLF, and the empty line.
func request(requestLine string, lines ...string) string {
	var b strings.Builder
	b.WriteString(requestLine + "\r\n")
	for _, l := range lines {
		b.WriteString(l + "\r\n")
	}
	b.WriteString("\r\n")
	return b.String()
}

// post builds a POST to the page with the given header lines and body.
func post(body string, lines ...string) string {
	return head("POST /hello/world HTTP/1.1", lines...) + body
}

// chunked is a POST with Transfer-Encoding: chunked and the given body.
func chunked(body string) string {
	return post(body, "Transfer-Encoding: chunked")
}

// cl is a Content-Length header line counting body.
func cl(body string) string { return "Content-Length: " + strconv.Itoa(len(body)) }

// teBody is a complete chunked body followed by a request. With a
// Content-Length of its whole length, a server that frames it by
// Content-Length reads it all, but one that frames it by
// Transfer-Encoding and keeps the connection answers the hidden request.
const teBody = "0\r\n\r\n" + smuggled

var framingCases = func() []framingCase {
	const (
		rfc61  = "RFC 9112 section 6.1"
		rfc63  = "RFC 9112 section 6.3 item 4"
		rfc71  = "RFC 9112 section 7.1"
		rfc711 = "RFC 9112 section 7.1.1"
		rfc86  = "RFC 9110 section 8.6"
		rfc5   = "RFC 9112 section 5"
		rfc55  = "RFC 9110 section 5.5"
		probeS = "Http11Probe SmugglingSuite"
		llTE   = "llhttp test/request/transfer-encoding.md"
		smug   = "defparam/smuggler configs/default.py"
	)
	// conflict is a POST with a Transfer-Encoding header line te (any
	// spelling) and a Content-Length counting teBody.
	conflict := func(te string) string { return post(teBody, te, cl(teBody)) }
	chunkCase := func(name, body, src string) framingCase {
		return newCase(name, "chunk-syntax", chunked(body), reject(400), src)
	}
	return []framingCase{
		// Transfer-Encoding with Content-Length: RFC 9112 section 6.1 lets
		// a server process TE alone but it MUST close after responding;
		// the contract asks for 400 and close. The spellings are the
		// obfuscations that make one parser see TE and another not.
		newCase("te-cl", "cl-te", conflict("Transfer-Encoding: chunked"), reject(400), rfc61+"; the issue's example; "+probeS+" SMUG-TECL-*"),
		newCase("cl-te", "cl-te", post(teBody, cl(teBody), "Transfer-Encoding: chunked"), reject(400), rfc61+"; "+probeS+" SMUG-CLTE-*"),
		newCase("cl-te-cl-short", "cl-te", post("1\r\nZ\r\n0\r\n\r\n", "Content-Length: 4", "Transfer-Encoding: chunked"), reject(400), rfc61+"; the classic CL.TE desync ("+probeS+" SMUG-CLTE-DESYNC)"),
		newCase("te-cl-chunk-prefix", "cl-te", post(fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(smuggled), smuggled), "Content-Length: 4", "Transfer-Encoding: chunked"), reject(400), rfc61+"; the classic TE.CL desync ("+probeS+" SMUG-TECL-SMUGGLED-GET)"),
		newCase("te-cl-zero", "cl-te", post(teBody, "Content-Length: 0", "Transfer-Encoding: chunked"), reject(400), rfc61+"; a zero length conflicts too"),
		newCase("te-cl-get", "cl-te", head("GET /hello/world HTTP/1.1", "Transfer-Encoding: chunked", cl(teBody))+teBody, reject(400), rfc61+"; the method does not matter"),
		newCase("te-cl-mixed-case", "cl-te", conflict("TrAnSFer-EnCODinG: cHuNkeD"), reject(400), rfc61+"; field names and codings are case-insensitive (RFC 9110 sections 5.1, 7.8); the issue"),
		newCase("te-cl-obs-fold", "cl-te", conflict("Transfer-Encoding:\r\n chunked"), reject(400), "RFC 9112 section 5.2 (unfolded or refused, either way 400); the issue; "+probeS+" SMUG-CLTE-SMUGGLED-GET-TE-OBS-FOLD"),
		newCase("te-cl-after-bare-lf", "cl-te", post(teBody, "X-Before: 1\nTransfer-Encoding: chunked", cl(teBody)), reject(400), "RFC 9112 section 2.2 (a bare LF may end a field line); the issue; llhttp test/request/invalid.md \"Headers separated by LF\""),
		newCase("te-cl-identity", "cl-te", conflict("Transfer-Encoding: identity"), reject(400), rfc61+"; the issue; "+probeS+" SMUG-TE-IDENTITY"),
		newCase("te-cl-double-chunked", "cl-te", conflict("Transfer-Encoding: chunked, chunked"), reject(400), rfc61+"; "+probeS+" SMUG-TE-DOUBLE-CHUNKED"),
		newCase("te-cl-two-te-lines", "cl-te", post(teBody, "Transfer-Encoding: chunked", "Transfer-Encoding: identity", cl(teBody)), reject(400), rfc61+"; "+probeS+" SMUG-TE-DUPLICATE-HEADERS"),
		newCase("te-cl-xchunked", "cl-te", conflict("Transfer-Encoding: xchunked"), reject(400), rfc61+"; "+probeS+" SMUG-TE-XCHUNKED"),
		newCase("te-cl-trailing-space", "cl-te", conflict("Transfer-Encoding: chunked "), reject(400), rfc61+"; "+probeS+" SMUG-TE-TRAILING-SPACE"),
		newCase("te-cl-leading-comma", "cl-te", conflict("Transfer-Encoding: , chunked"), reject(400), rfc61+"; "+probeS+" SMUG-TE-LEADING-COMMA"),
		newCase("te-cl-tab", "cl-te", conflict("Transfer-Encoding:\tchunked"), reject(400), rfc61+"; "+smug+" tabprefix1"),
		newCase("te-cl-vtab", "cl-te", conflict("Transfer-Encoding:\x0bchunked"), reject(400), rfc61+"; "+smug+" midspace-0b; "+probeS+" SMUG-TE-VTAB"),
		newCase("te-cl-nul", "cl-te", conflict("Transfer-Encoding: chunked\x00"), reject(400), rfc61+"; "+probeS+" SMUG-TE-NULL"),
		newCase("te-cl-empty", "cl-te", conflict("Transfer-Encoding: "), reject(400), rfc61+"; llhttp \"POST with empty Transfer-Encoding and Content-Length\""),

		// Transfer-Encoding in HTTP/1.0: RFC 9112 section 6.1, the framing
		// is faulty even with a Content-Length; the server must close.
		newCase("te-http10", "te-http10", head("POST /hello/world HTTP/1.0", "Connection: keep-alive", "Transfer-Encoding: chunked")+"5\r\nhello\r\n0\r\n\r\n", reject(400), rfc61+"; the issue; "+probeS+" SMUG-TE-HTTP10"),
		newCase("te-cl-http10", "te-http10", head("POST /hello/world HTTP/1.0", "Connection: keep-alive", "Transfer-Encoding: chunked", cl(teBody))+teBody, reject(400), rfc61+" (\"even if a Content-Length is present\")"),

		// Transfer codings: chunked must be the final coding (RFC 9112
		// section 6.3 item 4: 400 and close), applied once (section 7); a
		// coding the server does not know before it is 501 (section 6.1,
		// SHOULD).
		newCase("te-chunked-not-final", "transfer-coding", post("0\r\n\r\n", "Transfer-Encoding: chunked, gzip"), reject(400), rfc63+"; "+probeS+" SMUG-TE-NOT-FINAL-CHUNKED; "+llTE+" \"chunked before other transfer coding names\""),
		newCase("te-identity", "transfer-coding", post("0\r\n\r\n", "Transfer-Encoding: identity"), reject(400), rfc63+" (identity is no longer a coding, RFC 9112 section 7)"),
		newCase("te-xchunked", "transfer-coding", post("0\r\n\r\n", "Transfer-Encoding: xchunked"), reject(400), rfc63+"; "+llTE+" \"POST with chunkedchunked as transfer-encoding\""),
		newCase("te-empty", "transfer-coding", post("0\r\n\r\n", "Transfer-Encoding: "), reject(400), rfc63+"; "+probeS+" SMUG-TE-EMPTY-VALUE"),
		newCase("te-chunked-twice", "transfer-coding", post("0\r\n\r\n", "Transfer-Encoding: chunked, chunked"), reject(400), "RFC 9112 section 7 (chunked MUST NOT be applied twice); "+llTE+" \"chunked and duplicate transfer-encoding\""),
		newCase("te-obs-fold-garbage", "transfer-coding", post("5\r\nWorld\r\n0\r\n\r\n", "Transfer-Encoding: chunked", "  abc"), reject(400), rfc63+"; "+llTE+" \"Invalid OBS fold after chunked value\""),
		newCase("te-unknown-coding", "transfer-coding", post("0\r\n\r\n", "Transfer-Encoding: gzip, chunked"), reject(501), rfc61+" (501 for a coding not understood)"),

		// Chunk sizes: chunk-size = 1*HEXDIG, then an extension or CRLF
		// (RFC 9112 section 7.1).
		chunkCase("chunk-size-trailing-space", "a \r\n0123456789\r\n0\r\n\r\n", rfc71+"; the issue; llhttp \"Space after chunk header\""),
		chunkCase("chunk-size-trailing-tab", "2\t\r\naa\r\n0\r\n\r\n", rfc71+"; "+probeS+" SMUG-CHUNK-SIZE-TRAILING-OWS"),
		chunkCase("chunk-size-leading-space", " 2\r\naa\r\n0\r\n\r\n", rfc71+"; "+probeS+" SMUG-CHUNK-LEADING-SP"),
		chunkCase("chunk-size-word", "2 erfrferferf\r\naa\r\n0\r\n\r\n", rfc71+"; llhttp \"No semicolon before chunk extensions\""),
		chunkCase("chunk-size-0x", "0x2\r\naa\r\n0\r\n\r\n", rfc71+"; "+probeS+" SMUG-CHUNK-HEX-PREFIX"),
		chunkCase("chunk-size-plus", "+2\r\naa\r\n0\r\n\r\n", rfc71+"; "+probeS+" SMUG-CHUNK-SIZE-PLUS"),
		chunkCase("chunk-size-minus", "-2\r\naa\r\n0\r\n\r\n", rfc71+"; "+probeS+" SMUG-CHUNK-NEGATIVE"),
		chunkCase("chunk-size-underscore", "1_0\r\n0123456789abcdef\r\n0\r\n\r\n", rfc71+"; "+probeS+" SMUG-CHUNK-UNDERSCORE"),
		chunkCase("chunk-size-not-hex", "2g\r\naa\r\n0\r\n\r\n", rfc71),
		chunkCase("chunk-size-empty", "\r\naa\r\n0\r\n\r\n", rfc71),
		chunkCase("chunk-size-overflow", "10000000000000002\r\naa\r\n0\r\n\r\n", rfc71+" (2^64+2: a size that wraps to 2 in 64 bits)"),

		// Chunk extensions: chunk-ext = *( BWS ";" BWS name [ BWS "=" BWS
		// ( token / quoted-string ) ] ) (RFC 9112 section 7.1.1).
		chunkCase("chunk-ext-empty", "2;\r\naa\r\n0\r\n\r\n", rfc711+"; the issue; llhttp \"No extension after semicolon\"; "+probeS+" SMUG-CHUNK-BARE-SEMICOLON"),
		chunkCase("chunk-ext-unbalanced-quote", "5;ilovew3=\"abc\";somuchlove=\"def; ghi\r\nhello\r\n0\r\n\r\n", rfc711+"; the issue; llhttp \"Unbalanced chunk extensions quoting\""),
		chunkCase("chunk-ext-bad-token", "5;bad[=x\r\nhello\r\n0\r\n\r\n", rfc711+"; "+probeS+" SMUG-CHUNK-EXT-INVALID-TOKEN"),
		chunkCase("chunk-ext-no-name", "2;=v\r\naa\r\n0\r\n\r\n", rfc711),
		chunkCase("chunk-ext-space-in-value", "2;a=b c\r\naa\r\n0\r\n\r\n", rfc711+" (a token has no space)"),
		chunkCase("chunk-ext-nul", "2;a=\x00\r\naa\r\n0\r\n\r\n", rfc711+"; "+probeS+" SMUG-CHUNK-EXT-CTRL"),
		chunkCase("chunk-ext-bare-cr", "2;a\rb\r\naa\r\n0\r\n\r\n", rfc711+"; "+probeS+" SMUG-CHUNK-EXT-CR"),
		chunkCase("last-chunk-ext-empty", "2\r\naa\r\n0;\r\n\r\n", rfc711+" (the last chunk too)"),

		// Chunk lines end in CRLF: no bare CR or LF, and the data is
		// exactly chunk-size octets then CRLF (RFC 9112 section 7.1;
		// erratum 7633 keeps bare LF out of chunked coding).
		chunkCase("chunk-size-bare-lf", "2\naa\r\n0\r\n\r\n", rfc71+" and erratum 7633; the issue"),
		chunkCase("chunk-size-bare-cr", "2\raa\r\n0\r\n\r\n", rfc71+"; the issue; "+probeS+" SMUG-CHUNK-BARE-CR-TERM"),
		chunkCase("chunk-data-bare-lf", "2\r\naa\n0\r\n\r\n", rfc71+"; "+probeS+" SMUG-CHUNK-LF-TERM"),
		chunkCase("chunk-data-overrun", "2\r\naaa\r\n0\r\n\r\n", rfc71+"; "+probeS+" SMUG-CHUNK-SPILL"),
		chunkCase("chunk-data-no-crlf", "2\r\naa0\r\n\r\n", rfc71+"; "+probeS+" SMUG-CHUNK-MISSING-TRAILING-CRLF"),
		chunkCase("last-chunk-bare-lf", "0\n\r\n", rfc71+" and erratum 7633"),
		chunkCase("trailer-bad-name", "0\r\nBad Name: v\r\n\r\n", rfc71+" (trailer fields are field lines, RFC 9112 section 5)"),

		// Valid chunked bodies, so that a server cannot pass by refusing
		// every chunked request.
		newCase("chunk-ext-token", "chunk-syntax-valid", chunked("2;name=value;flag\r\naa\r\n0\r\n\r\n"), served(405), rfc711+"; "+llTE+" \"Chunk extensions\""),
		newCase("chunk-ext-quoted", "chunk-syntax-valid", chunked("5;ilovew3=\"I \\\"love\\\"; \\\\extensions\\\\\";somuchlove=\"aretheseparametersfor\";blah;foo=bar\r\nhello\r\n6;blahblah;blah\r\n world\r\n0\r\n\r\n"), served(405), rfc711+"; "+llTE+" \"Chunk extensions quoting\""),
		newCase("chunk-upper-hex-trailer", "chunk-syntax-valid", chunked("A\r\n0123456789\r\n000\r\nX-Trailer: v\r\n\r\n"), served(405), rfc71+"; "+llTE+" \"Two chunks and triple zero prefixed end chunk\", \"Trailing headers\""),

		// Content-Length = 1*DIGIT; several differing values, or one that
		// is not a number, is an unrecoverable framing error: 400 and
		// close (RFC 9110 section 8.6, RFC 9112 section 6.3 item 5).
		newCase("cl-two-values", "content-length", post("hello"+smuggled, "Content-Length: 5", "Content-Length: "+strconv.Itoa(5+len(smuggled))), reject(400), rfc86+"; "+probeS+" SMUG-DUPLICATE-CL-SMUGGLED-GET"),
		newCase("cl-list-different", "content-length", post("hello", "Content-Length: 5, 6"), reject(400), rfc86+"; "+probeS+" SMUG-CL-COMMA-DIFFERENT"),
		newCase("cl-plus", "content-length", post("hello", "Content-Length: +5"), reject(400), rfc86+"; "+probeS+" SMUG-CLTE-SMUGGLED-GET-CL-PLUS"),
		newCase("cl-negative", "content-length", post("hello", "Content-Length: -1"), reject(400), rfc86+"; "+probeS+" SMUG-CL-NEGATIVE"),
		newCase("cl-hex", "content-length", post("hello", "Content-Length: 0x5"), reject(400), rfc86+"; "+probeS+" SMUG-CL-HEX-PREFIX"),
		newCase("cl-underscore", "content-length", post("0123456789", "Content-Length: 1_0"), reject(400), rfc86+"; "+probeS+" SMUG-CL-UNDERSCORE"),
		newCase("cl-internal-space", "content-length", post("0123456789", "Content-Length: 1 0"), reject(400), rfc86+"; "+probeS+" SMUG-CL-INTERNAL-SPACE"),
		newCase("cl-trailing-letter", "content-length", post("hello", "Content-Length: 5a"), reject(400), rfc86+"; "+probeS+" SMUG-CLTE-SMUGGLED-GET-CL-NON-NUMERIC"),
		newCase("cl-empty", "content-length", post("hello", "Content-Length: "), reject(400), rfc86),
		newCase("cl-overflow", "content-length", post("hello", "Content-Length: 18446744073709551621"), reject(400), rfc86+" (2^64+5: a length that wraps to 5 in 64 bits)"),

		// Field syntax: a field name is a token with no whitespace before
		// the colon (RFC 9112 section 5: MUST reject with 400); a value has
		// no CTL but HTAB (RFC 9110 section 5.5: CR, LF and NUL must be
		// refused or replaced; the contract refuses).
		newCase("te-name-space", "field-syntax", post(teBody, "Transfer Encoding: chunked", cl(teBody)), reject(400), "RFC 9110 section 5.1; the issue"),
		newCase("te-space-before-colon", "field-syntax", post(teBody, "Transfer-Encoding : chunked", cl(teBody)), reject(400), rfc5+"; "+probeS+" SMUG-TE-SP-BEFORE-COLON; "+smug+" space1"),
		newCase("te-tab-before-colon", "field-syntax", post(teBody, "Transfer-Encoding\t: chunked", cl(teBody)), reject(400), rfc5+"; "+smug+" tabprefix2"),
		newCase("cl-space-before-colon", "field-syntax", post("hello", "Content-Length : 5"), reject(400), rfc5+"; Http11Probe NormalizationSuite sp-before-colon-cl"),
		newCase("empty-field-name", "field-syntax", post("hello", ": empty", "Content-Length: 5"), reject(400), "RFC 9110 section 5.1; Http11Probe empty-header-name"),
		newCase("field-name-non-ascii", "field-syntax", post("hello", "X-F\xc3\xb6o: 1", "Content-Length: 5"), reject(400), "RFC 9110 section 5.1 (token)"),
		newCase("value-nul", "field-syntax", post("hello", "X-Test: a\x00b", "Content-Length: 5"), reject(400), rfc55+" (NUL: refused or replaced; the contract refuses)"),
		newCase("value-bare-cr", "field-syntax", post("hello", "X-Test: val\rue", "Content-Length: 5"), reject(400), rfc55+" and RFC 9112 section 2.2; "+probeS+" SMUG-BARE-CR-HEADER-VALUE; llhttp test/request/invalid.md \"Headers separated by CR\""),
		newCase("value-ctl", "field-syntax", post("hello", "X-Test: a\x01b", "Content-Length: 5"), reject(400), rfc55+" (field-vchar)"),
		newCase("value-del", "field-syntax", post("hello", "X-Test: a\x7fb", "Content-Length: 5"), reject(400), rfc55+" (field-vchar)"),

		// The request line.
		newCase("leading-crlf", "request-line", "\r\n"+head("GET /hello/world HTTP/1.1"), expect{first: []int{200}, then: 1}, "RFC 9112 section 2.2 (SHOULD ignore at least one empty line before the request line); the issue"),
		newCase("crlf-after-body", "request-line", post("hello", "Content-Length: 5")+"\r\n"+head("GET /hello/world HTTP/1.1"), expect{first: []int{405}, then: 2}, "RFC 9112 section 2.2 (clients that add a CRLF after a POST body)"),
		newCase("leading-space", "request-line", " "+head("GET /hello/world HTTP/1.1"), reject(400), "RFC 9112 section 3"),
		newCase("h2-preface", "request-line", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", reject(505, 400), "RFC 9113 section 3.4 (the preface is not an HTTP/1.1 request); RFC 9112 section 2.3; the issue"),
		newCase("http-3.0", "request-line", head("GET /hello/world HTTP/3.0"), reject(505, 400), "RFC 9112 section 2.3; RFC 9110 section 15.6.6"),
		newCase("http-0.9", "request-line", head("GET /hello/world HTTP/0.9"), reject(505, 400), "RFC 9112 section 2.3; RFC 9110 section 15.6.6"),
		newCase("version-lowercase", "request-line", head("GET /hello/world http/1.1"), reject(400), "RFC 9112 section 2.3 (HTTP-name is case-sensitive); Http11Probe version-case"),
		newCase("version-two-digit-minor", "request-line", head("GET /hello/world HTTP/1.10"), reject(400), "RFC 9112 section 2.3 (DIGIT \".\" DIGIT)"),
		newCase("version-leading-zero", "request-line", head("GET /hello/world HTTP/01.1"), reject(400), "RFC 9112 section 2.3; Http11Probe version-leading-zeros"),
	}
}()

// A framingDeviation replaces a case's expectation for one target, where
// its stack answers otherwise and cannot be configured not to; asserted
// like the contract's own.
type framingDeviation struct {
	want expect
	why  string
}

var framingDeviations = map[string]map[string]framingDeviation{
	"fcgi": func() map[string]framingDeviation {
		d := map[string]framingDeviation{
			"version-leading-zero": {reject(505), "lighttpd answers 505 to every HTTP/ version but exactly 1.0 and 1.1, the malformed HTTP/01.1 too (request.c, http_request_parse_proto_loose)"},
			"leading-space":        {reject(501), "lighttpd takes the method to be what precedes the first space, here nothing, and answers an unknown method 501 (request.c, http_request_parse_reqline)"},
			"leading-crlf":         {reject(400), "lighttpd ignores an empty line only before a request that follows another on the connection, not before the first (connections.c, connection_handle_read_state)"},
			"cl-empty":             {reject(411), "lighttpd drops a field whose value is empty, and answers a POST without Content-Length 411"},
			"te-empty":             {reject(411), "lighttpd drops a field whose value is empty, and answers a POST without Content-Length 411"},
			"te-cl-empty":          {expect{first: []int{405}, then: 1}, "lighttpd drops a field whose value is empty, so Content-Length alone frames the body, whole: no desync"},
			"chunk-ext-nul":        {expect{}, "lighttpd looks for the end of a chunk line with strchr, which stops at the NUL: it waits for the rest of the line until server.max-read-idle, and answers nothing (connections.c, connection_handle_read_post_chunked)"},
			"trailer-bad-name":     {expect{first: []int{405}, then: 1}, "lighttpd skips the trailer section to its empty line without parsing it (connections.c, connection_handle_read_post_chunked)"},
		}
		for _, c := range []string{"method-nul", "method-tab-inside", "method-separator", "method-colon", "method-non-ascii"} {
			d[c] = framingDeviation{reject(501), "lighttpd answers 501 to a method it does not know, a malformed one too, and closes (request.c, http_request_parse_reqline)"}
		}
		for _, c := range []string{"version-1.32", "version-01.01", "version-huge", "version-bare-cr", "version-no-minor", "version-spaced"} {
			d[c] = framingDeviation{reject(505), "lighttpd answers 505 to every HTTP/ version but exactly 1.0 and 1.1, malformed ones too (request.c, http_request_parse_proto_loose)"}
		}
		d["pipelined-then-bad-version"] = framingDeviation{expect{lead: []int{200}, first: []int{505}}, "lighttpd answers 505 to every HTTP/ version but exactly 1.0 and 1.1, malformed ones too (request.c, http_request_parse_proto_loose)"}
		d["method-nul-version-dots"] = d["version-1.32"]
		d["chunked-then-nul"] = framingDeviation{expect{lead: []int{200}, first: []int{501}}, "lighttpd answers 501 to a method it does not know, a malformed one too, and closes (request.c, http_request_parse_reqline)"}
		d["cl-empty-then-value"] = framingDeviation{expect{first: []int{200}, then: 1}, "lighttpd drops a field whose value is empty, so the second Content-Length alone frames the body, whole: no desync"}
		d["two-leading-crlf"] = d["leading-crlf"]
		d["split-leading-crlf"] = d["leading-crlf"]
		d["target-space"] = framingDeviation{expect{first: []int{404}, then: 1}, "lighttpd takes the request line's last space for the one before the version, so \"/hello world\" is a target, not found: one request either way, no desync (request.c, http_request_parse_reqline)"}
		d["absolute-form-other-host"] = framingDeviation{reject(400), "lighttpd refuses an absolute-form target whose authority differs from Host, where RFC 9112 section 3.2.2 asks a server to ignore Host (request.c, http_request_parse_reqline)"}
		d["host-duplicate"] = framingDeviation{expect{first: []int{200}, then: 1}, "lighttpd takes a Host repeated with the same value as one (request.c, http_request_parse_single_header); RFC 9112 section 3.2 asks 400, but both copies name the same host: no desync"}
		d["te-two-lines-chunked"] = framingDeviation{expect{first: []int{405}, then: 1}, "lighttpd reads two \"Transfer-Encoding: chunked\" lines as chunked once, and frames the body by it: no desync"}
		for _, c := range []string{"trailer-obs-fold", "trailer-no-colon"} {
			d[c] = d["trailer-bad-name"]
		}
		for _, c := range []string{"trailer-bare-lf", "trailer-bare-cr"} {
			d[c] = framingDeviation{expect{first: []int{405}, held: true}, "lighttpd skips the trailer section to the first CRLF CRLF without parsing it (connections.c, connection_handle_read_post_chunked), here the probe's: the probe is taken as trailer, and nothing answers it"}
		}
		// A Transfer-Encoding other than exactly "chunked" is 501, where
		// RFC 9112 section 6.1 asks 400 when chunked is not the last coding.
		for _, c := range []string{"te-chunked-not-final", "te-identity", "te-xchunked", "te-chunked-twice", "te-obs-fold-garbage",
			"te-cl-identity", "te-cl-double-chunked", "te-cl-two-te-lines", "te-cl-xchunked", "te-cl-leading-comma", "te-cl-obs-fold",
			"te-cow-comma-chunked-cl", "te-cow-line-chunked-cl", "te-trailing-comma-cl"} {
			d[c] = framingDeviation{reject(501), "lighttpd answers 501 to every Transfer-Encoding but exactly \"chunked\" (request.c, http_request_parse_single_header), before it looks at Content-Length"}
		}
		// The chunk line: hex digits, then any whitespace, then CR or ";"
		// and anything up to LF; one LF-terminated line either way, so no
		// desync, but no check of the extension syntax.
		for _, c := range []string{"chunk-size-trailing-space", "chunk-size-trailing-tab", "chunk-ext-empty", "chunk-ext-unbalanced-quote",
			"chunk-ext-bad-token", "chunk-ext-no-name", "chunk-ext-space-in-value", "chunk-ext-bare-cr", "last-chunk-ext-empty",
			"chunk-ext-bare-lf", "split-bad-chunk", "chunk-size-cr-cr-ext"} {
			d[c] = framingDeviation{expect{first: []int{405}, then: 1}, "lighttpd reads a chunk size's hex digits, skips whitespace, and takes anything after \";\" up to LF without checking it (connections.c, connection_handle_read_post_chunked)"}
		}
		return d
	}(),
	// hertz: its guard shows it only requests a strict parser has checked
	// (servers/hertz/guard.go); what that parser accepts, hertz frames
	// alike, but for chunk extensions.
	"hertz": {
		"chunk-ext-token":  {reject(400), "hertz refuses every chunk extension, valid ones too (common/utils/chunk.go, ParseChunkSize): too strict, no desync"},
		"chunk-ext-quoted": {reject(400), "hertz refuses every chunk extension, valid ones too (common/utils/chunk.go, ParseChunkSize): too strict, no desync"},
		"cl-tab-ows":       {reject(400), "hertz refuses a Content-Length whose value a tab precedes (OWS may be HTAB, RFC 9112 section 5): too strict, no desync"},
	},
}

// An observed is what a server did with a case.
type observed struct {
	statuses []int
	close    []bool // whether each response said Connection: close
	end      string // "closed", "open", or what else went wrong
}

func (o observed) String() string {
	var b strings.Builder
	for _, s := range o.statuses {
		fmt.Fprintf(&b, "%d ", s)
	}
	b.WriteString(o.end)
	return b.String()
}

// meets reports whether o is what e asks for.
func (o observed) meets(e expect) bool {
	if e.alt != nil && o.meets(*e.alt) {
		return true
	}
	if len(e.first) == 0 {
		return len(o.statuses) == 0 && o.end == "open"
	}
	n := len(e.lead)
	if len(o.statuses) < n || !slices.Equal(o.statuses[:n], e.lead) {
		return false
	}
	o.statuses, o.close = o.statuses[n:], o.close[n:]
	if len(o.statuses) == 0 || !slices.Contains(e.first, o.statuses[0]) {
		return false
	}
	if e.held {
		return len(o.statuses) == 1 && o.end == "open"
	}
	if e.closeOK && len(o.statuses) == 1 && o.close[0] && o.end == "closed" {
		return true
	}
	if len(o.statuses) != 1+e.then {
		return false
	}
	for _, s := range o.statuses[1:] {
		if s != 200 {
			return false
		}
	}
	if e.then == 0 {
		return o.end == "closed"
	}
	return o.end == "open"
}

// partPause is the pause between the writes of a split case: long enough
// that each arrives, and is read, alone.
const partPause = 20 * time.Millisecond

// observe sends the case and the probe, in one write or in the case's parts,
// and reads every response until the server closes or stays silent for
// closeWait.
func observe(addr string, fc framingCase) (o observed) {
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		o.end = "dial: " + err.Error()
		return o
	}
	defer nc.Close()
	c := nc.(*net.TCPConn)
	c.SetNoDelay(true) // so each part is a segment of its own
	parts := fc.parts
	if parts == nil {
		parts = []string{fc.req}
	}
	for i, p := range parts {
		if i > 0 {
			time.Sleep(partPause)
		}
		if i == len(parts)-1 {
			p += probe
		}
		c.SetWriteDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.WriteString(c, p); err != nil {
			break // the server has refused and closed: read what it said
		}
	}
	br := bufio.NewReader(c)
	wait := firstWait
	for {
		c.SetReadDeadline(time.Now().Add(wait))
		wait = closeWait
		if _, err := br.Peek(1); err != nil {
			switch {
			case errors.Is(err, os.ErrDeadlineExceeded):
				o.end = "open"
			case errors.Is(err, io.EOF), isReset(err):
				o.end = "closed"
			default:
				o.end = "error: " + err.Error()
			}
			return o
		}
		if len(o.statuses) == 6 {
			o.end = "more responses"
			return o
		}
		c.SetReadDeadline(time.Now().Add(firstWait))
		start, _ := br.Peek(min(br.Buffered(), 16))
		start = bytes.Clone(start)
		resp, err := http.ReadResponse(br, nil)
		if err == nil {
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		if err != nil {
			if !bytes.HasPrefix(start, []byte("HTTP/")) {
				o.end = fmt.Sprintf("not an HTTP/1.x response: %q...", start)
			} else {
				o.end = fmt.Sprintf("bad response: %v", err)
			}
			return o
		}
		o.statuses = append(o.statuses, resp.StatusCode)
		o.close = append(o.close, resp.Close)
	}
}

// A framingRow is one line of the published outcome table.
type framingRow struct {
	Server    string `json:"server"`
	Mode      string `json:"mode"` // "guarded" (as the server serves) or "bare" (its stack out of the box)
	Case      string `json:"case,omitempty"`
	Got       string `json:"got,omitempty"`
	Want      string `json:"want,omitempty"`
	OK        bool   `json:"ok"`
	Deviation string `json:"deviation,omitempty"`
	Skipped   string `json:"skipped,omitempty"`
}

type framingTable struct {
	mu   sync.Mutex
	rows []framingRow
}

func (tb *framingTable) add(r framingRow) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	tb.rows = append(tb.rows, r)
}

// publish writes the table as JSON to $HELLOBENCH_FRAMING_OUT, or logs
// which cases each server and mode missed.
func (tb *framingTable) publish(t *testing.T) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	// In the tables' order: servers, then guarded before bare, then cases.
	order := map[string]int{}
	for i, tg := range servers {
		order[tg.Name] = i
	}
	for i, fc := range corpus {
		order[fc.name] = i
	}
	slices.SortFunc(tb.rows, func(a, b framingRow) int {
		if c := order[a.Server] - order[b.Server]; c != 0 {
			return c
		}
		if c := strings.Compare(b.Mode, a.Mode); c != 0 { // "guarded" first
			return c
		}
		return order[a.Case] - order[b.Case]
	})
	if path := os.Getenv("HELLOBENCH_FRAMING_OUT"); path != "" {
		type caseDoc struct {
			Name     string `json:"name"`
			Category string `json:"category"`
			Want     string `json:"want"`
			Source   string `json:"source"`
			Request  string `json:"request"`
		}
		doc := struct {
			Cases []caseDoc    `json:"cases"`
			Rows  []framingRow `json:"results"`
		}{Rows: tb.rows}
		for _, fc := range corpus {
			doc.Cases = append(doc.Cases, caseDoc{fc.name, fc.category, fc.want.String(), fc.source, fc.req})
		}
		b, err := json.MarshalIndent(doc, "", "  ")
		if err == nil {
			err = os.WriteFile(path, append(b, '\n'), 0o644)
		}
		if err != nil {
			t.Errorf("HELLOBENCH_FRAMING_OUT: %v", err)
		}
		return
	}
	missed := map[string][]string{}
	var keys []string
	for _, r := range tb.rows {
		k := r.Server + " " + r.Mode
		if _, ok := missed[k]; !ok {
			keys = append(keys, k)
			missed[k] = nil
		}
		switch {
		case r.Skipped != "":
			missed[k] = append(missed[k], "skipped: "+r.Skipped)
		case !r.OK:
			missed[k] = append(missed[k], r.Case+" ("+r.Got+")")
		}
	}
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %d missed", k, len(missed[k]))
		if len(missed[k]) > 0 {
			b.WriteString(": " + strings.Join(missed[k], ", "))
		}
		b.WriteString("\n")
	}
	t.Logf("framing outcomes (cases missed per server and mode):\n%s", b.String())
}

// noBare names the servers that have no stack to run bare.
var noBare = map[string]string{
	"gnet":  "gnet's HTTP/1.1 parser is this project's own: there is no stack to run out of the box",
	"uring": "uring's HTTP/1.1 parser is this project's own: there is no stack to run out of the box",
}

// TestFraming runs every framing case against every server, the servers
// in parallel, each started once: as it serves (asserted), and bare, its
// stack out of the box without the server's framing guards (recorded, for
// the robustness report, not asserted).
func TestFraming(t *testing.T) {
	tb := &framingTable{}
	t.Cleanup(func() { tb.publish(t) })
	for _, tg := range servers {
		t.Run(tg.Name, func(t *testing.T) {
			t.Parallel()
			addr, _ := startFraming(t, tg, false)
			dev := framingDeviations[tg.Name]
			got := observeAll(addr)
			for i, fc := range corpus {
				t.Run(fc.name, func(t *testing.T) {
					want, row := fc.want, framingRow{Server: tg.Name, Mode: "guarded", Case: fc.name}
					if d, ok := dev[fc.name]; ok {
						t.Logf("deviation: %s instead of %s: %s", d.want, want, d.why)
						want, row.Deviation = d.want, d.why
					}
					row.Got, row.Want, row.OK = got[i].String(), want.String(), got[i].meets(want)
					tb.add(row)
					if !row.OK {
						t.Errorf("%s (%s)\nsent %q\ngot  %s\nwant %s", fc.name, fc.source, fc.req+probe, got[i], want)
					}
				})
			}
		})
		t.Run(tg.Name+"-bare", func(t *testing.T) {
			t.Parallel()
			if why, ok := noBare[tg.Name]; ok {
				tb.add(framingRow{Server: tg.Name, Mode: "bare", Skipped: why})
				t.Skip(why)
			}
			addr, err := startFraming(t, tg, true)
			if err != nil {
				tb.add(framingRow{Server: tg.Name, Mode: "bare", Skipped: err.Error()})
				t.Skip(err)
			}
			got := observeAll(addr)
			for i, fc := range corpus {
				ok := got[i].meets(fc.want)
				tb.add(framingRow{Server: tg.Name, Mode: "bare", Case: fc.name, Got: got[i].String(), Want: fc.want.String(), OK: ok})
				if !ok {
					t.Logf("%s out of the box: got %s, the contract wants %s", fc.name, got[i], fc.want)
				}
			}
		})
	}
}

// observeAll sends every case of the corpus to addr at once, each on a
// connection of its own, and returns what the server did with each. At
// once, not as parallel subtests: a case spends its time waiting (for a
// close, or for the silence that shows nothing more is answered), and go
// test runs only as many parallel subtests as there are CPUs.
func observeAll(addr string) []observed {
	got := make([]observed, len(corpus))
	var wg sync.WaitGroup
	for i, fc := range corpus {
		wg.Go(func() { got[i] = observe(addr, fc) })
	}
	wg.Wait()
	return got
}

// startFraming starts tg for the framing cases, bare or as it serves, and
// returns its address. A server without guards of its own to turn off
// (no Bare in the table: fcgi, whose lighttpd is the stack) is bare as it
// serves. Eleven servers start at once here,
// beside other suites: a port found free may be taken before the server
// binds it, so a start that finds its port taken is retried on another.
func startFraming(t *testing.T, tg target, bare bool) (string, error) {
	t.Helper()
	for try := 1; ; try++ {
		in, err := tg.Start(targets.Env{
			Root: "..", Bin: binDir, Addr: freeAddr(t),
			HeaderTimeout: framingHeaderTimeout, IdleTimeout: framingIdleTimeout,
			Bare: bare && tg.Bare,
		})
		if err == nil {
			t.Cleanup(func() {
				if err := in.Stop(); err != nil {
					t.Errorf("stop %s: %v", tg.Name, err)
				}
			})
			return in.Addr, nil
		}
		requireInstalled(t, err)
		switch {
		case bare && strings.Contains(err.Error(), "flag provided but not defined: -bare"):
			return "", fmt.Errorf("%s has no -bare flag yet", tg.Name)
		case try < 3 && strings.Contains(err.Error(), "already in use"):
			t.Logf("start %s: %v; again on another port", tg.Name, err)
		default:
			t.Fatalf("start %s (bare: %v): %v", tg.Name, bare, err)
		}
	}
}
