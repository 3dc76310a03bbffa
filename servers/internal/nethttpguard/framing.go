// Package nethttpguard is the framing guard of the servers that run on
// net/http's server (nethttp and gin): a listener whose connections pass
// on only well-framed requests (RFC 9112), and a writer that rate-limits
// net/http's error log. The servers use it unless started with -bare.
package nethttpguard

import (
	"bytes"
	"math"
	"net"
	"strings"
)

// The framing guard. net/http is lenient where RFC 9112 asks a server to
// refuse, and where it matters most for request smuggling (section 11.2):
// it answers a request with both Transfer-Encoding and Content-Length
// (deleting the latter before the handler runs), ignores Transfer-Encoding
// in HTTP/1.0, accepts malformed chunk extensions and whitespace after a
// chunk size, and refuses an empty line before a request line, which
// section 2.2 asks it to ignore. A handler cannot see any of that, so the
// guard reads what arrives: each connection's bytes pass through a scanner
// that follows the requests' framing. It drops empty lines before a
// request line, and ends the stream at the first framing error with an
// error that net/http answers with 400 and a close (conn.serve answers
// every read error that is not a network one so). On a plain GET it costs
// a few comparisons per header line and no allocation.

// A framingError is a request whose framing the guard refuses.
type framingError string

func (e framingError) Error() string { return "framing: " + string(e) }

// Listener hands out connections whose requests are checked: wrap the
// listener net/http serves with it.
type Listener struct{ net.Listener }

func (l Listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err // as is: net/http retries a temporary error
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
	for {
		if c.err != nil {
			return 0, c.err
		}
		n, err := c.Conn.Read(p)
		m, ferr := c.s.scan(p[:n])
		if ferr != nil {
			c.err = ferr
			if m == 0 {
				return 0, ferr
			}
			return m, nil
		}
		// m == 0 < n: nothing but empty lines before a request; read on.
		if m > 0 || n == 0 || err != nil {
			return m, err
		}
	}
}

