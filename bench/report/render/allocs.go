package render

import (
	"fmt"
	"strings"

	"hellobench/bench/report"
)

// allocWhy says, in each stack's own terms, why it allocates what it does
// per request (or does not).
var allocWhy = map[string]string{
	"nethttp": "net/http reads each request into a new `*http.Request`, because a handler may keep it (and its context, a new `context.WithCancel` per request) past its return; " +
		"its headers go into a map (`http.Header`, a `map[string][]string`, a string and a slice per header line), its URL into a new `url.URL`, " +
		"and the answer's headers are a map too (each `Set` a new one-element slice), cloned when they are written (`Header.Clone` in `WriteHeader`); the connection's goroutine and its `bufio` buffers are per connection, not per request.",
	"fasthttp": "fasthttp reuses one `RequestCtx` per connection, taken from a `sync.Pool` and reset between requests, keeps headers as byte slices into its own buffers instead of a map, " +
		"and serves connections from a pool of reused worker goroutines: its FAQ's account of why it allocates nothing per request.",
	"fiber": "fiber's `Ctx` comes from a pool (`AcquireCtx`, `ReleaseCtx`) over fasthttp's pooled `RequestCtx`, and its router matches the path without building a new object: what is left per request is listed above.",
	"gin": "gin runs on net/http, so it makes net/http's allocations (the request, its header map, its context); its own `gin.Context` comes from the engine's `sync.Pool`, " +
		"and what it adds are the small values of its `c.Data` call: the `render.Data` boxed into the `Render` interface, and the Content-Type header's one-element slice.",
	"echo": "echo runs on net/http, so it makes net/http's allocations; its own `echo.Context` comes from a `sync.Pool`, reset per request.",
	"chi": "chi runs on net/http, so it makes net/http's allocations, and one step more: its route context comes from a pool, but it is hung on the request with `r.WithContext`, " +
		"which copies the `*http.Request` and adds a `context.WithValue` per request.",
	"hertz": "hertz pools its `RequestContext` (the engine's `ctxPool`) and reads headers into byte slices of its own buffers, as fasthttp does.",
	"gnet":  "gnet hands the handler the connection's bytes; the parser here (servers/internal/http1) reads the request in place and the answer is one fixed byte slice, so nothing is allocated per request.",
	"uring": "uring reads into a buffer per connection, parses in place with the same parser as gnet (servers/internal/http1) and writes one fixed answer, so nothing is allocated per request.",
	"fcgi": "the Go side is net/http/fcgi, which builds each request from scratch: its FastCGI parameters read into a new map (a string each), " +
		"turned into a new `*http.Request` with a header map (`cgi.RequestFromMap`), and a response whose output stream has a new 64 KiB `bufio.Writer`.",
}

// AllocTables are the allocations of one request of each Go stack, by the
// function that makes them, with why; empty without them.
func AllocTables(rep report.Report) string {
	p := rep.Profiles
	if p == nil || len(p.Allocs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("### Allocations per request, by site\n\n")
	fmt.Fprintf(&b, "From each stack's in-memory keep-alive benchmark (no network: the stack's own loop on an in-memory connection), run twice with every allocation recorded (`-memprofilerate=1`); "+
		"a request's allocations are the difference of the two runs' profiles over the difference of their lengths, so that what the benchmark allocates once drops out. "+
		"A site is the innermost function outside Go's runtime that allocated, with its caller. "+
		"Sites under %s allocations per request are left out of the list and its sums: they are what pools and buffers allocate again after a collection, which varies from run to run (their net is given as the rest, and can come out below zero). "+
		"Beside the sums, the benchmark's own B/op and allocs/op, which go test rounds to whole allocations.\n\n", num(0.05, 2))
	for _, a := range p.Allocs {
		fmt.Fprintf(&b, "**%s**: %s B and %s allocations per request at the sites listed, the rest %s B and %s (the benchmark's own: %s B/op, %s allocs/op).",
			a.Server, num(a.Bytes, 0), num(a.Count, 2), num(a.RestBytes, 0), num(a.RestCount, 2), num(a.BenchBytes, 0), num(a.BenchCount, 0))
		if why := allocWhy[a.Server]; why != "" {
			b.WriteString(" " + why)
		}
		b.WriteString("\n\n")
		if len(a.Sites) == 0 {
			continue
		}
		b.WriteString("| function | called from | B/req | allocs/req |\n|---|---|--:|--:|\n")
		for _, s := range a.Sites {
			fmt.Fprintf(&b, "| `%s` | `%s` | %s | %s |\n", s.Function, s.From, num(s.Bytes, 0), num(s.Count, 2))
		}
		b.WriteString("\n")
	}
	return b.String()
}
