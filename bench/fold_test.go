package bench

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// perfScript is perf script's output (-F comm,tid,period,ip,sym,dso) of
// three samples as perf 6.1 prints them: a Go write down into the
// kernel, the same stack again, and nginx in code without symbols, three
// unnamed frames that fold into one.
const perfScript = `nethttp    4242     100000 
	ffffffffa1c0 tcp_sendmsg ([kernel.kallsyms])
	ffffffffa0b0 do_syscall_64 ([kernel.kallsyms])
	          4a1b2c syscall.Syscall (/srv/bin/nethttp)
	          4a0000 main.hello (/srv/bin/nethttp)
	          401000 runtime.goexit.abi0 (/srv/bin/nethttp)

nethttp    4242     100000 
	ffffffffa1c0 tcp_sendmsg ([kernel.kallsyms])
	ffffffffa0b0 do_syscall_64 ([kernel.kallsyms])
	          4a1b2c syscall.Syscall (/srv/bin/nethttp)
	          4a0000 main.hello (/srv/bin/nethttp)
	          401000 runtime.goexit.abi0 (/srv/bin/nethttp)

nginx    4300     100000 
	          55aa10 [unknown] (/usr/sbin/nginx)
	          55aa20 [unknown] (/usr/sbin/nginx)
	          55aa30 [unknown] (/usr/sbin/nginx)
	          7f0010 operator new(unsigned long) (/usr/lib/libstdc++.so.6)
	               0 [unknown] ([unknown])

`

func TestFoldPerf(t *testing.T) {
	got, err := FoldPerf(strings.NewReader(perfScript))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{
		"runtime.goexit.abi0;main.hello;syscall.Syscall;do_syscall_64_[k];tcp_sendmsg_[k]": 2,
		"[unknown];operator_new(unsigned_long);[nginx]":                                    1,
	}
	if !maps.Equal(got, want) {
		t.Errorf("folded %v, want %v", got, want)
	}
	if _, err := FoldPerf(strings.NewReader("nethttp 1 100000\n\tnot a frame\n")); err == nil || !strings.Contains(err.Error(), `a frame "not a frame", not address symbol (object)`) {
		t.Errorf("a bad frame: error %v", err)
	}
}

func TestFoldedRoundTrip(t *testing.T) {
	want := map[string]int64{"a;b;c": 7, "a;d_[k]": 1, "e": 0}
	file := filepath.Join(t.TempDir(), "x.folded.gz")
	if err := WriteFolded(file, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFolded(file)
	if err != nil || !maps.Equal(got, want) {
		t.Fatalf("read back %v, %v; want %v", got, err, want)
	}
	plain := filepath.Join(t.TempDir(), "x.folded")
	os.WriteFile(plain, []byte("a;b 3\na;b 2\nbroken line\n"), 0o644)
	if _, err := ReadFolded(plain); err == nil || !strings.Contains(err.Error(), `x.folded:3: "broken line" is not a folded stack`) {
		t.Errorf("a bad line: error %v", err)
	}
	if got := ProfileFile("nethttp", "of=25%"); got != "nethttp_of25.folded.gz" {
		t.Errorf("ProfileFile: %q", got)
	}
}
