package nethttpguard

import (
	"io"
	"net/http"
)

// maxDrain is how much of a chunked body Handler reads before h runs: what
// net/http itself reads of an unread body before it gives up and closes
// the connection.
const maxDrain = 256 << 10

// Handler returns h behind the handler's half of the framing guard
// (Listener is the connection's half). It answers 505 and closes for an
// HTTP version other than 1.0 and 1.1, and reads a chunked body before h
// runs, so that a framing error in it is answered 400 and a close rather
// than with h's status.
func Handler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// net/http serves HTTP/1.2 and up as 1.1 (RFC 9110 section 2.5
		// allows it) and passes "PRI * HTTP/2.0" on for a handler to take
		// over; the contract refuses versions other than 1.0 and 1.1.
		if r.ProtoMajor != 1 || r.ProtoMinor > 1 {
			w.Header().Set("Connection", "close")
			http.Error(w, "HTTP Version Not Supported", http.StatusHTTPVersionNotSupported)
			return
		}
		// A framing error in a chunked body (RFC 9112 section 7.1),
		// found by net/http's chunked reader or by the Listener's
		// connection, surfaces here as a read error.
		if r.TransferEncoding != nil {
			if _, err := io.CopyN(io.Discard, r.Body, maxDrain); err != nil && err != io.EOF {
				w.Header().Set("Connection", "close")
				http.Error(w, "Bad Request", http.StatusBadRequest)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}