// CloseWrite lets net/http half-close, as it does after a 431, when the
// connection can.
func (c *strictConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// The scanner's states.
const (
	sStart        = iota // before a request line: empty lines are dropped
	sStartCR             // after a CR before a request line
	sRequestLine         // in the request line
	sLineStart           // at the start of a field line, or of the empty line
	sName                // matching the name of a framing field
	sSkip                // in a field line of no interest
	sValue               // in the value of Content-Length or Transfer-Encoding
	sHeadCR              // after a CR at the start of a line
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
	sExtEnd              // after a value
	sExtEndWS            // after whitespace that follows a value
	sChunkLF             // after the CR that ends a chunk line
	sData                // in chunk data
	sDataCR              // after chunk data: CR must follow
	sDataLF              // after chunk data and CR: LF must follow
	sTrailer             // at the start of a trailer line, or of the empty line
	sTrailerName         // in a trailer field name
	sTrailerValue        // in a trailer field value
	sTrailerLF           // after the CR that ends a trailer line
	sEndLF               // after the CR of the empty line that ends the trailers
)

// A scanner follows the framing of the requests on one connection
// (RFC 9112 sections 2 to 7), byte by byte where framing is decided and a
// line at a time where it is not.
type scanner struct {
	state uint8
	name  string // the framing field sName is matching
	match int    // bytes of name matched
	n     int64  // bytes left of a body or chunk; the chunk size being read

	// The request head being read.
	http10    bool
	hasCL     bool
	hasTE     bool
	chunked   bool // Transfer-Encoding's last coding so far is chunked
	framing   bool // the last field line was Content-Length or Transfer-Encoding
	cl        int64
	value     [64]byte // the value of the framing field line being read
	nvalue    int
	tail      [10]byte // the end of a request line split between reads
	ntail     int
	chunkSize bool // the chunk size has a digit
}

const (
	nameCL = "content-length:"
	nameTE = "transfer-encoding:"
)

// scan follows p, drops empty lines before a request line (RFC 9112
// section 2.2) by moving the bytes kept to the front of p, and returns how
// many it kept, up to the first framing error, which it returns too.
func (s *scanner) scan(p []byte) (int, error) {
	w := 0 // bytes kept
	// keep keeps p[i:j].
	keep := func(i, j int) {
		if w != i {
			copy(p[w:], p[i:j])
		}
		w += j - i
	}
	for i := 0; i < len(p); {
		b := p[i]
		switch s.state {
		case sStart:
			switch b {
			case '\r':
				s.state = sStartCR
			case '\n':
			default:
				s.state = sRequestLine
				s.ntail = 0
				continue
			}
			i++ // dropped
			continue
		case sStartCR:
			if b != '\n' {
				return w, framingError("CR without LF before the request line")
			}
			s.state = sStart
			i++ // dropped
			continue
		case sRequestLine:
			j := bytes.IndexByte(p[i:], '\n')
			if j < 0 {
				s.keepTail(p[i:])
				keep(i, len(p))
				i = len(p)
				continue
			}
			s.http10 = s.isHTTP10(p[i : i+j])
			keep(i, i+j+1)
			i += j + 1
			s.state = sLineStart
			continue
		case sLineStart:
			framing := s.framing
			s.framing = false
			switch {
			case b == '\r':
				s.state = sHeadCR
			case b == '\n':
				if err := s.endHead(); err != nil {
					return w, err
				}
			case b == ' ' || b == '\t':
				// obs-fold (RFC 9112 section 5.2): refused where it would
				// continue a framing field, passed on (net/http unfolds
				// it) elsewhere.
				if framing {
					return w, framingError("obs-fold in a framing field")
				}
				s.state = sSkip
			case lower(b) == 'c':
				s.name, s.match, s.state = nameCL, 1, sName
			case lower(b) == 't':
				s.name, s.match, s.state = nameTE, 1, sName
			default:
				s.state = sSkip
			}
		case sName:
			if lower(b) != s.name[s.match] {
				s.state = sSkip
				continue
			}
			if s.match++; s.match == len(s.name) {
				s.state, s.nvalue = sValue, 0
			}
		case sSkip:
			j := bytes.IndexByte(p[i:], '\n')
			if j < 0 {
				keep(i, len(p))
				i = len(p)
				continue
			}
			keep(i, i+j+1)
			i += j + 1
			s.state = sLineStart
			continue
		case sValue:
			j := bytes.IndexByte(p[i:], '\n')
			end := i + j
			if j < 0 {
				end = len(p)
			}
			if s.nvalue+end-i > len(s.value) {
				return w, framingError("framing field value too long")
			}
			s.nvalue += copy(s.value[s.nvalue:], p[i:end])
			if j < 0 {
				keep(i, end)
				i = end
				continue
			}
			keep(i, end)
			i = end
			if err := s.field(); err != nil {
				return w, err
			}
			keep(i, i+1)
			i++
			s.framing, s.state = true, sLineStart
			continue
		case sHeadCR:
			if b != '\n' {
				return w, framingError("CR without LF in the header section")
			}
			if err := s.endHead(); err != nil {
				return w, err
			}
		case sBody, sData:
			k := int(min(s.n, int64(len(p)-i)))
			keep(i, i+k)
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
				return w, err
			}
		}
		// One byte handled and kept.
		keep(i, i+1)
		i++
	}
	return w, nil
}

// keepTail keeps the last bytes of a request line split between reads.
func (s *scanner) keepTail(b []byte) {
	if len(b) >= len(s.tail) {
		s.ntail = copy(s.tail[:], b[len(b)-len(s.tail):])
		return
	}
	if over := s.ntail + len(b) - len(s.tail); over > 0 {
		copy(s.tail[:], s.tail[over:s.ntail])
		s.ntail -= over
	}
	s.ntail += copy(s.tail[s.ntail:], b)
}

