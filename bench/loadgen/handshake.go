//go:build linux

package loadgen

// A TLS 1.3 client (RFC 8446) cut to what a load generator needs: one
// cipher suite (TLS_AES_128_GCM_SHA256), one group (X25519), full and
// resumed (PSK with ECDHE) handshakes, and the record layer. It does no I/O:
// tls.go feeds it a socket's bytes and sends what it builds.
//
// Two choices make a handshake cost the client less than the server, so
// that one client core can keep a server's core busy with them:
//   - a loop reuses one X25519 key share for all its handshakes, so a
//     handshake costs the client one X25519 operation where the server,
//     whose share is fresh each time, does two and signs;
//   - it does not authenticate the server: it reads neither the certificate
//     nor the CertificateVerify signature, as a load generator that does not
//     verify certificates (ab, wrk) has no use for them. It does check the
//     server's Finished, so a handshake that ends was one with the server's
//     own keys, on the transcript both sides saw.
//
// The server's work is a real client's: it cannot tell either choice.

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"net"
	"time"
)

// Record types, handshake message types and the one suite and group.
const (
	recCCS       = 20
	recAlert     = 21
	recHandshake = 22
	recData      = 23

	msgClientHello         = 1
	msgServerHello         = 2
	msgNewSessionTicket    = 4
	msgEncryptedExtensions = 8
	msgCertificate         = 11
	msgCertificateRequest  = 13
	msgCertificateVerify   = 15
	msgFinished            = 20
	msgKeyUpdate           = 24

	suiteAES128GCM = 0x1301
	groupX25519    = 0x001d
	versionTLS13   = 0x0304

	maxPlain  = 1 << 14        // a record's content at most
	maxRecord = maxPlain + 256 // a protected record's body at most
	maxMsg    = 1 << 17        // a handshake message at most (a certificate chain)
)

// TLSProtocol names what loadgen speaks, as ab's "SSL/TLS Protocol" line
// does: the version, the suite and the group.
const TLSProtocol = "TLSv1.3,TLS_AES_128_GCM_SHA256,X25519"

// hrrRandom is the random of a HelloRetryRequest (RFC 8446, 4.1.3).
var hrrRandom = [32]byte{
	0xcf, 0x21, 0xad, 0x74, 0xe5, 0x9a, 0x61, 0x11, 0xbe, 0x1d, 0x8c, 0x02, 0x1e, 0x65, 0xb8, 0x91,
	0xc2, 0xa2, 0x11, 0x16, 0x7a, 0xbb, 0x8c, 0x5e, 0x07, 0x9e, 0x09, 0xe2, 0xc8, 0xa8, 0x33, 0x9c,
}

// Handshake states of a tlsConn.
const (
	tlsIdle   = iota // no handshake begun
	tlsHello         // the ClientHello went; the ServerHello is awaited
	tlsFlight        // the rest of the server's flight, to its Finished
	tlsOpen          // the handshake is done: application data
)

// tlsClient is what a loop's connections share.
type tlsClient struct {
	key    *ecdh.PrivateKey // the loop's X25519 key share, reused
	share  []byte           // its public half
	sni    string           // server_name; none for an IP address (RFC 6066)
	resume bool             // offer each connection's last session back

	noPSK []byte // the early secret's "derived" secret without a PSK: a constant
}

func newTLSClient(t *target, resume bool) (*tlsClient, error) {
	key, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("TLS key share: %v", err)
	}
	cl := &tlsClient{key: key, share: key.PublicKey().Bytes(), resume: resume}
	if net.ParseIP(t.host) == nil {
		cl.sni = t.host
	}
	cl.noPSK = deriveSecret(extract(nil, nil), "derived", emptyHash[:])
	return cl, nil
}

// ticket is a session the server gave, to resume.
type ticket struct {
	id     []byte
	psk    []byte
	ageAdd uint32
	got    time.Time
}

// tlsConn is one connection's TLS: the handshake under way, then its
// records' protection. Its buffers outlive connections: a connection
// allocates nothing once they have grown.
type tlsConn struct {
	state   int
	hash    hash.Hash // the transcript
	in      []byte    // bytes received: records from off, the last maybe partial
	off     int
	msgs    []byte // handshake content not yet a whole message
	out     []byte // what is being sent: a ClientHello, or pre and data
	pre     []byte // records to send ahead of the next data: the client's Finished
	rd, wr  halfConn
	early   []byte // the early secret
	sHS     []byte // the server's handshake traffic secret
	cHS     []byte // the client's
	master  []byte
	sAP     []byte // the server's application traffic secret (KeyUpdate)
	cAP     []byte
	resMast []byte // the resumption master secret, when resuming
	ticket  ticket // the session to offer next, when resuming
	offered bool   // this ClientHello offered ticket
	resumed bool   // the server accepted it
	seen    int    // flight messages seen: EncryptedExtensions first
	sending bool   // the ClientHello's send is in flight
	opening bool   // the handshake ended before that send did
	sum     [32]byte
}

