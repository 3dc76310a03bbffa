// Package nethttpguard is the framing guard of the servers that run on
// net/http's server (nethttp, gin, echo and chi): a listener whose
// connections pass on only well-framed requests (RFC 9112), in plain HTTP
// (Listener) or over TLS (TLSListener), and a handler for what only a
// handler sees, which the servers use unless started with -bare; and a
// writer that rate-limits net/http's error log.
package nethttpguard

import (
	"bytes"
	"net"

	"hellobench/servers/internal/framing"
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
//
// This package reads the header section; package framing reads the body,
// by net/http's rules (rules, below), and its errors are *framing.Error.

// Listener hands out connections whose requests are checked: wrap the
// listener net/http serves with it.
type Listener struct{ net.Listener }

func (l Listener) Accept() (net.Conn, error) {
	return framing.Accept(l.Listener, newScanner)
}

func newScanner() framing.Scanner { return new(scanner) }

// h2Preface is the HTTP/2 connection preface (RFC 9113 section 3.4). A
// connection that starts with it speaks HTTP/2 with prior knowledge (h2c),
// which net/http serves when its Protocols allow unencrypted HTTP/2: what
// follows is frames, not HTTP/1.1, and passes unread. Where net/http does
// not serve h2c, it reads the preface as a request, "PRI * HTTP/2.0",
// which the guard's Handler answers 505 and a close, so nothing after it
// is read as HTTP/1.1 either.
const h2Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

// The scanner's states.
const (
	sStart      = iota // before a request line: empty lines are dropped
	sStartLF           // after a CR before a request line: LF must follow
	sLine              // in the request line
	sFieldStart        // at the start of a field line, or of the empty line
	sName              // matching the name of a framing field
	sSkip              // in a field line of no interest
	sValue             // in the value of Content-Length or Transfer-Encoding
	sHeadLF            // after a CR at the start of a line: LF must follow
	sBody              // in a body, which s.body follows
)

// Framing fields being matched or read.
const (
	fCL = iota // Content-Length
	fTE        // Transfer-Encoding
)

// fieldNames are the framing fields' names as sName matches them, colon
// included.
var fieldNames = [...]string{fCL: "content-length:", fTE: "transfer-encoding:"}

// rules are net/http's for a chunked body: a chunk size up to what an
// int64 holds, with any number of leading zeros, and no control character
// in a trailer value.
var rules = framing.Rules{}

// A scanner follows the framing of the requests on one connection
// (RFC 9112 sections 2 to 7), byte by byte where framing is decided and a
// line at a time where it is not.
type scanner struct {
	state uint8
	field uint8 // the framing field sName is matching or sValue reading
	nname int   // bytes of its name matched
	body  framing.Body

	// The request head being read.
	http10  bool
	cl      framing.ContentLength
	te      bool
	chunked bool     // Transfer-Encoding's last coding so far is chunked
	framing bool     // the last field line was Content-Length or Transfer-Encoding
	value   [64]byte // the value of the framing field line being read
	nvalue  int
	tail    [10]byte // the end of a request line split between reads
	ntail   int

	// npre counts the bytes of h2Preface the connection has started
	// with so far; -1 once it started otherwise. h2 is set once it has
	// sent all of it.
	npre int
	h2   bool
}

// Scan follows p, drops empty lines before a request line (RFC 9112
// section 2.2) by moving the bytes kept to the front of p, and returns how
// many it kept, up to the first framing error, which it returns too.
func (s *scanner) Scan(p []byte) (int, error) {
	if s.h2 || s.prefaced(p) {
		return len(p), nil
	}
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
				s.state = sStartLF
			case '\n':
			default:
				s.state = sLine
				s.ntail = 0
				continue
			}
			i++ // dropped
			continue
		case sStartLF:
			if b != '\n' {
				return w, framing.Refuse("CR without LF before the request line")
			}
			s.state = sStart
			i++ // dropped
			continue
		case sLine:
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
			s.state = sFieldStart
			continue
		case sFieldStart:
			framingLine := s.framing
			s.framing = false
			switch {
			case b == '\r':
				s.state = sHeadLF
			case b == '\n':
				if err := s.headDone(); err != nil {
					return w, err
				}
			case b == ' ' || b == '\t':
				// obs-fold (RFC 9112 section 5.2): refused where it would
				// continue a framing field, passed on (net/http unfolds
				// it) elsewhere.
				if framingLine {
					return w, framing.Refuse("obs-fold in a framing field")
				}
				s.state = sSkip
			case framing.Lower(b) == 'c':
				s.field, s.nname, s.state = fCL, 1, sName
			case framing.Lower(b) == 't':
				s.field, s.nname, s.state = fTE, 1, sName
			default:
				s.state = sSkip
			}
		case sName:
			name := fieldNames[s.field]
			if framing.Lower(b) != name[s.nname] {
				s.state = sSkip
				continue
			}
			if s.nname++; s.nname == len(name) {
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
			s.state = sFieldStart
			continue
		case sValue:
			j := bytes.IndexByte(p[i:], '\n')
			end := i + j
			if j < 0 {
				end = len(p)
			}
			if s.nvalue+end-i > len(s.value) {
				return w, framing.Refuse("framing field value too long")
			}
			s.nvalue += copy(s.value[s.nvalue:], p[i:end])
			keep(i, end)
			i = end
			if j < 0 {
				continue
			}
			if err := s.fieldDone(); err != nil {
				return w, err
			}
			keep(i, i+1)
			i++
			s.framing, s.state = true, sFieldStart
			continue
		case sHeadLF:
			if b != '\n' {
				return w, framing.Refuse("CR without LF ending the header section")
			}
			// The LF ends the head at sFieldStart, as a bare one does.
			s.state = sFieldStart
			continue
		case sBody:
			n, done, err := s.body.Scan(p[i:])
			keep(i, i+n)
			if err != nil {
				return w, err
			}
			if i += n; done {
				s.state = sStart
			}
			continue
		}
		// One byte handled and kept.
		keep(i, i+1)
		i++
	}
	return w, nil
}

