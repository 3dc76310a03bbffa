//go:build linux

package proc

import (
	"errors"
	"io/fs"
	"os"
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

// TestParseCPUID reads the first processor's identity, and leaves a field
// the file lacks empty rather than taking the next processor's.
func TestParseCPUID(t *testing.T) {
	for file, want := range map[string]CPUID{
		"testdata/cpuinfo/intel.txt":  {Vendor: "GenuineIntel", Family: "6", Model: "143", Stepping: "8", Microcode: "0xffffffff"},
		"testdata/cpuinfo/amd-vm.txt": {Vendor: "AuthenticAMD", Family: "26", Model: "2", Stepping: "1"},
	} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if got := ParseCPUID(b); got != want {
			t.Errorf("%s: %+v, want %+v", file, got, want)
		}
	}
	if got := ParseCPUID([]byte("processor\t: 0\n")); got != (CPUID{}) {
		t.Errorf("no fields: %+v", got)
	}
}
