// Package fasthttpguard serves the servers that run on fasthttp's server
// (fasthttp and fiber): a framing guard, a listener whose connections pass
// on only well-framed requests (RFC 9112), with the status to answer what
// it refuses, and a listener that waits out a process out of descriptors
// instead of ending the server. The servers use the guard unless started
// with -bare.
package fasthttpguard

import (
	"bytes"
	"net"
)

// The framing guard. fasthttp is lenient where RFC 9112 asks a server to
// refuse, and where a front server that reads the same bytes otherwise
// would let a request be smuggled past it (section 11.2). It answers a
// request with both Content-Length and Transfer-Encoding (closing after);
// reads "Transfer-Encoding: identity" as no body; keeps a field name with a
// space in it as an ordinary field; and decodes a chunked body before any
// handler runs, taking "2;" and "2;a=\"b" (any extension text) and "a "
// (whitespace after the size), which section 7.1.1 does not allow. The
// chunk lines are gone by the time a handler runs, so the guard reads what
// arrives: each connection's bytes pass through a scanner that follows the
// requests' framing, strictly, and ends the stream at the first error.
// fasthttp then fails to read the request and answers the error's status
// (parseError), 400 or 501, and closes.
//
// The scanner accepts a subset of what fasthttp accepts, in which both
// frame every request alike: lines end in CRLF (section 2.2 lets a server
// take a bare LF; fasthttp does, the guard does not), no obs-fold (section
// 5.2 lets a server refuse it), field names are tokens (RFC 9110 section
// 5.1), at most one framing, and chunked bodies per section 7.1. The rest
// of a request (its request line, field values, limits) is fasthttp's to
// check. On a plain GET it costs a pass over the field names and a search
// for each line's end, and no allocation.

// An Error is what the guard refuses, and the status to answer.
type Error struct {
	Status int
	reason string
}

func (e *Error) Error() string { return "framing: " + e.reason }

// refuse returns the error for a request to answer with 400.
func refuse(reason string) error { return &Error{400, reason} }

// Listener hands out connections whose requests are checked: wrap the
// listener fasthttp serves with it.
type Listener struct{ net.Listener }

func (l Listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &strictConn{Conn: c}, nil
}

// A strictConn passes on the bytes of well-framed requests only.
type strictConn struct {
	net.Conn
	err error // the framing error, returned once the bytes before it are read
	s   scanner
}

func (c *strictConn) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.Conn.Read(p)
	if m, ferr := c.s.scan(p[:n]); ferr != nil {
		c.err = ferr
		if m == 0 {
			return 0, ferr
		}
		return m, nil
	}
	return n, err
}

// The scanner's states.
const (
	sStart        = iota // before a request line: empty lines (CRLF) pass
	sStartLF             // after a CR before a request line
	sLine                // in the request line, up to its LF
	sFieldStart          // at the start of a field line, or of the empty line
	sName                // in a field name
	sValue               // in a field value, up to its LF
	sHeadLF              // after the CR of the empty line ending the header
	sBody                // in a body framed by Content-Length
	sSize                // in a chunk size
	sSizeWS              // after whitespace that follows a chunk size
	sExt                 // after ";": an extension name must follow
	sExtName             // in an extension name
	sExtNameWS           // after whitespace that follows an extension name
	sExtValue            // after "=": a token or quoted string must follow
	sExtToken            // in a token value
	sExtQuoted           // in a quoted-string value
	sExtEscape           // after a backslash in a quoted string
	sExtEnd              // after a quoted string
	sExtEndWS            // after whitespace that follows a value
	sSizeLF              // after the CR that ends a chunk line
	sData                // in chunk data
	sDataCR              // after chunk data: CR must follow
	sDataLF              // after chunk data and CR: LF must follow
	sTrailer             // at the start of a trailer line, or of the empty line
	sTrailerName         // in a trailer field name
	sTrailerValue        // in a trailer field value, up to its LF
	sEndLF               // after the CR of the empty line ending the trailers
)

// Framing fields being matched or read.
const (
	fNone = iota
	fCL   // Content-Length
	fTE   // Transfer-Encoding
)

var fieldNames = [...]string{fCL: "content-length", fTE: "transfer-encoding"}

// A scanner follows the framing of the requests on one connection.
type scanner struct {
	state  uint8
	cr     bool  // the last byte of a line state was CR
	field  uint8 // the framing field whose name or value is being read
	nname  int   // bytes of the field name read
	n      int64 // bytes left of a body or chunk; the chunk size being read
	digits int   // hex digits of the chunk size

	// The header section being read.
	cl, te bool
	length int64
	value  [32]byte // the framing field value being read
	nvalue int
}

