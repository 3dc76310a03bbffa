// Package framing is RFC 9112's message body framing, written once for the
// framing guards of the servers (nethttpguard for net/http's server,
// fasthttpguard for fasthttp's) and for gnet's parser: a scanner that
// follows a body framed by Content-Length or by the chunked coding (chunk
// sizes, extensions, data and trailers), Content-Length's grammar, and the
// byte tests of tokens.
//
// What differs between stacks is not here: how a header section is read,
// which Transfer-Encoding lists are taken, the status of a refusal other
// than 400. A guard reads its stack's header section and hands each body to
// a Body, set by the stack's Rules.
package framing

import (
	"bytes"
	"math"
)

// An Error is a message whose framing is refused, and the status to answer
// it with.
type Error struct {
	Status int
	Reason string
}

func (e *Error) Error() string { return "framing: " + e.Reason }

// Refuse returns the error for a message to answer with 400 Bad Request.
func Refuse(reason string) error { return &Error{400, reason} }

// Rules are what a stack asks of a chunked body beyond RFC 9112's grammar.
type Rules struct {
	// MaxDigits caps the hex digits of a chunk size, leading zeros
	// included; 0 takes any size that fits in an int64.
	MaxDigits int

	// LineTrailers reads a trailer field value as any bytes up to CRLF.
	// Otherwise a value may hold no control character but HTAB (RFC 9110
	// section 5.5), so no CR but the one that ends it.
	LineTrailers bool
}

// The states of a Body; the zero state is a body done.
const (
	sDone         = iota
	sLength       // in a body framed by Content-Length
	sSize         // in a chunk size
	sSizeWS       // after whitespace that follows a chunk size
	sExt          // after ";": an extension name must follow
	sExtName      // in an extension name
	sExtNameWS    // after whitespace that follows an extension name
	sExtValue     // after "=": a token or quoted string must follow
	sExtToken     // in a token value
	sExtQuoted    // in a quoted-string value
	sExtEscape    // after a backslash in a quoted string
	sExtEnd       // after a quoted string
	sExtEndWS     // after whitespace that follows a value
	sSizeLF       // after the CR that ends a chunk line
	sData         // in chunk data
	sDataCR       // after chunk data: CR must follow
	sDataLF       // after chunk data and CR: LF must follow
	sTrailer      // at the start of a trailer line, or of the empty line
	sTrailerName  // in a trailer field name
	sTrailerValue // in a trailer field value
	sTrailerLF    // after the CR that ends a trailer line
	sEndLF        // after the CR of the empty line ending the trailer section
)

// A Body follows the framing of one message body (RFC 9112 sections 6 and
// 7): its caller hands it the bytes that follow the header section until
// it is done. The zero Body is done: a message without a body.
type Body struct {
	rules  Rules
	state  uint8
	cr     bool  // LineTrailers: the last byte of a trailer value read was CR
	n      int64 // bytes left of the body or chunk; the chunk size being read
	digits int   // hex digits of the chunk size
}

// Length returns the Body of a message with Content-Length n, n > 0.
func Length(n int64) Body { return Body{state: sLength, n: n} }

// Chunked returns the Body of a message in the chunked coding, read by r.
func Chunked(r Rules) Body { return Body{rules: r, state: sSize} }

// Frame returns the Body of a message whose header section has ended
// (RFC 9112 section 6.3): in the chunked coding if it has a
// Transfer-Encoding, which the caller has checked ends in chunked, framed
// by its Content-Length if it has one, or none. A message with both is
// refused.
func Frame(te bool, cl ContentLength, r Rules) (Body, error) {
	switch {
	case te && cl.Set:
		// Section 6.1: a server MAY process the chunked coding alone and
		// close after answering, but the message might be an attempt to
		// smuggle a request: refused.
		return Body{}, Refuse("both Transfer-Encoding and Content-Length")
	case te:
		return Chunked(r), nil
	case cl.N > 0:
		return Length(cl.N), nil
	}
	return Body{}, nil
}

// Done reports whether the body has ended.
func (b *Body) Done() bool { return b.state == sDone }

