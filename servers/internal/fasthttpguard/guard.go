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

	"hellobench/servers/internal/framing"
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
//
// This package reads the header section; package framing reads the body,
// by fasthttp's rules (rules, below).

// An Error is what the guard refuses, and the status to answer: 400, or
// 501 for a transfer coding this server does not implement.
type Error = framing.Error

// Listener hands out connections whose requests are checked: wrap the
// listener fasthttp serves with it.
type Listener struct{ net.Listener }

func (l Listener) Accept() (net.Conn, error) {
	return framing.Accept(l.Listener, newScanner)
}

func newScanner() framing.Scanner { return new(scanner) }

// The scanner's states.
const (
	sStart      = iota // before a request line: empty lines (CRLF) pass
	sStartLF           // after a CR before a request line: LF must follow
	sLine              // in the request line, up to its LF
	sFieldStart        // at the start of a field line, or of the empty line
	sName              // in a field name
	sValue             // in a field value, up to its LF
	sHeadLF            // after the CR of the empty line ending the header
	sBody              // in a body, which s.body follows
)

// Framing fields being matched or read.
const (
	fNone = iota
	fCL   // Content-Length
	fTE   // Transfer-Encoding
)

var fieldNames = [...]string{fCL: "content-length", fTE: "transfer-encoding"}

// rules are fasthttp's for a chunked body: 15 hex digits at most in a chunk
// size, and a trailer line read up to its CRLF.
var rules = framing.Rules{MaxDigits: 15, LineTrailers: true}

// A scanner follows the framing of the requests on one connection.
type scanner struct {
	state uint8
	cr    bool  // the last byte of a line state was CR
	field uint8 // the framing field whose name or value is being read
	nname int   // bytes of the field name read
	body  framing.Body

	// The header section being read.
	cl     framing.ContentLength
	te     bool
	value  [32]byte // the framing field value being read
	nvalue int
}

// Scan follows p and returns how many of its bytes are well framed: all of
// them, or those before the first error, which it returns too.
func (s *scanner) Scan(p []byte) (int, error) {
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
				return i, framing.Refuse("CR without LF before the request line")
			}
			s.state = sStart
		case sLine, sValue:
			j := bytes.IndexByte(p[i:], '\n')
			if j < 0 {
				if s.field != fNone && !s.addValue(p[i:]) {
					return i + len(s.value) - s.nvalue, framing.Refuse("framing field value too long")
				}
				s.cr = p[len(p)-1] == '\r'
				i = len(p)
				continue
			}
			k := i + j
			if s.field != fNone && !s.addValue(p[i:k]) {
				return i + len(s.value) - s.nvalue, framing.Refuse("framing field value too long")
			}
			if !(j > 0 && p[k-1] == '\r' || j == 0 && s.cr) {
				return k, framing.Refuse("line ended by LF alone")
			}
			if s.field != fNone {
				if err := s.fieldDone(); err != nil {
					return k, err
				}
			}
			i = k + 1
			s.state = sFieldStart
			continue
		case sFieldStart:
			switch {
			case b == '\r':
				s.state = sHeadLF
			case b == ' ' || b == '\t':
				return i, framing.Refuse("obs-fold")
			case framing.IsToken(b):
				s.state, s.field, s.nname = sName, fNone, 0
				if l := framing.Lower(b); l == 'c' {
					s.field = fCL
				} else if l == 't' {
					s.field = fTE
				}
				continue
			default:
				return i, framing.Refuse("field name is not a token")
			}
		case sName:
			// Most names are read here in one go.
			for ; i < len(p) && framing.IsToken(p[i]); i++ {
				if f := s.field; f != fNone && (s.nname >= len(fieldNames[f]) || framing.Lower(p[i]) != fieldNames[f][s.nname]) {
					s.field = fNone
				}
				s.nname++
			}
			if i == len(p) {
				continue
			}
			if p[i] != ':' {
				return i, framing.Refuse("field name is not a token")
			}
			if s.field != fNone && s.nname != len(fieldNames[s.field]) {
				s.field = fNone
			}
			s.nvalue, s.cr = 0, false
			s.state = sValue
		case sHeadLF:
			if b != '\n' {
				return i, framing.Refuse("CR without LF ending the header section")
			}
			if err := s.headDone(); err != nil {
				return i, err
			}
		case sBody:
			n, done, err := s.body.Scan(p[i:])
			if i += n; err != nil {
				return i, err
			}
			if done {
				s.state = sStart
			}
			continue
		}
		i++
	}
	return len(p), nil
}

// addValue appends part of a framing field's value.
func (s *scanner) addValue(b []byte) bool {
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
	if f == fCL {
		return s.cl.Add(v)
	}
	// fasthttp takes chunked or identity alone, once; the guard, chunked
	// alone, once.
	switch {
	case s.te:
		return framing.Refuse("more than one Transfer-Encoding")
	case !framing.EqualFold(v, "chunked"):
		return codingError(v)
	}
	s.te = true
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
	if chunked, last, empty := framing.Codings(v); chunked == 1 && last && !empty {
		return &Error{Status: 501, Reason: "transfer coding not implemented"}
	}
	return framing.Refuse("chunked is not the final transfer coding, once")
}

// headDone picks the framing of the body whose header section just ended.
func (s *scanner) headDone() (err error) {
	cl, te := s.cl, s.te
	s.cl, s.te = framing.ContentLength{}, false
	if !te && !cl.Set {
		s.state = sStart // no body, as most requests: nothing to frame
		return nil
	}
	s.body, err = framing.Frame(te, cl, rules)
	s.state = sStart
	if !s.body.Done() {
		s.state = sBody
	}
	return err
}
