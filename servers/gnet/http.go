//go:build linux

package main

import (
	"hellobench/servers/internal/http1"
	"hellobench/servers/internal/jsonreply"
)

// serve parses the requests at the start of in and appends their responses
// to dst. It returns out, dst with the responses appended; n, how many bytes
// of in it is done with; closing, whether the connection closes after out;
// and served, how many requests it answered.
func (cs *conn) serve(dst, in, date []byte, draining bool) (out []byte, n int, closing bool, served int) {
	out = dst
	for {
		k, ev := cs.p.Parse(in[n:])
		n += k
		switch ev {
		case http1.More:
			return out, n, false, served
		case http1.Header:
			// Draining, the last request that has arrived says close;
			// those pipelined before it are answered.
			cs.route(draining && n == len(in))
			// Ask for the body only if none of it has come yet; a client
			// that sent it anyway does not wait.
			if cs.p.Req.Continue && n == len(in) {
				out = append(out, http1.Continue...)
			}
		case http1.Done:
			if work.On() && cs.reply == http1.OK && !cs.workOnLoop() {
				// Answered off the loop (work.go); what follows this
				// request is parsed once that answer is out.
				cs.held = true
				return out, n, false, served
			}
			out = cs.respond(out, date)
			served++
			if cs.connection == http1.ConnClose {
				return out, n, true, served
			}
			if len(out) >= pauseAt { // the rest when these are sent
				return out, n, false, served
			}
		case http1.Fail:
			out = http1.AppendResponse(out, serverName, http1.ErrorReply(cs.p.Status), false, http1.ConnClose, date)
			return out, n, true, served
		}
	}
}

// route chooses the answer to the request whose header section has just
// been read, and its Connection header: close if last.
func (cs *conn) route(last bool) {
	r := &cs.p.Req
	cs.reply, cs.head = http1.Route(r.Method, r.Path)
	if cs.reply == http1.NotFound {
		cs.reply, cs.head = jsonreply.Route(r.Method, r.Path)
	}
	switch {
	case !r.KeepAlive || last:
		cs.connection = http1.ConnClose
	case r.Minor == 0:
		cs.connection = http1.ConnKeepAlive
	default:
		cs.connection = http1.ConnNone
	}
}

// respond appends the answer route chose to out.
func (cs *conn) respond(out, date []byte) []byte {
	if cs.reply == jsonreply.Reply {
		return jsonreply.Append(out, serverName, cs.head, cs.connection, date)
	}
	return http1.AppendResponse(out, serverName, cs.reply, cs.head, cs.connection, date)
}
