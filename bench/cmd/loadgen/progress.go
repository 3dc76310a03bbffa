package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// progress prints ab's "Completed N requests" lines every tenth of the run,
// or one live line when stderr is a terminal.
type progress struct {
	w     io.Writer
	live  bool
	n     int64         // requests of the run, 0 when run by duration
	d     time.Duration // duration of the run, when by duration
	step  int64         // ab's heartbeat: a line every step requests
	next  int64         // next line at this count (or tenth of the duration)
	start time.Time
	shown bool
}

func newProgress(w io.Writer, n int, d time.Duration) *progress {
	p := &progress{w: w, n: int64(n), d: d, start: time.Now()}
	if f, ok := w.(*os.File); ok {
		_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
		p.live = err == nil
	}
	// As ab: a line every 10% of the requests, but not more often than every
	// 100, and none for 150 requests or fewer.
	if n > 150 {
		p.step = max(int64(n)/10, 100)
		p.next = p.step
	} else if n == 0 {
		p.next = 1
	}
	return p
}

// update is Config.Progress: it runs on the engine's progress goroutine.
func (p *progress) update(done int64) {
	if p.live {
		el := time.Since(p.start).Seconds()
		fmt.Fprintf(p.w, "\rCompleted %d requests, %.0f [#/sec], %.1f s ", done, float64(done)/max(el, 1e-9), el)
		p.shown = true
		return
	}
	switch {
	case p.step > 0:
		for p.next <= done && p.next <= p.n {
			fmt.Fprintf(p.w, "Completed %d requests\n", p.next)
			p.next += p.step
		}
	case p.n == 0 && p.d > 0:
		for p.next <= 10 && time.Since(p.start) >= p.d*time.Duration(p.next)/10 {
			if p.next < 10 {
				fmt.Fprintf(p.w, "Completed %d requests\n", done)
			}
			p.next++
		}
	}
}

// finish prints ab's last line.
func (p *progress) finish(done int64) {
	if p.live && p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
	if p.live || p.step > 0 || p.n == 0 {
		fmt.Fprintf(p.w, "Finished %d requests\n", done)
	}
}
