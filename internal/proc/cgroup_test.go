//go:build linux

package proc

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
	"time"
)

// TestReadCpuacctSplit reads a cgroup v1 group's user and kernel time
// from files as the kernel writes them, one count of ns and a newline.
func TestReadCpuacctSplit(t *testing.T) {
	user, sys, err := readCpuacctSplit("testdata/cpuacct/group")
	if err != nil {
		t.Fatal(err)
	}
	if user != 1310*time.Millisecond || sys != 1080*time.Millisecond {
		t.Errorf("user %v sys %v, want 1.31s and 1.08s", user, sys)
	}
	total, err := readCpuacct("testdata/cpuacct/group")
	if err != nil {
		t.Fatal(err)
	}
	if total != 2400731194 {
		t.Errorf("usage %d ns, want 2400731194", total)
	}
}

// TestReadCpuacctSplitBad: a count that is not one is an error naming
// the file; a kernel without the files has no split, fs.ErrNotExist.
func TestReadCpuacctSplitBad(t *testing.T) {
	_, _, err := readCpuacctSplit("testdata/cpuacct/bad")
	if err == nil || !strings.Contains(err.Error(), "cpuacct.usage_sys") || !strings.Contains(err.Error(), `"n/a"`) {
		t.Errorf("err = %v, want one naming cpuacct.usage_sys and its text", err)
	}
	if _, _, err := readCpuacctSplit("testdata/cpuacct/old"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("err = %v, want fs.ErrNotExist", err)
	}
}