// scan follows p and returns how many of its bytes are well framed: all of
// them, or those before the first error, which it returns too.
func (s *scanner) scan(p []byte) (int, error) {
	for i := 0; i < len(p); {
		b := p[i]
		switch s.state {
		case sStart:
			if b == '\r' {
				// RFC 9112 section 2.2: a server SHOULD ignore at least
				// one empty line before a request line; fasthttp does.
				s.state = sStartLF
				break
			}
			s.state, s.cr, s.field = sLine, false, fNone
			continue
		case sStartLF:
			if b != '\n' {
				return i, refuse("CR without LF before the request line")
			}
			s.state = sStart
		case sLine, sValue, sTrailerValue:
			j := bytes.IndexByte(p[i:], '\n')
			if j < 0 {
				if s.field != fNone && !s.keep(p[i:]) {
					return i + len(s.value) - s.nvalue, refuse("framing field value too long")
				}
				s.cr = p[len(p)-1] == '\r'
				i = len(p)
				continue
			}
			k := i + j
			if s.field != fNone && !s.keep(p[i:k]) {
				return i + len(s.value) - s.nvalue, refuse("framing field value too long")
			}
			if !(j > 0 && p[k-1] == '\r' || j == 0 && s.cr) {
				return k, refuse("line ended by LF alone")
			}
			if s.field != fNone {
				if err := s.fieldDone(); err != nil {
					return k, err
				}
			}
			i = k + 1
			if s.state == sTrailerValue {
				s.state = sTrailer
			} else {
				s.state = sFieldStart
			}
			continue
		case sFieldStart:
			switch {
			case b == '\r':
				s.state = sHeadLF
			case b == ' ' || b == '\t':
				return i, refuse("obs-fold")
			case tchar[b]:
				s.state, s.field, s.nname = sName, fNone, 0
				if l := lower(b); l == 'c' {
					s.field = fCL
				} else if l == 't' {
					s.field = fTE
				}
				continue
			default:
				return i, refuse("field name is not a token")
			}
		case sName:
			// Most names are read here in one go.
			for ; i < len(p) && tchar[p[i]]; i++ {
				if f := s.field; f != fNone && (s.nname >= len(fieldNames[f]) || lower(p[i]) != fieldNames[f][s.nname]) {
					s.field = fNone
				}
				s.nname++
			}
			if i == len(p) {
				continue
			}
			if p[i] != ':' {
				return i, refuse("field name is not a token")
			}
			if s.field != fNone && s.nname != len(fieldNames[s.field]) {
				s.field = fNone
			}
			s.nvalue, s.cr = 0, false
			s.state = sValue
		case sHeadLF:
			if b != '\n' {
				return i, refuse("CR without LF ending the header section")
			}
			if err := s.headDone(); err != nil {
				return i, err
			}
		case sBody, sData:
			k := int(min(s.n, int64(len(p)-i)))
			i += k
			if s.n -= int64(k); s.n == 0 {
				if s.state == sBody {
					s.state = sStart
				} else {
					s.state = sDataCR
				}
			}
			continue
		default:
			if err := s.chunk(b); err != nil {
				return i, err
			}
		}
		i++
	}
	return len(p), nil
}

// keep appends part of a framing field's value.
func (s *scanner) keep(b []byte) bool {
	if s.nvalue+len(b) > len(s.value) {
		return false
	}
	s.nvalue += copy(s.value[s.nvalue:], b)
	return true
}

// fieldDone records a Content-Length or Transfer-Encoding field line.
func (s *scanner) fieldDone() error {
	v := bytes.Trim(s.value[:s.nvalue], " \t\r")
	f := s.field
	s.field = fNone
	if f == fTE {
		// fasthttp takes chunked or identity alone, once; the guard,
		// chunked alone, once.
		switch {
		case s.te:
			return refuse("more than one Transfer-Encoding")
		case !equalFold(v, "chunked"):
			return codingError(v)
		}
		s.te = true
		return nil
	}
	// Content-Length = 1*DIGIT (RFC 9110 section 8.6).
	if len(v) == 0 || len(v) > 18 {
		return refuse("bad Content-Length")
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return refuse("bad Content-Length")
		}
		n = n*10 + int64(c-'0')
	}
	if s.cl && n != s.length {
		return refuse("Content-Length values differ")
	}
	s.cl, s.length = true, n
	return nil
}

// codingError is the error for a Transfer-Encoding other than chunked:
// 501 for codings before a final chunked, which this server does not
// implement (RFC 9112 section 6.1); 400 where chunked is not the final
// coding, once, for then the body's length cannot be known (section 6.3),
// and for a list with an empty element, which a front server may read as
// chunked alone (RFC 9110 section 5.6.1). It is judged as the line ends,
// so "gzip, chunked" gets 501 even if a Content-Length follows.
func codingError(v []byte) error {
	chunked, last, empty := 0, false, false
	for more := true; more; {
		c := v
		if i := bytes.IndexByte(v, ','); i >= 0 {
			c, v = v[:i], v[i+1:]
		} else {
			more = false
		}
		c = bytes.Trim(c, " \t")
		empty = empty || len(c) == 0
		if last = equalFold(c, "chunked"); last {
			chunked++
		}
	}
	if chunked == 1 && last && !empty {
		return &Error{501, "transfer coding not implemented"}
	}
	return refuse("chunked is not the final transfer coding, once")
}

