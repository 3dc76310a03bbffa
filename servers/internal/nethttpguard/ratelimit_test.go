package nethttpguard

import (
	"log"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuilder is a strings.Builder the timer's goroutine may write to.
type syncBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuilder) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuilder) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestRateLimited(t *testing.T) {
	const every = 500 * time.Millisecond
	var out syncBuilder
	l := log.New(NewRateLimited(&out, every), "x: ", 0)
	for i := range 50 {
		l.Printf("accept error %d", i)
	}
	if got := out.String(); got != "x: accept error 0\n" {
		t.Fatalf("a burst of 50 lines wrote %q at once, want the first only", got)
	}
	// The rest goes out as one line once the interval is over.
	want := "x: accept error 0\nx: accept error 49 (the last of 49 such lines in 500ms)\n"
	for deadline := time.Now().Add(5 * time.Second); out.String() != want && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if got := out.String(); got != want {
		t.Fatalf("after the interval: wrote %q, want %q", got, want)
	}
	// A line after a quiet interval goes out at once, as it is.
	time.Sleep(every + 100*time.Millisecond)
	l.Print("other")
	if got := out.String(); got != want+"x: other\n" {
		t.Fatalf("a line after a quiet interval: wrote %q", got)
	}
}
