// Package http1 is an incremental HTTP/1.1 request parser (RFC 9112), the
// one the gnet and uring servers bring since neither gnet nor io_uring has
// HTTP, and the one hertz's and nbio's guards check requests with before
// their stacks read them; and the response writer gnet and uring answer
// with (response.go).
// It knows nothing of any of them: it reads any byte stream that the caller
// buffers, and returns how many leading bytes it is done with. It validates
// the request line, header names and values, Host, Content-Length,
// Transfer-Encoding, Connection and Expect, decodes chunked bodies and
// discards them, and allocates nothing.
package http1

import (
	"bytes"
	"net/netip"

	"hellobench/servers/internal/framing"
)

// Bounds on what the parser asks its caller to buffer.
const (
	maxHeader    = 8 << 10 // request line, fields and final CRLF; 431 past it
	maxChunkLine = 1 << 10 // a chunk-size line with its extensions; 400 past it
	maxTrailer   = 8 << 10 // the trailer section of a chunked body; 431 past it
)

// Event is what a call to Parse found.
type Event uint8

const (
	More   Event = iota // the input holds no further complete step
	Header              // a header section is complete and Req describes it
	Done                // the message is complete, body included
	Fail                // the input is not a valid request: answer Status, close
)

// Request is what the server needs of a header section. Method, Target and
// Path alias the input of the Parse call that returned Header.
type Request struct {
	Method    []byte
	Target    []byte // the request-target as sent
	Path      []byte // its path: no query, no scheme or authority
	Minor     byte   // HTTP/1.Minor, 0 or 1
	KeepAlive bool   // the connection may carry a request after this one
	Length    int64  // Content-Length, 0 when absent
	Chunked   bool   // Transfer-Encoding: chunked
	Continue  bool   // Expect: 100-continue on HTTP/1.1
}

// Parser states.
const (
	stHeader  = iota // reading the request line and header fields
	stNoBody         // header returned, no body follows
	stLength         // reading a Content-Length body
	stSize           // reading a chunk-size line
	stData           // reading chunk data
	stDataEnd        // reading the CRLF after chunk data
	stTrailer        // reading the trailer section
	stFail           // stuck on an error
)

// Parser reads one request after another from a stream. Each call to Parse
// gets the unconsumed input: the bytes after those it reported done with,
// followed by whatever has arrived since. While a header section is
// incomplete Parse reports 0 bytes done, so it sees the whole section again,
// grown, on the next call; it remembers how far it has checked and reads each
// byte once.
type Parser struct {
	Req    Request
	Status int    // with Fail: the status code to answer
	Reason string // with Fail: what was wrong

	state   uint8
	start   int // stHeader: offset of the request line, past empty lines
	line    int // stHeader: offset of the first line not yet parsed
	scan    int // stHeader: offset where the search for '\n' resumes
	target  [2]int
	path    [2]int
	hosts   int   // Host fields seen
	digits  int   // length of the first Content-Length value, 0 if none
	te      int   // Transfer-Encoding fields seen
	teFail  int   // the status a Transfer-Encoding value fails with, 0 if chunked
	close   bool  // Connection: close
	alive   bool  // Connection: keep-alive
	remain  int64 // body bytes left in the Content-Length body or chunk
	trailer int   // trailer bytes read
}

// Idle reports whether the parser is between requests and has seen no byte
// of the next one. Input left over after Done is the caller's to check.
func (p *Parser) Idle() bool {
	return p.state == stHeader && p.scan == 0
}

// InBody reports whether the parser is reading a body.
func (p *Parser) InBody() bool {
	return p.state >= stLength && p.state <= stTrailer
}

// InTrailer reports whether the parser is reading a chunked body's last
// chunk and trailer section, which ends the body only once it is whole.
func (p *Parser) InTrailer() bool {
	return p.state == stTrailer
}

// Parse continues the stream with b and returns the number of leading bytes
// of b it is done with, which the caller drops before the next call, and what
// it found. After Header the caller calls again for the body; after Done the
// parser is ready for the next request; after Fail it stays failed.
func (p *Parser) Parse(b []byte) (int, Event) {
	switch p.state {
	case stHeader:
		return p.header(b)
	case stNoBody:
		p.next()
		return 0, Done
	case stLength:
		if int64(len(b)) < p.remain {
			p.remain -= int64(len(b))
			return len(b), More
		}
		n := int(p.remain)
		p.next()
		return n, Done
	case stFail:
		return 0, Fail
	}
	return p.chunked(b)
}

