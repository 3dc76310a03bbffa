package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
)

// TestMain runs the command itself when asked: a run against a server in
// this process is made from a child, because the command's event loop may
// hold the only P (Config.Solo) while the server needs it.
func TestMain(m *testing.M) {
	if os.Getenv("LOADGEN_TEST_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// runChild runs the command in a child process.
func runChild(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "LOADGEN_TEST_MAIN=1")
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), o.String(), e.String()
}

func runCLI(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

// oneLine checks that stderr is one line starting with "loadgen: ".
func oneLine(t *testing.T, args []string, code int, stderr string, wantCode int, want string) {
	t.Helper()
	if code != wantCode {
		t.Errorf("%q: exit %d, want %d; stderr %q", args, code, wantCode, stderr)
	}
	if !strings.HasPrefix(stderr, "loadgen: ") || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, want) {
		t.Errorf("%q: stderr %q, want one line with %q", args, stderr, want)
	}
}

func TestErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{}, 2, "no URL"},
		{[]string{"-x", "http://127.0.0.1/"}, 2, "flag provided but not defined: -x"},
		{[]string{"-n", "ten", "http://127.0.0.1/"}, 2, "invalid value"},
		{[]string{"-n", "0", "http://127.0.0.1/"}, 2, "invalid number of requests"},
		{[]string{"-c", "5", "-n", "2", "http://127.0.0.1/"}, 2, "greater than total number of requests"},
		{[]string{"-pipeline", "4", "http://127.0.0.1/"}, 2, "-pipeline needs -k"},
		{[]string{"-d", "soon", "http://127.0.0.1/"}, 2, "invalid duration"},
		{[]string{"-warmup", "x", "http://127.0.0.1/"}, 2, "invalid -warmup"},
		{[]string{"http://127.0.0.1/", "http://127.0.0.2/"}, 2, "more than one URL"},
		{[]string{"-engine", "kqueue", "http://127.0.0.1/"}, 2, "invalid -engine"},
		{[]string{"-c5", "-n2", "http://127.0.0.1/"}, 2, "greater than total number of requests"},
		{[]string{"-kx", "http://127.0.0.1/"}, 2, "flag provided but not defined: -kx"},
		{[]string{"not a url"}, 1, "invalid URL"},
		{[]string{"http://%zz/"}, 1, "invalid URL"},
		{[]string{"https://127.0.0.1/"}, 1, "https is not supported"},
		{[]string{"http://127.0.0.1:1/"}, 1, "connect 127.0.0.1:1: connection refused"},
		{[]string{"-k", "-n", "10", "http://" + closed + "/"}, 1, "connect " + closed + ": connection refused"},
	} {
		code, stdout, stderr := runCLI(tc.args...)
		oneLine(t, tc.args, code, stderr, tc.code, tc.want)
		if stdout != "" {
			t.Errorf("%q: stdout %q", tc.args, stdout)
		}
	}
}

func TestRun(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte("hello"))
	}))
	defer srv.Close()

	// ab's joined form of an option and its value, -n300.
	code, stdout, stderr := runChild(t, "-n300", "-c", "3", "-k", srv.URL+"/x")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"Complete requests:      300\n", "Document Length:        5 bytes\n", "Keep-Alive requests:    300\n", "(µs)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}
	// ab's progress: every 10% of the requests, at least 100 apart.
	for _, want := range []string{"Completed 100 requests\n", "Completed 300 requests\n", "Finished 300 requests\n"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if hits.Load() != 300 {
		t.Errorf("server got %d requests, want 300", hits.Load())
	}

	// Warm-up, options after the URL, JSON of three runs.
	hits.Store(0)
	code, stdout, stderr = runChild(t, "-k", "-warmup", "50", srv.URL+"/x", "-n", "100", "-repeat", "3", "-json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var j struct {
		Complete int64
		Runs     []struct{ Complete int64 }
	}
	if err := json.Unmarshal([]byte(stdout), &j); err != nil {
		t.Fatalf("%v: %q", err, stdout)
	}
	if j.Complete != 100 || len(j.Runs) != 3 {
		t.Errorf("JSON: %+v", j)
	}
	if hits.Load() != 50+300 {
		t.Errorf("server got %d requests, want 350", hits.Load())
	}

	// The text report of several runs ends with the spread.
	code, stdout, _ = runChild(t, "-k", "-n", "20", "-repeat", "2", srv.URL+"/x")
	if code != 0 || !strings.Contains(stdout, "Runs (the report above is the median run") || !strings.Contains(stdout, "Spread:") {
		t.Errorf("exit %d, report:\n%s", code, stdout)
	}
}