// isHTTP10 reports whether the request line that ends with line (before
// its LF) is an HTTP/1.0 one.
func (s *scanner) isHTTP10(line []byte) bool {
	if s.ntail > 0 && len(line) < len(s.tail) {
		s.keepTail(line)
		line = s.tail[:s.ntail]
	}
	line = bytes.TrimSuffix(line, []byte("\r"))
	return bytes.HasSuffix(line, []byte(" HTTP/1.0"))
}

// field records a Content-Length or Transfer-Encoding field line.
func (s *scanner) field() error {
	v := trimOWS(bytes.TrimSuffix(s.value[:s.nvalue], []byte("\r")))
	if s.name == nameCL {
		// Content-Length = 1*DIGIT (RFC 9110 section 8.6); a second field
		// line must agree (net/http refuses a different one itself).
		if len(v) == 0 || len(v) > 18 {
			return framingError("bad Content-Length")
		}
		var n int64
		for _, c := range v {
			if c < '0' || c > '9' {
				return framingError("bad Content-Length")
			}
			n = n*10 + int64(c-'0')
		}
		if s.hasCL && n != s.cl {
			return framingError("Content-Length values differ")
		}
		s.hasCL, s.cl = true, n
		return nil
	}
	// Transfer-Encoding = #transfer-coding. Chunked must be the last
	// coding, and applied once (RFC 9112 sections 6.1 and 7); the other
	// field lines continue the list. Empty elements do not count (RFC
	// 9110 section 5.6.1).
	s.hasTE = true
	for len(v) > 0 {
		e := v
		if k := bytes.IndexByte(v, ','); k >= 0 {
			e, v = v[:k], v[k+1:]
		} else {
			v = nil
		}
		if e = trimOWS(e); len(e) == 0 {
			continue
		}
		if s.chunked {
			return framingError("a transfer coding after chunked")
		}
		s.chunked = bytes.EqualFold(e, []byte("chunked"))
	}
	return nil
}

// endHead decides how the body of the request whose head just ended is
// framed (RFC 9112 section 6.3), and refuses what is ambiguous.
func (s *scanner) endHead() error {
	hasCL, hasTE, chunked, http10, n := s.hasCL, s.hasTE, s.chunked, s.http10, s.cl
	s.hasCL, s.hasTE, s.chunked, s.http10, s.cl = false, false, false, false, 0
	switch {
	case hasTE && hasCL:
		// Section 6.1: a server MAY process the chunked coding alone, but
		// the message might be an attempt to smuggle a request: refused.
		return framingError("both Transfer-Encoding and Content-Length")
	case hasTE && http10:
		// Section 6.1: Transfer-Encoding in HTTP/1.0 is faulty framing.
		return framingError("Transfer-Encoding in HTTP/1.0")
	case hasTE && !chunked:
		// Section 6.3: without chunked last, the length is unknown: 400.
		return framingError("chunked is not the last transfer coding")
	case hasTE:
		s.state, s.n, s.chunkSize = sSize, 0, false
	case n > 0:
		s.state, s.n = sBody, n
	default:
		s.state = sStart
	}
	return nil
}