// next readies the parser for the following request. Req is kept until the
// next request line replaces it.
func (p *Parser) next() {
	req := p.Req
	*p = Parser{Req: req}
}

func (p *Parser) fail(status int, reason string) Event {
	p.state = stFail
	p.Status = status
	p.Reason = reason
	return Fail
}

// header reads the request line and header fields, one complete line at a
// time. A line is judged only once its end has arrived, and the size limit
// before its content, so any split of the input gives the same outcome.
func (p *Parser) header(b []byte) (int, Event) {
	for {
		i := bytes.IndexByte(b[p.scan:], '\n')
		if i < 0 {
			p.scan = len(b)
			if len(b) > maxHeader {
				return 0, p.fail(431, "header section over 8 KiB")
			}
			return 0, More
		}
		end := p.scan + i + 1
		if end > maxHeader {
			return 0, p.fail(431, "header section over 8 KiB")
		}
		line := b[p.line:end]
		if len(line) < 2 || line[len(line)-2] != '\r' {
			return 0, p.fail(400, "line not ended by CRLF")
		}
		line = line[:len(line)-2]
		var status int
		var reason string
		switch {
		case p.line == p.start && len(line) == 0:
			// RFC 9112 section 2.2: a server SHOULD ignore at least one
			// empty line before the request line. They count towards the
			// header section's size and timeout.
			p.start = end
		case p.line == p.start:
			status, reason = p.requestLine(line)
		case len(line) == 0:
			return p.headerDone(b, end)
		default:
			status, reason = p.field(line)
		}
		if status != 0 {
			return 0, p.fail(status, reason)
		}
		p.line, p.scan = end, end
	}
}

// slash is the path of an absolute-form target with an empty path.
var slash = []byte("/")

// headerDone checks the section as a whole once its blank line has arrived
// at end, fills in Req and picks the body framing.
func (p *Parser) headerDone(b []byte, end int) (int, Event) {
	r := &p.Req
	switch {
	case r.Minor == 1 && p.hosts == 0:
		return 0, p.fail(400, "HTTP/1.1 request without Host")
	case p.te > 0 && p.digits > 0:
		// RFC 9112 section 6.1: a server MAY reject both, and MUST close
		// after answering; whatever the Transfer-Encoding says.
		return 0, p.fail(400, "both Content-Length and Transfer-Encoding")
	case p.te > 1:
		// Only one field, as Go's reader requires: "chunked" in two
		// fields would be chunked twice, which section 6.1 forbids.
		return 0, p.fail(400, "more than one Transfer-Encoding")
	case p.teFail != 0:
		return 0, p.fail(p.teFail, "transfer coding other than chunked")
	}
	r.Method = b[p.start : p.target[0]-1]
	r.Target = b[p.target[0]:p.target[1]]
	if p.path[0] == p.path[1] {
		r.Path = slash
	} else {
		r.Path = b[p.path[0]:p.path[1]]
	}
	if r.Minor == 1 {
		r.KeepAlive = !p.close
	} else {
		r.KeepAlive = p.alive && !p.close
	}
	switch {
	case p.te > 0:
		r.Chunked = true
		p.state = stSize
	case r.Length > 0:
		p.remain = r.Length
		p.state = stLength
	default:
		p.state = stNoBody
	}
	if !r.Chunked && r.Length == 0 {
		r.Continue = false // nothing to wait for
	}
	return end, Header
}

// requestLine parses method SP request-target SP HTTP-version.
func (p *Parser) requestLine(l []byte) (int, string) {
	p.Req = Request{}
	m := 0
	for m < len(l) && class[l[m]]&cToken != 0 {
		m++
	}
	if m == 0 || m == len(l) || l[m] != ' ' {
		return 400, "malformed method"
	}
	t := m + 1
	sp := bytes.IndexByte(l[t:], ' ')
	if sp <= 0 {
		return 400, "malformed request line"
	}
	v := l[t+sp+1:]
	if len(v) != 8 || string(v[:5]) != "HTTP/" || !isDigit(v[5]) || v[6] != '.' || !isDigit(v[7]) {
		return 400, "malformed HTTP version"
	}
	if v[5] != '1' || v[7] > '1' {
		return 505, "HTTP version not supported"
	}
	p.Req.Minor = v[7] - '0'
	start, end, ok := targetPath(l[:m], l[t:t+sp])
	if !ok {
		return 400, "malformed request target"
	}
	t += p.start // offsets in the input, past any empty lines
	p.target = [2]int{t, t + sp}
	p.path = [2]int{t + start, t + end}
	return 0, ""
}

