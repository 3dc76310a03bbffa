package serve

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"hellobench/page"
)

// argsEnv carries, to the test binary run again as a server's main, the
// command line that main parses.
const argsEnv = "SERVE_TEST_ARGS"

// TestMain runs as a server's main on HTTPFlags when argsEnv is set: it
// parses the command line in argsEnv, takes no arguments after the flags,
// and prints the values parsed.
func TestMain(m *testing.M) {
	args, ok := os.LookupEnv(argsEnv)
	if !ok {
		os.Exit(m.Run())
	}
	os.Args = append([]string{"nethttp"}, strings.Fields(args)...)
	var work page.Work
	f := HTTPFlags("nethttp", ":8080", "net/http", &work)
	f.Parse()
	Exit("nethttp", NoArgs())
	fmt.Printf("addr %s header %v idle %v bare %v tls %v h2c %v work %v\n",
		f.Addr, f.HeaderTimeout, f.IdleTimeout, f.Bare, f.TLS != nil, f.H2C, work.CPU)
	os.Exit(0)
}

// run runs the test binary as a server's main with args, and returns its
// exit status, stdout and stderr.
func run(t *testing.T, args string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), argsEnv+"="+args)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, stdout.String(), stderr.String()
	case errors.As(err, &exit):
		return exit.ExitCode(), stdout.String(), stderr.String()
	}
	t.Fatalf("%q: %v", args, err)
	return 0, "", ""
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		args         string
		code         int
		stdout       string
		stderr       string
		stderrPrefix string // when the exact message is another package's
	}{
		{args: "", stdout: "addr :8080 header 10s idle 1m0s bare false tls false h2c false work 0s\n"},
		{args: "-addr :0 -header-timeout 2s -idle-timeout 3s -bare -h2c -work-cpu 1ms",
			stdout: "addr :0 header 2s idle 3s bare true tls false h2c true work 1ms\n"},
		// Every bad flag is named, each on a line of its own.
		{args: "-header-timeout 0 -work-cpu -1ms", code: 2,
			stderr: "nethttp: -header-timeout 0s: must be positive\n" +
				"nethttp: -work-cpu -1ms: want 0 to " + page.MaxWork.String() + "\n"},
		{args: "-bare extra", code: 2, stderr: "nethttp: unexpected arguments [\"extra\"]\n"},
		{args: "-h3", code: 2,
			stderr: "nethttp: -h3: needs -tls-cert and -tls-key, as HTTP/3 runs over QUIC, which is TLS 1.3\n"},
		// A certificate that does not load is the one error: -h3 has
		// nothing to add.
		{args: "-tls-cert missing.pem -tls-key missing.pem -h3", code: 2, stderrPrefix: "nethttp: "},
	} {
		code, stdout, stderr := run(t, tc.args)
		if code != tc.code || stdout != tc.stdout {
			t.Errorf("%q: exit %d, stdout %q; want %d, %q", tc.args, code, stdout, tc.code, tc.stdout)
		}
		switch {
		case tc.stderrPrefix != "":
			if !strings.HasPrefix(stderr, tc.stderrPrefix) || strings.Count(stderr, "\n") != 1 || strings.Contains(stderr, "-h3") {
				t.Errorf("%q: stderr %q, want one line starting %q, not about -h3", tc.args, stderr, tc.stderrPrefix)
			}
		case stderr != tc.stderr:
			t.Errorf("%q: stderr %q, want %q", tc.args, stderr, tc.stderr)
		}
	}
}

// TestServer serves through Server, guarded and bare, and checks what it
// adds to the handler: the Server header on every answer, and the guard's
// 505 to a version net/http would serve as 1.1.
func TestServer(t *testing.T) {
	for _, bare := range []bool{false, true} {
		t.Run(fmt.Sprintf("bare=%v", bare), func(t *testing.T) {
			f := &Flags{Name: "stack", HeaderTimeout: time.Second, IdleTimeout: time.Second, Bare: bare}
			mux := http.NewServeMux()
			mux.HandleFunc("GET /ok", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })
			srv := Server(f, mux)
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			go srv.Serve(ln)
			defer srv.Close()

			want505 := 404
			if !bare {
				want505 = 505
			}
			for _, tc := range []struct {
				req    string
				status int
			}{
				{"GET /ok HTTP/1.1\r\nHost: h\r\n\r\n", 200},
				{"GET /nothing HTTP/1.1\r\nHost: h\r\n\r\n", 404},
				{"GET /nothing HTTP/1.2\r\nHost: h\r\n\r\n", want505},
			} {
				c, err := net.Dial("tcp", ln.Addr().String())
				if err != nil {
					t.Fatal(err)
				}
				c.SetDeadline(time.Now().Add(5 * time.Second))
				c.Write([]byte(tc.req))
				resp, err := http.ReadResponse(bufio.NewReader(c), nil)
				c.Close()
				if err != nil {
					t.Fatalf("%q: %v", tc.req, err)
				}
				if resp.StatusCode != tc.status || resp.Header.Get("Server") != "stack" {
					t.Errorf("%q: %d, Server %q; want %d, %q", tc.req, resp.StatusCode, resp.Header.Get("Server"), tc.status, "stack")
				}
			}
		})
	}
}
