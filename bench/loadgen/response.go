//go:build linux

package loadgen

import (
	"bytes"
	"errors"
	"fmt"
)

// maxHeader bounds a response's header section; past it the response is
// malformed rather than buffered without end.
const maxHeader = 64 << 10

var errHeaderTooLong = errors.New("response header section over 64 KiB")

// parser reads HTTP/1.x responses incrementally: a response may arrive split
// at any byte, and one read may hold the end of one response and the start of
// the next (pipelining). It keeps no body bytes, only counts them.
type parser struct {
	head    bool // true for a HEAD request: responses carry no body
	state   int
	hdr     []byte // header bytes carried over from earlier reads
	started bool   // some byte of the current response has been read

	// The current response.
	status    int
	keepAlive bool  // the connection stays open after it
	untilEOF  bool  // body delimited by the connection's close
	remain    int64 // body or chunk bytes still to come
	body      int64 // body bytes read
	size      int64 // all bytes read, header included
	server    []byte
	wantSrv   bool // keep the Server header (first response only)

	// The last header section parsed and what it said: a load generator
	// gets the same header again and again (until Date changes), and the
	// same bytes parse the same, so a repeat is only compared.
	prev      []byte
	prevState int
	prevLen   int64
	prevKeep  bool
	prevCode  int
}

// maxPrev bounds the header section kept for the comparison.
const maxPrev = 1024

const (
	stHeader = iota
	stBody
	stChunkSize
	stChunkExt
	stChunkSizeLF
	stChunkData
	stChunkCR
	stChunkLF
	stTrailer   // at the start of a trailer line
	stTrailerLn // inside a trailer line
	stTrailerLF // after the CR of the empty line ending the trailers
	stDone
)

// reset prepares the parser for the next response.
func (p *parser) reset() {
	p.state = stHeader
	p.hdr = p.hdr[:0]
	p.started = false
	p.status = 0
	p.keepAlive = false
	p.untilEOF = false
	p.remain = 0
	p.body = 0
	p.size = 0
}

// feed parses b and returns how many bytes it used. done reports that a
// response ended at b[n-1]; the caller then resets the parser before feeding
// the rest of b.
func (p *parser) feed(b []byte) (n int, done bool, err error) {
	if len(b) > 0 {
		p.started = true
	}
	for n < len(b) {
		switch p.state {
		case stHeader:
			m, ok, err := p.header(b[n:])
			n += m
			p.size += int64(m)
			if err != nil {
				return n, false, err
			}
			if !ok {
				return n, false, nil
			}
			if p.state == stDone {
				return n, true, nil
			}
		case stBody:
			m := int64(len(b) - n)
			if !p.untilEOF && m >= p.remain {
				m = p.remain
			}
			p.remain -= m
			p.body += m
			p.size += m
			n += int(m)
			if !p.untilEOF && p.remain == 0 {
				p.state = stDone
				return n, true, nil
			}
		case stChunkData:
			m := int64(len(b) - n)
			if m > p.remain {
				m = p.remain
			}
			p.remain -= m
			p.body += m
			p.size += m
			n += int(m)
			if p.remain == 0 {
				p.state = stChunkCR
			}
		default:
			c := b[n]
			n++
			p.size++
			if err := p.chunkByte(c); err != nil {
				return n, false, err
			}
			if p.state == stDone {
				return n, true, nil
			}
		}
	}
	return n, false, nil
}

// eof reports whether the connection's close completes the current response:
// a body delimited by the close, read to its end.
func (p *parser) eof() bool {
	if p.state == stBody && p.untilEOF {
		p.state = stDone
		return true
	}
	return false
}

// header collects the header section and parses it once complete.
func (p *parser) header(b []byte) (n int, ok bool, err error) {
	if len(p.hdr) == 0 && len(p.prev) > 0 && len(b) >= len(p.prev) && bytes.Equal(b[:len(p.prev)], p.prev) {
		p.status, p.keepAlive, p.state = p.prevCode, p.prevKeep, p.prevState
		p.remain = p.prevLen
		return len(p.prev), true, nil
	}
	var block []byte
	if len(p.hdr) == 0 {
		i := bytes.Index(b, crlfcrlf)
		if i < 0 {
			if len(b) > maxHeader {
				return len(b), false, errHeaderTooLong
			}
			p.hdr = append(p.hdr, b...)
			return len(b), false, nil
		}
		n = i + 4
		block = b[:n]
	} else {
		old := len(p.hdr)
		from := max(old-3, 0)
		p.hdr = append(p.hdr, b...)
		i := bytes.Index(p.hdr[from:], crlfcrlf)
		if i < 0 {
			if len(p.hdr) > maxHeader {
				return len(b), false, errHeaderTooLong
			}
			return len(b), false, nil
		}
		end := from + i + 4
		n = end - old
		block = p.hdr[:end]
	}
	if err := p.parseHeader(block); err != nil {
		return n, false, err
	}
	p.prev = p.prev[:0]
	if p.status >= 200 && !p.untilEOF && !p.wantSrv && len(block) <= maxPrev {
		p.prev = append(p.prev, block...)
		p.prevCode, p.prevKeep, p.prevState, p.prevLen = p.status, p.keepAlive, p.state, p.remain
	}
	p.hdr = p.hdr[:0]
	return n, true, nil
}