// headDone picks the framing of the body whose header section just ended
// (RFC 9112 section 6.3).
func (s *scanner) headDone() error {
	cl, te, n := s.cl, s.te, s.length
	s.cl, s.te, s.length = false, false, 0
	switch {
	case cl && te:
		// Section 6.1: a server MAY process the chunked coding alone and
		// close after answering, but it may be an attempt to smuggle a
		// request: refused.
		return refuse("both Content-Length and Transfer-Encoding")
	case te:
		s.state, s.n, s.digits = sSize, 0, 0
	case n > 0:
		s.state, s.n = sBody, n
	default:
		s.state = sStart
	}
	return nil
}

// chunk follows one byte of a chunked body outside chunk data (RFC 9112
// section 7.1):
//
//	chunk      = chunk-size [ chunk-ext ] CRLF chunk-data CRLF
//	chunk-size = 1*HEXDIG
//	chunk-ext  = *( BWS ";" BWS ext-name [ BWS "=" BWS ext-val ] )
//	ext-val    = token / quoted-string
//	trailer-section = *( field-line CRLF ), then CRLF
//
// Lines end in CRLF, no bare CR or LF (erratum 7633), and whitespace
// follows a chunk size only before an extension.
func (s *scanner) chunk(b byte) error {
	ws := b == ' ' || b == '\t'
	switch s.state {
	case sSize:
		if d := unhex(b); d >= 0 {
			// fasthttp takes 15 digits at most, this server too.
			if s.digits++; s.digits > 15 {
				return refuse("chunk size too large")
			}
			s.n = s.n<<4 | int64(d)
			return nil
		}
		switch {
		case s.digits == 0:
			return refuse("chunk size is not a hex number")
		case b == ';':
			s.state = sExt
		case ws:
			s.state = sSizeWS
		case b == '\r':
			s.state = sSizeLF
		default:
			return refuse("bad character after the chunk size")
		}
	case sSizeWS, sExtEndWS:
		switch {
		case b == ';':
			s.state = sExt
		case !ws:
			return refuse("whitespace after a chunk size or extension, and no extension")
		}
	case sExt:
		switch {
		case tchar[b]:
			s.state = sExtName
		case !ws:
			return refuse("chunk extension without a name")
		}
	case sExtName, sExtNameWS:
		switch {
		case b == '=':
			s.state = sExtValue
		case b == ';':
			s.state = sExt
		case ws:
			s.state = sExtNameWS
		case b == '\r' && s.state == sExtName:
			s.state = sSizeLF
		case !tchar[b] || s.state == sExtNameWS:
			return refuse("bad chunk extension name")
		}
	case sExtValue:
		switch {
		case b == '"':
			s.state = sExtQuoted
		case tchar[b]:
			s.state = sExtToken
		case !ws:
			return refuse("bad chunk extension value")
		}
	case sExtToken, sExtEnd:
		switch {
		case b == ';':
			s.state = sExt
		case b == '\r':
			s.state = sSizeLF
		case ws:
			s.state = sExtEndWS
		case !tchar[b] || s.state == sExtEnd:
			return refuse("bad chunk extension value")
		}
	case sExtQuoted, sExtEscape:
		// qdtext and quoted-pair (RFC 9110 section 5.6.4): no control
		// character but HTAB.
		switch {
		case b < ' ' && b != '\t' || b == 0x7f:
			return refuse("control character in a chunk extension")
		case s.state == sExtEscape:
			s.state = sExtQuoted
		case b == '"':
			s.state = sExtEnd
		case b == '\\':
			s.state = sExtEscape
		}
	case sSizeLF:
		if b != '\n' {
			return refuse("CR without LF in a chunk line")
		}
		if s.n == 0 {
			s.state = sTrailer
		} else {
			s.state = sData
		}
	case sDataCR:
		if b != '\r' {
			return refuse("chunk data longer than its size")
		}
		s.state = sDataLF
	case sDataLF:
		if b != '\n' {
			return refuse("CR without LF after chunk data")
		}
		s.state, s.n, s.digits = sSize, 0, 0
	case sTrailer:
		switch {
		case b == '\r':
			s.state = sEndLF
		case tchar[b]:
			s.state = sTrailerName
		default:
			return refuse("bad trailer field")
		}
	case sTrailerName:
		switch {
		case b == ':':
			s.state, s.cr = sTrailerValue, false
		case !tchar[b]:
			return refuse("trailer field name is not a token")
		}
	case sEndLF:
		if b != '\n' {
			return refuse("CR without LF ending the trailer section")
		}
		s.state = sStart
	}
	return nil
}

// tchar is RFC 9110's token character set (section 5.6.2).
var tchar = func() (t [256]bool) {
	for _, c := range []byte("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") {
		t[c] = true
	}
	return t
}()

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// equalFold reports whether b equals the lower-case ASCII s, ignoring case.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(s) {
		if lower(b[i]) != s[i] {
			return false
		}
	}
	return true
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