// chunk follows one byte of chunked coding outside chunk data (RFC 9112
// section 7.1):
//
//	chunk      = chunk-size [ chunk-ext ] CRLF chunk-data CRLF
//	chunk-size = 1*HEXDIG
//	chunk-ext  = *( BWS ";" BWS ext-name [ BWS "=" BWS ext-val ] )
//	ext-val    = token / quoted-string
//	trailer-section = *( field-line CRLF ), then CRLF
//
// No bare CR or LF ends a chunk line (erratum 7633), and whitespace
// follows a chunk size only before an extension.
func (s *scanner) chunk(b byte) error {
	ws := b == ' ' || b == '\t'
	switch s.state {
	case sSize:
		if d := unhex(b); d >= 0 {
			if s.n > math.MaxInt64>>4 {
				return framingError("chunk size too large")
			}
			s.n, s.chunkSize = s.n<<4|int64(d), true
			return nil
		}
		if !s.chunkSize {
			return framingError("chunk size is not a hex number")
		}
		switch {
		case b == ';':
			s.state = sExt
		case ws:
			s.state = sSizeWS
		case b == '\r':
			s.state = sChunkLF
		default:
			return framingError("bad character after the chunk size")
		}
	case sSizeWS, sExtEndWS:
		switch {
		case b == ';':
			s.state = sExt
		case !ws:
			return framingError("whitespace after the chunk size and no extension")
		}
	case sExt:
		switch {
		case isTchar(b):
			s.state = sExtName
		case !ws:
			return framingError("chunk extension without a name")
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
			s.state = sChunkLF
		case !isTchar(b) || s.state == sExtNameWS:
			return framingError("bad chunk extension name")
		}
	case sExtValue:
		switch {
		case b == '"':
			s.state = sExtQuoted
		case isTchar(b):
			s.state = sExtToken
		case !ws:
			return framingError("bad chunk extension value")
		}
	case sExtToken, sExtEnd:
		switch {
		case b == ';':
			s.state = sExt
		case b == '\r':
			s.state = sChunkLF
		case ws:
			s.state = sExtEndWS
		case !isTchar(b) || s.state == sExtEnd:
			return framingError("bad chunk extension value")
		}
	case sExtQuoted:
		switch {
		case b == '"':
			s.state = sExtEnd
		case b == '\\':
			s.state = sExtEscape
		case b < ' ' && b != '\t' || b == 0x7f:
			return framingError("control character in a chunk extension")
		}
	case sExtEscape:
		if b < ' ' && b != '\t' || b == 0x7f {
			return framingError("control character in a chunk extension")
		}
		s.state = sExtQuoted
	case sChunkLF:
		if b != '\n' {
			return framingError("CR without LF in a chunk line")
		}
		if s.n == 0 {
			s.state = sTrailer
		} else {
			s.state = sData
		}
	case sDataCR:
		if b != '\r' {
			return framingError("chunk data longer than its size")
		}
		s.state = sDataLF
	case sDataLF:
		if b != '\n' {
			return framingError("CR without LF after chunk data")
		}
		s.state, s.n, s.chunkSize = sSize, 0, false
	case sTrailer:
		switch {
		case b == '\r':
			s.state = sEndLF
		case isTchar(b):
			s.state = sTrailerName
		default:
			return framingError("bad trailer field")
		}
	case sTrailerName:
		switch {
		case b == ':':
			s.state = sTrailerValue
		case !isTchar(b):
			return framingError("bad trailer field name")
		}
	case sTrailerValue:
		switch {
		case b == '\r':
			s.state = sTrailerLF
		case b < ' ' && b != '\t' || b == 0x7f:
			return framingError("control character in a trailer field")
		}
	case sTrailerLF:
		if b != '\n' {
			return framingError("CR without LF in a trailer field")
		}
		s.state = sTrailer
	case sEndLF:
		if b != '\n' {
			return framingError("CR without LF after the trailers")
		}
		s.state = sStart
	}
	return nil
}

func lower(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

func unhex(b byte) int {
	switch {
	case '0' <= b && b <= '9':
		return int(b - '0')
	case 'a' <= b && b <= 'f':
		return int(b - 'a' + 10)
	case 'A' <= b && b <= 'F':
		return int(b - 'A' + 10)
	}
	return -1
}

// isTchar reports whether b may be part of a token (RFC 9110 section 5.6.2).
func isTchar(b byte) bool {
	switch {
	case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9':
		return true
	}
	return b < 0x80 && strings.IndexByte("!#$%&'*+-.^_`|~", b) >= 0
}

func trimOWS(b []byte) []byte {
	return bytes.Trim(b, " \t")
}