// reset makes s ready for a new connection, keeping its buffers and its
// ticket.
func (s *tlsConn) reset() {
	tk := s.ticket
	h, in, msgs, out, pre := s.hash, s.in[:0], s.msgs[:0], s.out[:0], s.pre[:0]
	h.Reset()
	*s = tlsConn{hash: h, in: in, msgs: msgs, out: out, pre: pre, ticket: tk}
}

// hello builds the ClientHello record into s.out and returns it.
func (s *tlsConn) hello(cl *tlsClient) []byte {
	s.reset()
	m := append(s.out[:0], recHandshake, 3, 1, 0, 0) // the record; lengths below
	m = append(m, msgClientHello, 0, 0, 0, 3, 3)
	m = append(m, make([]byte, 32)...)
	rand.Read(m[len(m)-32:])
	// No legacy session id: without one a server sends no
	// ChangeCipherSpec for middleboxes.
	m = append(m, 0, 0, 2, suiteAES128GCM>>8, suiteAES128GCM&0xff, 1, 0)
	exts := len(m)
	m = append(m, 0, 0)
	if n := len(cl.sni); n > 0 {
		m = binary.BigEndian.AppendUint16(m, 0) // server_name
		m = binary.BigEndian.AppendUint16(m, uint16(n+5))
		m = binary.BigEndian.AppendUint16(m, uint16(n+3))
		m = append(m, 0)
		m = binary.BigEndian.AppendUint16(m, uint16(n))
		m = append(m, cl.sni...)
	}
	m = append(m,
		0, 10, 0, 4, 0, 2, 0, groupX25519, // supported_groups
		// signature_algorithms: ecdsa_secp256r1_sha256, rsa_pss_rsae_sha256,
		// rsa_pkcs1_sha256 (the certificate's own signature)
		0, 13, 0, 8, 0, 6, 4, 3, 8, 4, 4, 1,
		0, 43, 0, 3, 2, 3, 4, // supported_versions: TLS 1.3
		0, 45, 0, 2, 1, 1, // psk_key_exchange_modes: PSK with (EC)DHE
		0, 51, 0, 38, 0, 36, 0, groupX25519, 0, 32) // key_share
	m = append(m, cl.share...)
	s.offered = cl.resume && s.ticket.id != nil
	binders := 0
	if s.offered {
		// pre_shared_key, last: the ticket, then its binder.
		id := s.ticket.id
		m = binary.BigEndian.AppendUint16(m, 41)
		m = binary.BigEndian.AppendUint16(m, uint16(2+2+len(id)+4+2+1+32))
		m = binary.BigEndian.AppendUint16(m, uint16(2+len(id)+4))
		m = binary.BigEndian.AppendUint16(m, uint16(len(id)))
		m = append(m, id...)
		age := uint32(time.Since(s.ticket.got).Milliseconds())
		m = binary.BigEndian.AppendUint32(m, age+s.ticket.ageAdd)
		binders = len(m)
		m = append(m, 0, 33, 32)
		m = append(m, make([]byte, 32)...)
	}
	binary.BigEndian.PutUint16(m[exts:], uint16(len(m)-exts-2))
	m[6], m[7], m[8] = byte((len(m)-9)>>16), byte((len(m)-9)>>8), byte(len(m)-9)
	binary.BigEndian.PutUint16(m[3:], uint16(len(m)-5))
	if s.offered {
		// The binder signs the hello up to the binders (RFC 8446, 4.2.11.2);
		// the transcript goes on over them.
		s.early = extract(s.ticket.psk, nil)
		s.hash.Write(m[5:binders])
		key := deriveSecret(s.early, "res binder", emptyHash[:])
		copy(m[binders+3:], finished(key, s.hash.Sum(s.sum[:0])))
		s.hash.Write(m[binders:])
	} else {
		s.hash.Write(m[5:])
	}
	s.out = m
	s.state = tlsHello
	return m
}

