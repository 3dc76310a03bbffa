package main

import (
	"bytes"
	"io"
	"os"
	"sync"
	"time"

	"github.com/cloudwego/hertz/pkg/common/hlog"
	"github.com/cloudwego/netpoll"
)

// quietLogs sets what the server logs while serving: hertz logs every
// connection that ends in an error (a bad request, a reset), per-request
// noise, so only what ends the process; netpoll, whose log hertz
// discards, only its failed accepts, at most one a second (acceptLog).
func quietLogs() {
	hlog.SetLevel(hlog.LevelFatal)
	netpoll.SetLoggerOutput(&acceptLog{w: os.Stderr})
}

// acceptLog passes on netpoll's lines about failed accepts (out of file
// descriptors, netpoll stops accepting and retries after a pause of up
// to a second) at most once a second, and drops its other lines: one for
// each connection it takes once it recovers, for one.
type acceptLog struct {
	mu   sync.Mutex
	w    io.Writer
	last time.Time // when the last line went out
}

func (l *acceptLog) Write(p []byte) (int, error) {
	if !bytes.Contains(p, []byte("accept conn failed")) {
		return len(p), nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if now := time.Now(); now.Sub(l.last) >= time.Second {
		l.last = now
		l.w.Write(p)
	}
	return len(p), nil
}
