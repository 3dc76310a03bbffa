package conformance

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hellobench/internal/targets"
	"hellobench/page"
)

// TestContractWork runs the contract again with handler work on in every
// server that takes it: a little CPU and a short wait, so that gnet answers
// from its pool of goroutines, and gnet once more waiting on its loop. The
// work must change no answer. Date-refreshed and the timeouts, which take
// seconds of sleep each, are left to TestContract, so that this adds about
// a second per server; gnet's deadlines around a wait are tested in
// servers/gnet (TestWorkWaitOutlivesTimeouts).
func TestContractWork(t *testing.T) {
	w := page.Work{CPU: 20 * time.Microsecond, Wait: time.Millisecond}
	for _, tg := range servers {
		if !tg.Work {
			continue
		}
		for _, inline := range []bool{false, true} {
			if inline && !tg.WaitInline {
				continue
			}
			name := tg.Name
			if inline {
				name += "/inline"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				p := tg.startEnv(t, targets.Env{HeaderTimeout: headerTimeout, IdleTimeout: idleTimeout, Work: w, WaitInline: inline})
				contract(t, &suite{tg: tg, p: p}, "date-refreshed", "timeouts")
				t.Run("waited", func(t *testing.T) {
					// A connection's requests are answered in turn, so n
					// pipelined ones take n waits at least.
					const n = 10
					c := dial(t, p.addr)
					start := time.Now()
					c.send(strings.Repeat(req("GET", page.Path), n))
					for range n {
						c.read("GET")
					}
					if d := time.Since(start); d < n*w.Wait {
						t.Errorf("%d pipelined requests answered in %v, under %d waits of %v: the work is not done", n, d, n, w.Wait)
					}
				})
			})
		}
	}
}

// TestWorkFlags runs every server binary with handler work out of range or
// unparsable: each exits 2 with a first line naming the flag, and for a
// value out of range with that line alone. Its usage says both flags
// default to none.
func TestWorkFlags(t *testing.T) {
	for _, tg := range servers {
		if !tg.Work {
			continue
		}
		t.Run(tg.Name, func(t *testing.T) {
			t.Parallel()
			bin := filepath.Join(binDir, tg.Name)
			for _, tc := range []struct {
				args []string
				line string
				only bool // the one line, no usage after it
			}{
				{[]string{"-work-cpu", "-1ms"}, tg.Name + ": -work-cpu -1ms: want 0 to 10s", true},
				{[]string{"-work-wait", "11s"}, tg.Name + ": -work-wait 11s: want 0 to 10s", true},
				{[]string{"-work-cpu", "nonsense"}, `invalid value "nonsense" for flag -work-cpu: parse error`, false},
			} {
				code, out := exitWith(t, bin, tc.args...)
				first, rest, _ := strings.Cut(out, "\n")
				if code != 2 || first != tc.line || (tc.only && rest != "") {
					t.Errorf("%q: exit %d, output:\n%s\nwant exit 2 and the line %q%s", tc.args, code, out, tc.line,
						map[bool]string{true: " alone"}[tc.only])
				}
			}
			// The flag package adds "(default ...)" to a flag whose default
			// is not the zero value.
			code, out := exitWith(t, bin, "-h")
			for _, want := range []string{
				"  -work-cpu duration\n    \tCPU time the handler burns before it answers (0: none)\n",
				"  -work-wait duration\n    \ttime the handler waits, using no CPU, before it answers (0: none)\n",
			} {
				if code != 0 || !strings.Contains(out, want) {
					t.Errorf("-h: exit %d, no %q in:\n%s", code, want, out)
				}
			}
		})
	}
}

// exitWith runs the binary with args and returns its exit status and
// output; it must exit within 10 s.
func exitWith(t *testing.T, bin string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case ctx.Err() != nil:
		t.Fatalf("%s %q still running after 10 s: it took the flags\n%s", bin, args, out)
	case errors.As(err, &exit):
		return exit.ExitCode(), string(out)
	default:
		t.Fatalf("%s %q: %v", bin, args, err)
	}
	return 0, ""
}