// record returns the next whole record received, or nil.
func (s *tlsConn) record() ([]byte, error) {
	b := s.in[s.off:]
	if len(b) < 5 {
		return nil, nil
	}
	if b[0] < recCCS || b[0] > recData || b[1] != 3 {
		return nil, fmt.Errorf("not a TLS record: %q", b[:min(len(b), 16)])
	}
	n := int(binary.BigEndian.Uint16(b[3:]))
	if n > maxRecord {
		return nil, fmt.Errorf("record of %d bytes", n)
	}
	if len(b) < 5+n {
		return nil, nil
	}
	s.off += 5 + n
	return b[:5+n], nil
}

// compact moves a partial record to the front of s.in.
func (s *tlsConn) compact() {
	s.in = s.in[:copy(s.in, s.in[s.off:])]
	s.off = 0
}

// unprotect returns a record's content type and content, decrypted in place
// once the server's keys are known. A ChangeCipherSpec is never protected.
func (s *tlsConn) unprotect(rec []byte) (byte, []byte, error) {
	if s.state == tlsHello || rec[0] == recCCS {
		return rec[0], rec[5:], nil
	}
	if rec[0] != recData {
		return 0, nil, fmt.Errorf("unprotected record of type %d after the ServerHello", rec[0])
	}
	return s.rd.open(rec)
}

// handshake takes handshake content and handles each whole message. done
// reports that the server's Finished was verified: s.pre then holds the
// client's Finished and the keys are the application's.
func (s *tlsConn) handshake(cl *tlsClient, p []byte) (done bool, err error) {
	s.msgs = append(s.msgs, p...)
	rest := s.msgs
	for len(rest) >= 4 {
		n := int(rest[1])<<16 | int(rest[2])<<8 | int(rest[3])
		if n > maxMsg {
			return false, fmt.Errorf("handshake message of %d bytes", n)
		}
		if len(rest) < 4+n {
			break
		}
		msg := rest[:4+n]
		rest = rest[4+n:]
		switch s.state {
		case tlsHello:
			err = s.serverHello(cl, msg)
		case tlsFlight:
			if done, err = s.flight(cl, msg); done && len(rest) > 0 {
				err = errors.New("handshake messages after the server's Finished in its keys")
			}
		default:
			err = s.postHandshake(cl, msg)
		}
		if err != nil {
			return false, err
		}
	}
	s.msgs = s.msgs[:copy(s.msgs, rest)]
	return done, nil
}

// serverHello takes the ServerHello and derives the handshake's keys.
func (s *tlsConn) serverHello(cl *tlsClient, msg []byte) error {
	if msg[0] != msgServerHello {
		return fmt.Errorf("handshake message %d where a ServerHello was due", msg[0])
	}
	r := reader{b: msg[4:]}
	random := r.take(34)[2:] // after legacy_version
	r.vec8()                 // the session id echoed
	suite := r.u16()
	r.take(1)
	exts := reader{b: r.vec16()}
	if r.bad || len(r.b) > 0 {
		return errors.New("malformed ServerHello")
	}
	if bytes.Equal(random, hrrRandom[:]) {
		return errors.New("the server asked to retry the hello (HelloRetryRequest): loadgen offers X25519 only")
	}
	var version int
	var key []byte
	psk := false
	for len(exts.b) > 0 && !exts.bad {
		typ, body := exts.u16(), reader{b: exts.vec16()}
		switch typ {
		case 43: // supported_versions
			version = body.u16()
		case 51: // key_share
			if body.u16() != groupX25519 {
				return errors.New("the server chose a group other than X25519")
			}
			key = body.vec16()
		case 41: // pre_shared_key
			psk = body.u16() == 0 && s.offered
			if !psk {
				return errors.New("the server chose a PSK that was not offered")
			}
		}
		if body.bad {
			exts.bad = true
		}
	}
	switch {
	case exts.bad:
		return errors.New("malformed ServerHello extensions")
	case version != versionTLS13:
		return errors.New("the server chose TLS 1.2 or older: loadgen speaks TLS 1.3 only")
	case suite != suiteAES128GCM:
		return fmt.Errorf("the server chose cipher suite %#04x, not offered", suite)
	}
	pub, err := ecdh.X25519().NewPublicKey(key)
	if err != nil {
		return fmt.Errorf("the server's key share: %v", err)
	}
	shared, err := cl.key.ECDH(pub)
	if err != nil {
		return fmt.Errorf("X25519: %v", err)
	}
	derived := cl.noPSK
	if s.resumed = psk; psk {
		derived = deriveSecret(s.early, "derived", emptyHash[:])
	}
	s.hash.Write(msg)
	th := s.hash.Sum(s.sum[:0])
	hs := extract(shared, derived)
	s.cHS = deriveSecret(hs, "c hs traffic", th)
	s.sHS = deriveSecret(hs, "s hs traffic", th)
	s.master = extract(nil, deriveSecret(hs, "derived", emptyHash[:]))
	s.state = tlsFlight
	if err := s.rd.set(s.sHS); err != nil {
		return err
	}
	return s.wr.set(s.cHS)
}