// prefaced follows the connection's first bytes, p the latest, and
// reports whether they are the HTTP/2 preface, complete. Until they part
// from it, they are also scanned as HTTP/1.1, which the preface's lines
// pass.
func (s *scanner) prefaced(p []byte) bool {
	if s.npre < 0 {
		return false
	}
	for _, b := range p {
		if b != h2Preface[s.npre] {
			s.npre = -1
			return false
		}
		if s.npre++; s.npre == len(h2Preface) {
			s.h2 = true
			return true
		}
	}
	return false
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

// fieldDone records a Content-Length or Transfer-Encoding field line.
func (s *scanner) fieldDone() error {
	v := bytes.Trim(bytes.TrimSuffix(s.value[:s.nvalue], []byte("\r")), " \t")
	if s.field == fCL {
		// A second field line must agree (net/http refuses a different
		// one itself).
		return s.cl.Add(v)
	}
	// Transfer-Encoding = #transfer-coding. Chunked must be the last
	// coding, and applied once (RFC 9112 sections 6.1 and 7); the other
	// field lines continue the list. Empty elements do not count (RFC
	// 9110 section 5.6.1).
	s.te = true
	for len(v) > 0 {
		e := v
		if k := bytes.IndexByte(v, ','); k >= 0 {
			e, v = v[:k], v[k+1:]
		} else {
			v = nil
		}
		if e = bytes.Trim(e, " \t"); len(e) == 0 {
			continue
		}
		if s.chunked {
			return framing.Refuse("a transfer coding after chunked")
		}
		// bytes.EqualFold, unlike framing.EqualFold, folds Unicode: it
		// takes "chun\u212Aed" (Kelvin sign) for chunked and lets
		// net/http answer it 501, as the guard always has.
		s.chunked = bytes.EqualFold(e, []byte("chunked"))
	}
	return nil
}

// headDone decides how the body of the request whose head just ended is
// framed (RFC 9112 section 6.3), and refuses what is ambiguous.
func (s *scanner) headDone() error {
	cl, te, chunked, http10 := s.cl, s.te, s.chunked, s.http10
	s.cl, s.te, s.chunked, s.http10 = framing.ContentLength{}, false, false, false
	if !te && !cl.Set {
		s.state = sStart // no body, as most requests: nothing to frame
		return nil
	}
	switch {
	case te && http10:
		// Section 6.1: Transfer-Encoding in HTTP/1.0 is faulty framing.
		return framing.Refuse("Transfer-Encoding in HTTP/1.0")
	case te && !chunked:
		// Section 6.3: without chunked last, the length is unknown: 400.
		return framing.Refuse("chunked is not the last transfer coding")
	}
	body, err := framing.Frame(te, cl, rules)
	if s.body, s.state = body, sStart; !body.Done() {
		s.state = sBody
	}
	return err
}
