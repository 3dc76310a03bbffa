package conformance

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"hellobench/internal/deps"
	"hellobench/internal/targets"
	"hellobench/page"
)

// requireTool returns the path of a client program, or skips the test with
// the reason; with HELLOBENCH_REQUIRE_TOOLS=1 (as in CI) a missing tool fails.
func requireTool(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	msg := deps.NotInstalled(name) + ": test skipped"
	if os.Getenv("HELLOBENCH_REQUIRE_TOOLS") == "1" {
		t.Fatal(msg + ", but HELLOBENCH_REQUIRE_TOOLS=1")
	}
	t.Skip(msg)
	return ""
}

// requireInstalled skips a test whose server needs a program that is not
// installed (targets.ErrMissing), or fails it under HELLOBENCH_REQUIRE_TOOLS=1.
func requireInstalled(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, targets.ErrMissing) {
		return
	}
	if os.Getenv("HELLOBENCH_REQUIRE_TOOLS") == "1" {
		t.Fatalf("%v: but HELLOBENCH_REQUIRE_TOOLS=1", err)
	}
	t.Skip(err)
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	ctx := t.Context()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.WaitDelay = time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %q: %v\n%s", name, args, err, out)
	}
	return string(out)
}

// field returns the first submatch of re in out, or fails.
func field(t *testing.T, out string, re string) string {
	t.Helper()
	m := regexp.MustCompile(re).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no %q in output:\n%s", re, out)
	}
	return m[1]
}

// TestClients runs curl, ab and wrk, none of them written here, against
// every target.
func TestClients(t *testing.T) {
	for _, tg := range servers {
		t.Run(tg.Name, func(t *testing.T) {
			t.Parallel()
			p := tg.start(t, "", 10*time.Second, 60*time.Second)
			url := "http://" + p.addr + page.Path
			t.Run("curl", func(t *testing.T) {
				curl := requireTool(t, "curl")
				body := filepath.Join(t.TempDir(), "body")
				out := run(t, curl, "-sS", "--http1.1", "-o", body, "-w", "%{http_code} %header{content-type} %header{server}", url+"?from=curl")
				want := "200 " + page.ContentType + " " + tg.ServerHeader
				if len(out) < len(want) || out[:len(want)] != want {
					t.Errorf("curl GET: %q, want prefix %q", out, want)
				}
				got, err := os.ReadFile(body)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, page.HTML) {
					t.Errorf("curl GET: body %q differs from the page", got)
				}
				if out := run(t, curl, "-sS", "-I", "-o", "/dev/null", "-w", "%{http_code} %header{content-length}", url); out != "200 257" {
					t.Errorf("curl HEAD: %q, want %q", out, "200 257")
				}
				if out := run(t, curl, "-sS", "-X", "POST", "-d", "x=1", "-o", "/dev/null", "-w", "%{http_code} %header{allow}", url); out != "405 "+page.Allow {
					t.Errorf("curl POST: %q, want %q", out, "405 "+page.Allow)
				}
				if out := run(t, curl, "-sS", "-o", "/dev/null", "-w", "%{http_code}", "http://"+p.addr+"/nope"); out != "404" {
					t.Errorf("curl GET /nope: %q, want 404", out)
				}
			})
			for _, keepAlive := range []bool{false, true} {
				name := "ab"
				args := []string{"-n", "2000", "-c", "50"}
				if keepAlive {
					name, args = "ab-k", append(args, "-k")
				}
				t.Run(name, func(t *testing.T) {
					ab := requireTool(t, "ab")
					out := run(t, ab, append(args, url)...)
					checks := map[string]string{
						`Complete requests:\s+(\d+)`:     "2000",
						`Failed requests:\s+(\d+)`:       "0",
						`Document Length:\s+(\d+) bytes`: strconv.Itoa(page.Size),
					}
					if keepAlive {
						checks[`Keep-Alive requests:\s+(\d+)`] = "2000"
					}
					for re, want := range checks {
						if got := field(t, out, re); got != want {
							t.Errorf("ab %v: %s = %s, want %s\n%s", args, re, got, want, out)
						}
					}
					if regexp.MustCompile(`Non-2xx responses`).MatchString(out) {
						t.Errorf("ab %v reports non-2xx responses:\n%s", args, out)
					}
				})
			}
			t.Run("wrk", func(t *testing.T) {
				wrk := requireTool(t, "wrk")
				out := run(t, wrk, "-t1", "-c20", "-d1s", url)
				if regexp.MustCompile(`Socket errors|Non-2xx`).MatchString(out) {
					t.Errorf("wrk reports errors:\n%s", out)
				}
				n, _ := strconv.Atoi(field(t, out, `(\d+) requests in`))
				if n < 100 {
					t.Errorf("wrk completed %d requests in 1s, want at least 100:\n%s", n, out)
				}
			})
		})
	}
}