// flight takes a message of the server's flight after its hello.
func (s *tlsConn) flight(cl *tlsClient, msg []byte) (bool, error) {
	switch {
	case s.seen == 0 && msg[0] != msgEncryptedExtensions:
		return false, fmt.Errorf("handshake message %d where EncryptedExtensions was due", msg[0])
	case msg[0] == msgCertificateRequest:
		return false, errors.New("the server asks for a client certificate")
	case msg[0] == msgCertificate || msg[0] == msgCertificateVerify:
		if s.resumed {
			return false, errors.New("a certificate in a resumed handshake")
		}
	case msg[0] == msgFinished:
		return true, s.finished(cl, msg)
	case msg[0] != msgEncryptedExtensions || s.seen > 0:
		return false, fmt.Errorf("unexpected handshake message %d", msg[0])
	}
	s.seen++
	s.hash.Write(msg)
	return false, nil
}

// finished checks the server's Finished, makes the client's, and moves to
// the application's keys.
func (s *tlsConn) finished(cl *tlsClient, msg []byte) error {
	if s.seen == 0 || (!s.resumed && s.seen < 3) {
		return errors.New("the server's Finished came early")
	}
	if !hmac.Equal(msg[4:], finished(s.sHS, s.hash.Sum(s.sum[:0]))) {
		return errors.New("the server's Finished does not verify")
	}
	s.hash.Write(msg)
	th := s.hash.Sum(s.sum[:0])
	s.cAP = deriveSecret(s.master, "c ap traffic", th)
	s.sAP = deriveSecret(s.master, "s ap traffic", th)
	fin := append([]byte{msgFinished, 0, 0, 32}, finished(s.cHS, th)...)
	s.pre = s.wr.seal(s.pre[:0], recHandshake, fin)
	if cl.resume {
		s.hash.Write(fin)
		s.resMast = deriveSecret(s.master, "res master", s.hash.Sum(s.sum[:0]))
	}
	s.state = tlsOpen
	if err := s.rd.set(s.sAP); err != nil {
		return err
	}
	return s.wr.set(s.cAP)
}

// postHandshake takes a message after the handshake: a session ticket,
// kept when resuming, or a KeyUpdate.
func (s *tlsConn) postHandshake(cl *tlsClient, msg []byte) error {
	r := reader{b: msg[4:]}
	switch msg[0] {
	case msgNewSessionTicket:
		r.take(4) // lifetime
		ageAdd := r.u32()
		nonce := r.vec8()
		id := r.vec16()
		r.vec16()
		if r.bad || len(id) == 0 {
			return errors.New("malformed NewSessionTicket")
		}
		if cl.resume {
			s.ticket = ticket{
				id:     append(s.ticket.id[:0], id...),
				psk:    expandLabel(s.resMast, "resumption", nonce, 32),
				ageAdd: ageAdd,
				got:    time.Now(),
			}
		}
	case msgKeyUpdate:
		ask := r.u8()
		if r.bad || len(r.b) > 0 || ask > 1 {
			return errors.New("malformed KeyUpdate")
		}
		s.sAP = expandLabel(s.sAP, "traffic upd", nil, 32)
		if err := s.rd.set(s.sAP); err != nil {
			return err
		}
		if ask == 1 {
			// Answer under the old keys, ahead of the next data.
			s.pre = s.wr.seal(s.pre, recHandshake, []byte{msgKeyUpdate, 0, 0, 1, 0})
			s.cAP = expandLabel(s.cAP, "traffic upd", nil, 32)
			return s.wr.set(s.cAP)
		}
	default:
		return fmt.Errorf("unexpected handshake message %d after the handshake", msg[0])
	}
	return nil
}

// alertNames names the alerts a server is likely to send a client it
// cannot serve (RFC 8446, 6).
var alertNames = map[byte]string{
	10: "unexpected_message", 20: "bad_record_mac", 40: "handshake_failure",
	42: "bad_certificate", 47: "illegal_parameter", 50: "decode_error",
	51: "decrypt_error", 70: "protocol_version", 80: "internal_error",
	109: "missing_extension", 112: "unrecognized_name", 116: "certificate_required",
}