// targetPath validates a request-target and returns where its path is:
// origin-form, absolute-form with an http or https scheme, or "*" for
// OPTIONS. Authority-form, for CONNECT, is refused.
func targetPath(method, t []byte) (start, end int, ok bool) {
	if t[0] == '/' {
		return 0, pathEnd(t), validURI(t)
	}
	if len(t) == 1 && t[0] == '*' {
		return 0, 1, string(method) == "OPTIONS"
	}
	// absolute-form: scheme "://" authority path-abempty ["?" query]
	var s int
	switch {
	case hasPrefixFold(t, "http://"):
		s = len("http://")
	case hasPrefixFold(t, "https://"):
		s = len("https://")
	default:
		return 0, 0, false
	}
	a := s
	for a < len(t) && t[a] != '/' && t[a] != '?' {
		a++
	}
	if !ValidAuthority(t[s:a]) {
		return 0, 0, false
	}
	rest := t[a:]
	return a, a + pathEnd(rest), validURI(rest)
}

// pathEnd returns the length of the path at the start of a target's rest.
func pathEnd(t []byte) int {
	if q := bytes.IndexByte(t, '?'); q >= 0 {
		return q
	}
	return len(t)
}

// validURI checks the path and query of a target: RFC 3986 characters, and
// '%' followed by two hex digits.
func validURI(s []byte) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if class[c]&cURI != 0 {
			continue
		}
		if c != '%' || i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			return false
		}
		i += 2
	}
	return true
}

// ValidAuthority checks host [":" port], of an absolute-form target or a
// Host field (RFC 9112 section 3.2): a reg-name or a bracketed IPv6
// address; no userinfo, no empty host (RFC 9110 section 4.2.1: an http URI
// with an empty host is invalid), a port of digits only.
func ValidAuthority(a []byte) bool {
	h := len(a)
	if c := bytes.LastIndexByte(a, ':'); c >= 0 && bytes.IndexByte(a[c:], ']') < 0 {
		h = c
		for _, d := range a[c+1:] {
			if !isDigit(d) {
				return false
			}
		}
	}
	host := a[:h]
	if len(host) == 0 {
		return false
	}
	if host[0] == '[' {
		if len(host) < 3 || host[len(host)-1] != ']' {
			return false
		}
		ip, err := netip.ParseAddr(string(host[1 : len(host)-1]))
		return err == nil && ip.Is6() && ip.Zone() == ""
	}
	for _, c := range host {
		if class[c]&cRegName == 0 {
			return false
		}
	}
	return true
}

// field parses one header field line: name ":" OWS value OWS.
func (p *Parser) field(l []byte) (int, string) {
	n := 0
	for n < len(l) && class[l[n]]&cToken != 0 {
		n++
	}
	if n == len(l) || l[n] != ':' {
		switch {
		case l[0] == ' ' || l[0] == '\t':
			return 400, "obsolete line folding"
		case n > 0 && n < len(l) && (l[n] == ' ' || l[n] == '\t'):
			return 400, "whitespace before colon"
		}
		return 400, "malformed header field name"
	}
	if n == 0 {
		return 400, "empty header field name"
	}
	v, ok := fieldValue(l[n+1:])
	if !ok {
		return 400, "invalid character in header field value"
	}
	name := l[:n]
	switch n {
	case 4:
		if framing.EqualFold(name, "host") {
			p.hosts++
			if p.hosts > 1 {
				return 400, "more than one Host"
			}
			if !ValidAuthority(v) {
				return 400, "malformed Host"
			}
		}
	case 6:
		if framing.EqualFold(name, "expect") && p.Req.Minor == 1 && framing.EqualFold(v, "100-continue") {
			p.Req.Continue = true
		}
	case 10:
		if framing.EqualFold(name, "connection") {
			p.connection(v)
		}
	case 14:
		if framing.EqualFold(name, "content-length") {
			return p.contentLength(v)
		}
	case 17:
		if framing.EqualFold(name, "transfer-encoding") {
			if p.Req.Minor == 0 {
				// RFC 9112 section 6.1: faulty framing, whatever else
				// the request says.
				return 400, "Transfer-Encoding in an HTTP/1.0 request"
			}
			// Judged with the whole section (headerDone), so that a
			// Content-Length anywhere makes it a 400.
			p.te++
			p.teFail = transferCoding(v)
		}
	}
	return 0, ""
}