// Scan reads p, the next bytes of the stream, and returns how many of them
// belong to the body: all of p, or those up to the body's end, when done,
// or those before the first framing error, which it returns too.
func (b *Body) Scan(p []byte) (n int, done bool, err error) {
	for i := 0; i < len(p); {
		switch b.state {
		case sDone:
			return i, true, nil
		case sLength, sData:
			k := int(min(b.n, int64(len(p)-i)))
			i += k
			if b.n -= int64(k); b.n == 0 {
				if b.state == sLength {
					b.state = sDone
					return i, true, nil
				}
				b.state = sDataCR
			}
			continue
		case sTrailerValue:
			if b.rules.LineTrailers {
				j := bytes.IndexByte(p[i:], '\n')
				if j < 0 {
					b.cr = p[len(p)-1] == '\r'
					i = len(p)
					continue
				}
				k := i + j
				if !(j > 0 && p[k-1] == '\r' || j == 0 && b.cr) {
					return k, false, Refuse("line ended by LF alone")
				}
				i = k + 1
				b.state = sTrailer
				continue
			}
		}
		if err := b.chunk(p[i]); err != nil {
			return i, false, err
		}
		if i++; b.state == sDone {
			return i, true, nil
		}
	}
	return len(p), b.state == sDone, nil
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
func (b *Body) chunk(c byte) error {
	ws := c == ' ' || c == '\t'
	switch b.state {
	case sSize:
		if d := Unhex(c); d >= 0 {
			b.digits++
			if m := b.rules.MaxDigits; m > 0 && b.digits > m || b.n > math.MaxInt64>>4 {
				return Refuse("chunk size too large")
			}
			b.n = b.n<<4 | int64(d)
			return nil
		}
		switch {
		case b.digits == 0:
			return Refuse("chunk size is not a hex number")
		case c == ';':
			b.state = sExt
		case ws:
			b.state = sSizeWS
		case c == '\r':
			b.state = sSizeLF
		default:
			return Refuse("bad character after the chunk size")
		}
	case sSizeWS, sExtEndWS:
		switch {
		case c == ';':
			b.state = sExt
		case !ws:
			return Refuse("whitespace after a chunk size or extension, and no extension")
		}
	case sExt:
		switch {
		case IsToken(c):
			b.state = sExtName
		case !ws:
			return Refuse("chunk extension without a name")
		}
	case sExtName, sExtNameWS:
		switch {
		case c == '=':
			b.state = sExtValue
		case c == ';':
			b.state = sExt
		case ws:
			b.state = sExtNameWS
		case c == '\r' && b.state == sExtName:
			b.state = sSizeLF
		case !IsToken(c) || b.state == sExtNameWS:
			return Refuse("bad chunk extension name")
		}
	case sExtValue:
		switch {
		case c == '"':
			b.state = sExtQuoted
		case IsToken(c):
			b.state = sExtToken
		case !ws:
			return Refuse("bad chunk extension value")
		}
	case sExtToken, sExtEnd:
		switch {
		case c == ';':
			b.state = sExt
		case c == '\r':
			b.state = sSizeLF
		case ws:
			b.state = sExtEndWS
		case !IsToken(c) || b.state == sExtEnd:
			return Refuse("bad chunk extension value")
		}
	case sExtQuoted, sExtEscape:
		// qdtext and quoted-pair (RFC 9110 section 5.6.4): no control
		// character but HTAB.
		switch {
		case isCtl(c):
			return Refuse("control character in a chunk extension")
		case b.state == sExtEscape:
			b.state = sExtQuoted
		case c == '"':
			b.state = sExtEnd
		case c == '\\':
			b.state = sExtEscape
		}
	case sSizeLF:
		if c != '\n' {
			return Refuse("CR without LF in a chunk line")
		}
		if b.n == 0 {
			b.state = sTrailer
		} else {
			b.state = sData
		}
	case sDataCR:
		if c != '\r' {
			return Refuse("chunk data longer than its size")
		}
		b.state = sDataLF
	case sDataLF:
		if c != '\n' {
			return Refuse("CR without LF after chunk data")
		}
		b.state, b.n, b.digits = sSize, 0, 0
	case sTrailer:
		switch {
		case c == '\r':
			b.state = sEndLF
		case IsToken(c):
			b.state = sTrailerName
		default:
			return Refuse("bad trailer field")
		}
	case sTrailerName:
		switch {
		case c == ':':
			b.state, b.cr = sTrailerValue, false
		case !IsToken(c):
			return Refuse("trailer field name is not a token")
		}
	case sTrailerValue:
		switch {
		case c == '\r':
			b.state = sTrailerLF
		case isCtl(c):
			return Refuse("control character in a trailer field")
		}
	case sTrailerLF:
		if c != '\n' {
			return Refuse("CR without LF in a trailer field")
		}
		b.state = sTrailer
	case sEndLF:
		if c != '\n' {
			return Refuse("CR without LF ending the trailer section")
		}
		b.state = sDone
	}
	return nil
}

// ParseLength parses a Content-Length value, 1*DIGIT (RFC 9110 section
// 8.6), of at most 18 digits so that it fits in an int64.
func ParseLength(v []byte) (int64, bool) {
	if len(v) == 0 || len(v) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// A ContentLength gathers the Content-Length field lines of one header
// section.
type ContentLength struct {
	N   int64
	Set bool // a Content-Length field line was read
}

// Add reads the value of one more Content-Length field line, which must
// agree with those before it.
func (l *ContentLength) Add(v []byte) error {
	n, ok := ParseLength(v)
	if !ok {
		return Refuse("bad Content-Length")
	}
	if l.Set && n != l.N {
		return Refuse("Content-Length values differ")
	}
	l.N, l.Set = n, true
	return nil
}

// Codings reads a Transfer-Encoding value, a list of transfer codings
// (RFC 9112 section 6.1): how many of them are chunked, whether the last
// one is, and whether an element of the list is empty.
func Codings(v []byte) (chunked int, last, empty bool) {
	for c := range bytes.SplitSeq(v, []byte(",")) {
		c = bytes.Trim(c, " \t")
		empty = empty || len(c) == 0
		if last = EqualFold(c, "chunked"); last {
			chunked++
		}
	}
	return chunked, last, empty
}
