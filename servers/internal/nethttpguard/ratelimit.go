package nethttpguard

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"time"
)

// A RateLimited writer writes at most one log line per interval: the
// latest, with the count of the lines it stands for. net/http logs every
// failed Accept: out of file descriptors, that is a line each few
// milliseconds while it backs off and keeps serving.
type RateLimited struct {
	mu     sync.Mutex
	w      io.Writer
	every  time.Duration
	last   time.Time   // when the last line went out
	held   []byte      // the latest line not yet written
	n      int         // lines since the last one written, held included
	report *time.Timer // writes the held line when the interval is over
}

func NewRateLimited(w io.Writer, every time.Duration) *RateLimited {
	return &RateLimited{w: w, every: every}
}

// Write takes p, one line of a log.Logger, and writes it now if the
// interval since the last line is over, or else at its end.
func (r *RateLimited) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.held = append(r.held[:0], p...)
	r.n++
	if wait := r.every - time.Since(r.last); wait > 0 {
		if r.report == nil {
			r.report = time.AfterFunc(wait, r.flush)
		}
		return len(p), nil
	}
	return len(p), r.writeHeld()
}

func (r *RateLimited) flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.report = nil
	if r.n > 0 {
		r.writeHeld()
	}
}

// writeHeld writes the held line, saying how many lines it stands for.
func (r *RateLimited) writeHeld() error {
	if r.report != nil {
		r.report.Stop()
		r.report = nil
	}
	line, n := r.held, r.n
	r.last, r.n = time.Now(), 0
	if n == 1 {
		_, err := r.w.Write(line)
		return err
	}
	_, err := fmt.Fprintf(r.w, "%s (the last of %d such lines in %v)\n", bytes.TrimSuffix(line, []byte("\n")), n, r.every)
	return err
}
