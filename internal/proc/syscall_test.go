//go:build linux

package proc

import (
	"strings"
	"testing"
)

// TestSyscallCost: a system call takes some time, and less than a
// millisecond; the thread's CPU set is restored after.
func TestSyscallCost(t *testing.T) {
	d, err := SyscallCost(0, 3, 10000)
	if err != nil {
		t.Fatal(err)
	}
	if d <= 0 || d.Milliseconds() >= 1 {
		t.Errorf("one getppid took %v", d)
	}
	for _, m := range Mitigations() {
		if name, state, ok := strings.Cut(m, ": "); !ok || name == "" || state == "" || state == "Not affected" {
			t.Errorf("mitigation entry %q", m)
		}
	}
}