var (
	crlf     = []byte("\r\n")
	crlfcrlf = []byte("\r\n\r\n")
)

// parseHeader reads the status line and the headers that frame the body.
func (p *parser) parseHeader(block []byte) error {
	line, rest, _ := bytes.Cut(block, crlf)
	// "HTTP/1.1 200 OK": version, space, three digits, then a space or the end.
	if len(line) < 12 || string(line[:7]) != "HTTP/1." || line[8] != ' ' ||
		(len(line) > 12 && line[12] != ' ') {
		return fmt.Errorf("malformed status line %q", trim(line))
	}
	var http11 bool
	switch line[7] {
	case '0':
	case '1':
		http11 = true
	default:
		return fmt.Errorf("unsupported version %q", line[:8])
	}
	status := 0
	for _, c := range line[9:12] {
		if c < '0' || c > '9' {
			return fmt.Errorf("malformed status line %q", trim(line))
		}
		status = status*10 + int(c-'0')
	}
	p.status = status

	length := int64(-1)
	chunked, closing, keep := false, false, false
	for len(rest) > 2 {
		line, rest, _ = bytes.Cut(rest, crlf)
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 {
			return fmt.Errorf("malformed header line %q", trim(line))
		}
		name, value := line[:colon], bytes.TrimSpace(line[colon+1:])
		switch {
		case equalFold(name, "content-length"):
			v, ok := parseLength(value)
			if !ok || (length >= 0 && v != length) {
				return fmt.Errorf("bad Content-Length %q", trim(value))
			}
			length = v
		case equalFold(name, "transfer-encoding"):
			// Chunked must be the final coding (RFC 9112, 6.1).
			i := bytes.LastIndexByte(value, ',')
			chunked = equalFold(bytes.TrimSpace(value[i+1:]), "chunked")
		case equalFold(name, "connection"):
			for v := range bytes.SplitSeq(value, []byte(",")) {
				v = bytes.TrimSpace(v)
				if equalFold(v, "close") {
					closing = true
				} else if equalFold(v, "keep-alive") {
					keep = true
				}
			}
		case p.wantSrv && equalFold(name, "server"):
			p.server = append(p.server[:0], value...)
		}
	}

	p.keepAlive = !closing && (http11 || keep)
	switch {
	case status < 200:
		// 1xx: an interim response; the final one follows.
		if status == 101 {
			return errors.New("unexpected 101 Switching Protocols")
		}
		p.state = stHeader
	case p.head || status == 204 || status == 304:
		p.state = stDone
	case chunked:
		p.state = stChunkSize
	case length >= 0:
		p.remain = length
		p.state = stBody
		if length == 0 {
			p.state = stDone
		}
	default:
		p.untilEOF = true
		p.keepAlive = false
		p.state = stBody
	}
	return nil
}

// chunkByte advances the chunked-body state machine by one byte outside chunk
// data.
func (p *parser) chunkByte(c byte) error {
	switch p.state {
	case stChunkSize:
		switch {
		case c >= '0' && c <= '9':
			p.remain = p.remain<<4 | int64(c-'0')
		case c >= 'a' && c <= 'f':
			p.remain = p.remain<<4 | int64(c-'a'+10)
		case c >= 'A' && c <= 'F':
			p.remain = p.remain<<4 | int64(c-'A'+10)
		case c == ';' || c == ' ' || c == '\t':
			p.state = stChunkExt
		case c == '\r':
			p.state = stChunkSizeLF
		default:
			return fmt.Errorf("malformed chunk size byte %q", c)
		}
		if p.remain > 1<<40 {
			return errors.New("chunk size too large")
		}
	case stChunkExt:
		if c == '\r' {
			p.state = stChunkSizeLF
		}
	case stChunkSizeLF:
		if c != '\n' {
			return errors.New("malformed chunk size line")
		}
		if p.remain == 0 {
			p.state = stTrailer
		} else {
			p.state = stChunkData
		}
	case stChunkCR:
		if c != '\r' {
			return errors.New("chunk data longer than its size")
		}
		p.state = stChunkLF
	case stChunkLF:
		if c != '\n' {
			return errors.New("chunk data longer than its size")
		}
		p.state = stChunkSize
	case stTrailer:
		if c == '\r' {
			p.state = stTrailerLF
		} else {
			p.state = stTrailerLn
		}
	case stTrailerLn:
		if c == '\n' {
			p.state = stTrailer
		}
	case stTrailerLF:
		if c != '\n' {
			return errors.New("malformed chunked trailer")
		}
		p.state = stDone
	}
	return nil
}

func parseLength(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 15 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

// equalFold reports whether b equals the lower-case ASCII string s, ignoring
// case, without allocating.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// trim shortens b for an error message.
func trim(b []byte) []byte {
	if len(b) > 60 {
		return b[:60]
	}
	return b
}
