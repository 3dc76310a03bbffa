package nethttpguard

import (
	"io"
	"net/http"
	"strings"

	"hellobench/servers/internal/http1"
)

// maxDrain is how much of a chunked body Handler reads before h runs: what
// net/http itself reads of an unread body before it gives up and closes
// the connection.
const maxDrain = 256 << 10

// Handler returns h behind the handler's half of the framing guard
// (Listener is the connection's half). It answers 505 and closes for an
// HTTP version other than 1.0 and 1.1, and reads a chunked body before h
// runs, so that a framing error in it is answered 400 and a close rather
// than with h's status. It answers 400 and closes for a Host that is not
// host [":" port] and a target in a form the method does not take.
//
// It lets through the requests that came in HTTP/2 frames, and those of
// HTTP/3, which a server on net/http gets from quic-go's http3.Server.
func Handler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// net/http serves HTTP/1.2 and up as 1.1 (RFC 9110 section 2.5
		// allows it) and passes "PRI * HTTP/2.0" on for a handler to take
		// over; the contract refuses versions other than 1.0 and 1.1. A
		// request that came in HTTP/2 frames (over TLS by ALPN, or h2c with
		// prior knowledge) is HTTP/2.0 too: net/http's HTTP/1 reader
		// passes on no other 2.x request line than the preface's PRI. An
		// HTTP/3 request came over QUIC: net/http's HTTP/1 reader answers
		// a 3.x request line 505 itself, before any handler.
		if !http1x(r) && !http2(r) && !http3(r) {
			refuse(w, r, http.StatusHTTPVersionNotSupported)
			return
		}
		// RFC 9112 section 3.2: 400 for a Host with an invalid value; Go
		// takes any value of a lenient character set. HTTP/1.0 needs no
		// Host (r.Host is then empty).
		if (r.Host != "" || r.ProtoAtLeast(1, 1)) && !http1.ValidAuthority([]byte(r.Host)) || !targetForm(r) {
			refuse(w, r, http.StatusBadRequest)
			return
		}
		// A framing error in a chunked body (RFC 9112 section 7.1),
		// found by net/http's chunked reader or by the Listener's
		// connection, surfaces here as a read error.
		if r.TransferEncoding != nil {
			if _, err := io.CopyN(io.Discard, r.Body, maxDrain); err != nil && err != io.EOF {
				refuse(w, r, http.StatusBadRequest)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// refuse answers r with code and closes its connection. HTTP/3 has no
// Connection field (RFC 9114 section 4.2 makes a message carrying one
// malformed) and quic-go's server would send it as it is; net/http's
// HTTP/2 server turns it into a graceful close of the connection.
func refuse(w http.ResponseWriter, r *http.Request, code int) {
	if !http3(r) {
		w.Header().Set("Connection", "close")
	}
	http.Error(w, http.StatusText(code), code)
}

// http1x reports whether r is an HTTP/1.0 or HTTP/1.1 request.
func http1x(r *http.Request) bool { return r.ProtoMajor == 1 && r.ProtoMinor <= 1 }

// http2 reports whether r came in HTTP/2 frames.
func http2(r *http.Request) bool {
	return r.ProtoMajor == 2 && r.ProtoMinor == 0 && r.Method != "PRI"
}

// http3 reports whether r is an HTTP/3 request.
func http3(r *http.Request) bool { return r.ProtoMajor == 3 && r.ProtoMinor == 0 }

// targetForm reports whether r's target has a form its method takes (RFC
// 9112 section 3.2): origin-form, absolute-form with an http or https URI,
// asterisk-form for OPTIONS alone, and authority-form for CONNECT alone,
// which Go's server reads as such. Go passes "GET host:80" and "GET *" on
// to a handler.
func targetForm(r *http.Request) bool {
	u := r.RequestURI
	switch {
	case r.Method == http.MethodConnect:
		return true
	case strings.HasPrefix(u, "/"):
		return true
	case u == "*":
		return r.Method == http.MethodOptions
	}
	s := strings.ToLower(r.URL.Scheme)
	return (s == "http" || s == "https") && r.URL.Host != ""
}
