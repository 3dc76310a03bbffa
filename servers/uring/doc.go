//go:build linux

// Command uring serves the hellobench page on io_uring, driven by raw system
// calls (package hellobench/internal/uring): no networking library, no
// netpoller. It is what servers/gnet is on gnet, on the other readiness
// model: where gnet is told a socket is ready and then reads and writes it
// with a system call each, uring hands the kernel the reads and writes
// themselves and takes their results, many per io_uring_enter.
//
// Beside the page it answers /json, a page.Message encoded with
// encoding/json's json.Marshal on every request (package jsonreply).
//
// It is a complete server, not a benchmark special: the HTTP/1.1 parser is
// the project's own (servers/internal/http1, shared with gnet); it validates
// requests per RFC 9112, reads requests split over any number of receives,
// answers pipelined ones in order in one send per batch of completions,
// consumes bodies (chunked included) up to maxBody, enforces a deadline on
// each whole request, body included, and an idle timeout (one list per
// timeout, no timer per connection: timer.go), drains on SIGINT or
// SIGTERM, and keeps serving when connections outnumber its open-file limit
// (limit.go).
//
// Each connection has one multishot receive into a ring of buffers the
// loop provides (a buffer is lent only while its bytes are parsed), so an
// idle connection holds no buffer: its memory is its state alone.
//
// With -work-cpu and -work-wait its handler does work before it answers,
// as every server's can; a wait runs off the ring, on a bounded pool of
// goroutines (work.go), and its answer comes back through an eventfd the
// ring reads.
//
// The files, one job each: loop.go runs a ring's batches; submit.go queues
// operations, and the backlog of those the queue could not take;
// lifecycle.go owns a connection's lifetime and dispatches every
// completion; accept.go, recv.go (receives, pauses, the stalled-request
// probe) and send.go take their operations' completions; bufs.go lends
// buffers; conn.go parses and answers; timer.go keeps the timeout lists;
// drain.go stops; server.go starts the loops.
package main