// transferCoding judges a Transfer-Encoding value: 0 if it is chunked alone,
// 501 if codings this server does not implement come before one final
// chunked (RFC 9112 section 6.1), and 400 otherwise: without chunked last
// the length cannot be known (section 6.3), and chunked twice is forbidden
// (section 6.1). A list with empty elements is refused too, though RFC 9110
// section 5.6.1 allows them: Go's reader refuses it, and a front server may
// frame it otherwise.
func transferCoding(v []byte) int {
	if framing.EqualFold(v, "chunked") {
		return 0
	}
	if chunked, last, _ := framing.Codings(v); chunked == 1 && last {
		return 501
	}
	return 400
}

// fieldValue checks a field value for control characters (HTAB and obs-text
// are allowed) and returns it without surrounding whitespace.
func fieldValue(v []byte) ([]byte, bool) {
	for _, c := range v {
		if (c < ' ' && c != '\t') || c == 0x7f {
			return nil, false
		}
	}
	for len(v) > 0 && (v[0] == ' ' || v[0] == '\t') {
		v = v[1:]
	}
	for len(v) > 0 && (v[len(v)-1] == ' ' || v[len(v)-1] == '\t') {
		v = v[:len(v)-1]
	}
	return v, true
}

// connection records the close and keep-alive options of a Connection field.
func (p *Parser) connection(v []byte) {
	for len(v) > 0 {
		var opt []byte
		if i := bytes.IndexByte(v, ','); i >= 0 {
			opt, v = v[:i], v[i+1:]
		} else {
			opt, v = v, nil
		}
		opt, _ = fieldValue(opt)
		switch {
		case framing.EqualFold(opt, "close"):
			p.close = true
		case framing.EqualFold(opt, "keep-alive"):
			p.alive = true
		}
	}
}

// contentLength parses a Content-Length value: digits only. Repeated fields
// must carry the same digits.
func (p *Parser) contentLength(v []byte) (int, string) {
	n, ok := framing.ParseLength(v)
	if !ok {
		return 400, "malformed Content-Length"
	}
	if p.digits > 0 && (n != p.Req.Length || len(v) != p.digits) {
		return 400, "conflicting Content-Length"
	}
	p.Req.Length, p.digits = n, len(v)
	return 0, ""
}

// chunked reads a chunked body, from the chunk-size line it stopped at:
// chunk-size [chunk-ext] CRLF chunk-data CRLF ... "0" CRLF trailers CRLF.
// The data is dropped as it streams; only a partial line is left in b.
func (p *Parser) chunked(b []byte) (int, Event) {
	n := 0
	for {
		switch p.state {
		case stSize:
			i := bytes.IndexByte(b[n:], '\n')
			if i < 0 {
				if len(b)-n > maxChunkLine {
					return n, p.fail(400, "chunk-size line too long")
				}
				return n, More
			}
			if i+1 > maxChunkLine {
				return n, p.fail(400, "chunk-size line too long")
			}
			size, reason := chunkSize(b[n : n+i+1])
			if reason != "" {
				return n, p.fail(400, reason)
			}
			n += i + 1
			if size == 0 {
				p.state = stTrailer
			} else {
				p.remain = size
				p.state = stData
			}
		case stData:
			if int64(len(b)-n) < p.remain {
				p.remain -= int64(len(b) - n)
				return len(b), More
			}
			n += int(p.remain)
			p.state = stDataEnd
		case stDataEnd:
			if len(b)-n < 2 {
				if len(b)-n == 1 && b[n] != '\r' {
					return n, p.fail(400, "chunk data not followed by CRLF")
				}
				return n, More
			}
			if b[n] != '\r' || b[n+1] != '\n' {
				return n, p.fail(400, "chunk data not followed by CRLF")
			}
			n += 2
			p.state = stSize
		case stTrailer:
			i := bytes.IndexByte(b[n:], '\n')
			if i < 0 {
				if p.trailer+len(b)-n > maxTrailer {
					return n, p.fail(431, "trailer section over 8 KiB")
				}
				return n, More
			}
			if p.trailer+i+1 > maxTrailer {
				return n, p.fail(431, "trailer section over 8 KiB")
			}
			line := b[n : n+i+1]
			if len(line) < 2 || line[len(line)-2] != '\r' {
				return n, p.fail(400, "line not ended by CRLF")
			}
			n += i + 1
			p.trailer += i + 1
			if len(line) == 2 {
				p.next()
				return n, Done
			}
			if status, reason := trailerField(line[:len(line)-2]); status != 0 {
				return n, p.fail(status, reason)
			}
		}
	}
}

