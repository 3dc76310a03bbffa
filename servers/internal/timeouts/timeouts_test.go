package timeouts

import (
	"testing"
	"time"
)

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		header, idle time.Duration
		want         string // "": no error
	}{
		{10 * time.Second, 60 * time.Second, ""},
		{time.Nanosecond, time.Nanosecond, ""},
		{-time.Second, time.Second, "-header-timeout -1s: must be positive"},
		{0, time.Second, "-header-timeout 0s: must be positive"},
		{time.Second, -time.Second, "-idle-timeout -1s: must be positive"},
		{time.Second, 0, "-idle-timeout 0s: must be positive"},
		{0, -time.Millisecond, "-header-timeout 0s: must be positive; -idle-timeout -1ms: must be positive"},
	} {
		got := ""
		if err := Check(c.header, c.idle); err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("Check(%v, %v) = %q, want %q", c.header, c.idle, got, c.want)
		}
	}
}
