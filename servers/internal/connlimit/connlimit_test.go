package connlimit

import (
	"bytes"
	"log"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestAcquire(t *testing.T) {
	l := &Limit{name: "test", max: 2}
	for i := range 2 {
		if !l.Acquire() {
			t.Fatalf("Acquire refused connection %d, below the maximum", i+1)
		}
	}
	if l.Acquire() {
		t.Fatal("Acquire took a third connection, maximum 2")
	}
	if n := l.Open(); n != 2 {
		t.Errorf("Open() = %d after two acquired, want 2", n)
	}
	l.Release()
	if !l.Acquire() {
		t.Error("Acquire refused after a Release")
	}
	unlimited := &Limit{name: "test"}
	for range 1000 {
		if !unlimited.Acquire() {
			t.Fatal("Acquire refused with no maximum")
		}
	}
}

func TestNew(t *testing.T) {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &rl); err != nil || rl.Cur == unix.RLIM_INFINITY {
		t.Skip("no finite open-file limit")
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip(err)
	}
	// ReadDir's own descriptor is counted while it reads, and no more.
	want := int64(rl.Cur) - int64(len(ents)) - 10
	if got := New("test", 10).Max(); got < want-1 || got > want+1 {
		t.Errorf("Max() = %d, want %d±1 (limit %d, %d open, 10 spare)", got, want, rl.Cur, len(ents))
	}
	if got := New("test", int(rl.Cur)+5).Max(); got != 1 {
		t.Errorf("Max() = %d with more spare than the limit, want 1", got)
	}
}

func TestReport(t *testing.T) {
	var buf bytes.Buffer
	log.SetOutput(&buf)
	log.SetFlags(0)
	defer log.SetOutput(os.Stderr)
	defer log.SetFlags(log.LstdFlags)

	l := &Limit{name: "test", max: 7}
	now := time.Unix(1000, 0)
	l.Report(now) // nothing refused: nothing to say
	for range 3 {
		l.Refuse()
	}
	l.Report(now)
	l.Refuse()
	l.Report(now.Add(500 * time.Millisecond)) // within the second: held
	if n := l.Refused(); n != 1 {
		t.Errorf("Refused() = %d after a report and one more, want 1", n)
	}
	l.Report(now.Add(time.Second))
	want := "test: at the open-file limit (7 connections): closed 3 new connections on arrival\n" +
		"test: at the open-file limit (7 connections): closed 1 new connections on arrival\n"
	if got := buf.String(); got != want {
		t.Errorf("log:\n%s\nwant:\n%s", got, want)
	}
}
