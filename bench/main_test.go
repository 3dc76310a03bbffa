package bench

import (
	"testing"
	"time"

	"hellobench/internal/proc"
)

// TestMain stops every server and client the tests started when the run
// is interrupted, or when go test, its parent, dies.
func TestMain(m *testing.M) {
	proc.Handle("bench tests", 2*time.Second, nil)
	proc.Exit(m.Run())
}
