// Package page holds the one document every hellobench server sends, and the
// few facts of the contract that every server must agree on.
//
// The bytes live in hello.html and are embedded here, so no server can drift
// from the others: they all serve page.HTML.
package page

import _ "embed"

// HTML is the 257-byte document served at Path. Servers must not modify it.
//
//go:embed hello.html
var HTML []byte

const (
	// Path is the only path the servers answer with 200.
	Path = "/hello/world"
	// Size is len(HTML): the seed benchmarks' /hello/world document length.
	Size = 257
	// ContentType is the Content-Type every server sends with HTML.
	ContentType = "text/html; charset=utf-8"
	// Allow is the Allow header of a 405 answer at Path.
	Allow = "GET, HEAD"
)
