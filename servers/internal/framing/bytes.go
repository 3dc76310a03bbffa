package framing

// tchar is RFC 9110's token character set (section 5.6.2).
var tchar = func() (t [256]bool) {
	for _, c := range []byte("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") {
		t[c] = true
	}
	return t
}()

// IsToken reports whether c may be part of a token (RFC 9110 section 5.6.2).
func IsToken(c byte) bool { return tchar[c] }

// isCtl reports whether c is a control character other than HTAB, which a
// field value or quoted string may not hold (RFC 9110 sections 5.5 and
// 5.6.4).
func isCtl(c byte) bool { return c < ' ' && c != '\t' || c == 0x7f }

// Lower returns the lower-case of the ASCII letter c, and any other byte as
// it is.
func Lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// EqualFold reports whether b equals the lower-case ASCII s, ignoring case.
// Not bytes.EqualFold, which folds Unicode too: it finds "chun\u212Aed"
// (Kelvin sign) equal to "chunked", where RFC 9110 compares tokens in ASCII.
func EqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(s) {
		if Lower(b[i]) != s[i] {
			return false
		}
	}
	return true
}

// Unhex returns the value of the hex digit c, or -1 if c is not one.
func Unhex(c byte) int {
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
