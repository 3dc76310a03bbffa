package conformance

import (
	"errors"
	"path/filepath"
	"testing"

	"hellobench/internal/proc"
	"hellobench/internal/testnet"
)

// TestTimeoutFlags runs every Go server the table starts directly (those
// with GoRuntime, which it gives -header-timeout and -idle-timeout) with
// each flag zero or negative, which would turn the stack's timeout off:
// each must exit 2, the flag package's status for bad usage, with one line
// on stderr naming the flag and its value, and nothing on stdout. Its
// -addr is a held port (testnet.Refusing): a server that went on to listen
// would fail to bind and exit 1, with another line, so exit 2 and the
// line also say that it refused the flag before it listened. (fcgi's
// application takes neither flag: lighttpd's timeouts come from serve.sh.)
func TestTimeoutFlags(t *testing.T) {
	for _, tg := range servers {
		if !tg.GoRuntime {
			continue
		}
		t.Run(tg.Name, func(t *testing.T) {
			t.Parallel()
			addr := testnet.Refusing(t)
			for _, flag := range []string{"-header-timeout", "-idle-timeout"} {
				for _, value := range []string{"-1s", "0s"} {
					stdout, _, err := proc.Run(proc.Spec{
						Name: tg.Name, Path: filepath.Join(binDir, tg.Name),
						Args: []string{"-addr", addr, flag, value},
					})
					want := tg.Name + ": " + flag + " " + value + ": must be positive"
					var ee *proc.ExitError
					if !errors.As(err, &ee) || ee.Code != 2 || ee.Stderr != want || len(stdout) > 0 {
						t.Errorf("%s %s: %v, stdout %q; want exit 2, stderr the one line %q", flag, value, err, stdout, want)
					}
				}
			}
		})
	}
}