// chunkSize parses a chunk-size line, CRLF included. Extensions are
// checked against the grammar and ignored.
func chunkSize(l []byte) (int64, string) {
	if len(l) < 3 || l[len(l)-2] != '\r' {
		return 0, "chunk-size line not ended by CRLF"
	}
	l = l[:len(l)-2]
	var size int64
	i := 0
	for ; i < len(l) && isHex(l[i]); i++ {
		if i == 15 {
			return 0, "chunk size too large"
		}
		size = size<<4 | int64(framing.Unhex(l[i]))
	}
	if i == 0 {
		return 0, "malformed chunk size"
	}
	if !chunkExt(l[i:]) {
		return 0, "malformed chunk extension"
	}
	return size, ""
}

// chunkExt reports whether e is a valid chunk-ext (RFC 9112 section 7.1.1):
//
//	*( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )
//
// where a name is a token and a value a token or quoted-string. So no
// whitespace after the size unless an extension follows, no empty name, and
// no unbalanced quote: a front server that reads the line otherwise could
// frame the body otherwise.
func chunkExt(e []byte) bool {
	for i := 0; i < len(e); {
		i = ows(e, i)
		if i == len(e) || e[i] != ';' {
			return false
		}
		i = ows(e, i+1)
		n := tokenEnd(e, i)
		if n == i {
			return false
		}
		i = n
		if j := ows(e, i); j < len(e) && e[j] == '=' {
			i = ows(e, j+1)
			if i < len(e) && e[i] == '"' {
				n = quotedEnd(e, i)
			} else {
				n = tokenEnd(e, i)
			}
			if n <= i {
				return false
			}
			i = n
		}
	}
	return true
}

// ows returns the offset of the first byte at or after i in b that is not
// SP or HTAB.
func ows(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return i
}

// tokenEnd returns the offset just past the token that starts at i in b; i
// if there is none.
func tokenEnd(b []byte, i int) int {
	for i < len(b) && class[b[i]]&cToken != 0 {
		i++
	}
	return i
}

// quotedEnd returns the offset just past the quoted-string (RFC 9110
// section 5.6.4) that starts at b[i], or -1 if it is malformed or unclosed.
func quotedEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1
		case c == '\\':
			// quoted-pair: HTAB, SP, VCHAR or obs-text.
			if i++; i == len(b) || (b[i] < ' ' && b[i] != '\t') || b[i] == 0x7f {
				return -1
			}
		case (c < ' ' && c != '\t') || c == 0x7f:
			return -1
		}
	}
	return -1
}

// trailerField checks a trailer field line; its content is ignored.
func trailerField(l []byte) (int, string) {
	n := 0
	for n < len(l) && class[l[n]]&cToken != 0 {
		n++
	}
	if n == 0 || n == len(l) || l[n] != ':' {
		return 400, "malformed trailer field"
	}
	if _, ok := fieldValue(l[n+1:]); !ok {
		return 400, "invalid character in trailer field value"
	}
	return 0, ""
}

// Character classes.
const (
	cToken   = 1 << iota // tchar (RFC 9110 5.6.2)
	cURI                 // pchar, '/' and '?' (RFC 3986), '%' aside
	cRegName             // unreserved and sub-delims: a reg-name, '%' aside
)

var class = func() (t [256]uint8) {
	const (
		alnum      = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
		unreserved = alnum + "-._~"
		subDelims  = "!$&'()*+,;="
	)
	for _, c := range alnum + "!#$%&'*+-.^_`|~" {
		t[c] |= cToken
	}
	for _, c := range unreserved + subDelims + ":@/?" {
		t[c] |= cURI
	}
	for _, c := range unreserved + subDelims {
		t[c] |= cRegName
	}
	return t
}()

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHex(c byte) bool { return framing.Unhex(c) >= 0 }

func hasPrefixFold(b []byte, s string) bool {
	return len(b) >= len(s) && framing.EqualFold(b[:len(s)], s)
}