// alert reads an alert's content: nil for close_notify.
func alert(p []byte) error {
	if len(p) != 2 {
		return errors.New("malformed alert")
	}
	if p[1] == 0 {
		return nil
	}
	if name, ok := alertNames[p[1]]; ok {
		return fmt.Errorf("alert %s (%d) from the server", name, p[1])
	}
	return fmt.Errorf("alert %d from the server", p[1])
}

// halfConn protects one direction's records.
type halfConn struct {
	aead  cipher.AEAD
	iv    [12]byte
	seq   uint64
	nonce [12]byte
}

// set keys h from a traffic secret.
func (h *halfConn) set(secret []byte) error {
	b, err := aes.NewCipher(expandLabel(secret, "key", nil, 16))
	if err != nil {
		return err
	}
	if h.aead, err = cipher.NewGCM(b); err != nil {
		return err
	}
	copy(h.iv[:], expandLabel(secret, "iv", nil, 12))
	h.seq = 0
	return nil
}

// next returns the next record's nonce: the IV xor its sequence number.
func (h *halfConn) next() []byte {
	h.nonce = h.iv
	for i := range 8 {
		h.nonce[4+i] ^= byte(h.seq >> (56 - 8*i))
	}
	h.seq++
	return h.nonce[:]
}

// seal appends to out p in records of type typ, encrypted in place.
func (h *halfConn) seal(out []byte, typ byte, p []byte) []byte {
	for len(p) > 0 {
		n := min(len(p), maxPlain)
		hdr := len(out)
		size := n + 1 + h.aead.Overhead()
		out = append(out, recData, 3, 3, byte(size>>8), byte(size))
		body := len(out)
		out = append(out, p[:n]...)
		out = append(out, typ)
		out = h.aead.Seal(out[:body], h.next(), out[body:], out[hdr:body])
		p = p[n:]
	}
	return out
}

// open decrypts a protected record in place and returns its inner type and
// content.
func (h *halfConn) open(rec []byte) (byte, []byte, error) {
	p, err := h.aead.Open(rec[5:5], h.next(), rec[5:], rec[:5])
	if err != nil {
		return 0, nil, errors.New("a record does not decrypt")
	}
	i := len(p) - 1
	for i >= 0 && p[i] == 0 {
		i--
	}
	if i < 0 {
		return 0, nil, errors.New("a record without a content type")
	}
	return p[i], p[:i], nil
}

// The key schedule's functions (RFC 8446, 7.1), over SHA-256.

var emptyHash = sha256.Sum256(nil)

func extract(secret, salt []byte) []byte {
	if secret == nil {
		secret = make([]byte, sha256.Size)
	}
	prk, _ := hkdf.Extract(sha256.New, secret, salt) // fails only in FIPS mode for short keys
	return prk
}

func expandLabel(secret []byte, label string, context []byte, n int) []byte {
	info := make([]byte, 0, 10+len(label)+len(context))
	info = append(info, byte(n>>8), byte(n), byte(6+len(label)))
	info = append(info, "tls13 "...)
	info = append(info, label...)
	info = append(info, byte(len(context)))
	info = append(info, context...)
	out, _ := hkdf.Expand(sha256.New, secret, string(info), n) // n is far below its limit
	return out
}

func deriveSecret(secret []byte, label string, transcript []byte) []byte {
	return expandLabel(secret, label, transcript, sha256.Size)
}

// finished is a Finished message's verify_data, or a PSK binder, keyed by
// base over the transcript's hash th.
func finished(base, th []byte) []byte {
	m := hmac.New(sha256.New, expandLabel(base, "finished", nil, sha256.Size))
	m.Write(th)
	return m.Sum(nil)
}

// reader reads a handshake message's fields; once one runs past the end,
// bad is set and the rest read as zeros.
type reader struct {
	b   []byte
	bad bool
}

func (r *reader) take(n int) []byte {
	if n > len(r.b) {
		r.b, r.bad = nil, true
		return make([]byte, n)
	}
	b := r.b[:n]
	r.b = r.b[n:]
	return b
}

func (r *reader) u8() int       { return int(r.take(1)[0]) }
func (r *reader) u16() int      { return int(binary.BigEndian.Uint16(r.take(2))) }
func (r *reader) u32() uint32   { return binary.BigEndian.Uint32(r.take(4)) }
func (r *reader) vec8() []byte  { return r.take(r.u8()) }
func (r *reader) vec16() []byte { return r.take(r.u16()) }
