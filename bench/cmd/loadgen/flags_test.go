package main

import (
	"strings"
	"testing"
	"time"
)

// check lists every bad flag at once, a line each naming the flag and its
// value, and parse prints them as lines of their own with exit 2.
func TestCheckListsEveryProblem(t *testing.T) {
	args := []string{"-n", "0", "-c", "-3", "-pipeline", "0", "-repeat", "0", "-i", "-m", "POST",
		"-t", "5", "-d", "soon", "-units", "s", "-rate", "-5", "-engine", "kqueue", "-s", "NaN",
		"-o", "x.hlog", "-warmup", "x", "-start-at", "tomorrow", "http://127.0.0.1/", "http://127.0.0.2/"}
	want := []string{
		"more than one URL: \"http://127.0.0.1/\" and \"http://127.0.0.2/\"",
		"invalid number of requests -n 0",
		"invalid concurrency -c -3",
		"invalid pipeline depth -pipeline 0",
		"invalid -repeat 0",
		"-i and -m both set the method; give one",
		"-t and -d both limit the time; give one",
		"invalid -units \"s\" (µs or ms)",
		"invalid rate -5: -rate wants",
		"invalid engine \"kqueue\": -engine wants io_uring or epoll",
		"invalid timeout -s NaN",
		"invalid duration -d \"soon\"",
		"invalid -start-at \"tomorrow\"",
		"invalid -warmup \"x\"",
	}
	f, err := readFlags(args)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.check(time.Now())
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != len(want) {
		t.Errorf("%d problems, want %d:\n%v", len(lines), len(want), err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("no %q in:\n%v", w, err)
		}
	}

	var stdout, stderr strings.Builder
	if o, code := parse(args, &stdout, &stderr, time.Now()); o != nil || code != 2 {
		t.Errorf("parse: options %v, exit %d; want nil and 2", o, code)
	}
	out := strings.TrimSuffix(stderr.String(), "\n")
	if got := strings.Split(out, "\n"); len(got) != len(lines) || stdout.Len() != 0 {
		t.Errorf("parse printed %d lines, want %d; stdout %q", len(got), len(lines), stdout.String())
	}
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "loadgen: ") {
			t.Errorf("line %q lacks the prefix loadgen: ", l)
		}
	}
}

// A Config problem (here, more connections than requests) is checked only
// once every flag is good: a bad flag would only confuse it.
func TestCheckValidatesLast(t *testing.T) {
	f, err := readFlags([]string{"-c", "5", "-n", "2", "-units", "s", "http://127.0.0.1/"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.check(time.Now()); err == nil || err.Error() != `invalid -units "s" (µs or ms)` {
		t.Errorf("got %v, want the -units problem alone", err)
	}
	f.units = "ms"
	if _, err := f.check(time.Now()); err == nil || !strings.Contains(err.Error(), "cannot use concurrency level 5 greater than total number of requests 2") {
		t.Errorf("got %v, want Validate's", err)
	}
}

func TestCheckGoodFlags(t *testing.T) {
	now := time.Now()
	start := now.Add(time.Minute).Truncate(time.Second)
	f, err := readFlags([]string{"-k", "-c50", "-d", "2", "-pipeline", "4", "-i", "-s", "1.5", "-H", "X-A: 1",
		"-warmup", "300", "-q", "-units", "ms", "-engine", "epoll", "http://127.0.0.1:8080/hello/world",
		"-start-at", start.Format(time.RFC3339)})
	if err != nil {
		t.Fatal(err)
	}
	o, err := f.check(now)
	if err != nil {
		t.Fatal(err)
	}
	c := o.cfg
	if c.URL != "http://127.0.0.1:8080/hello/world" || c.Concurrency != 50 || !c.KeepAlive || c.Pipeline != 4 ||
		c.Method != "HEAD" || c.Timeout != 1500*time.Millisecond || c.Duration != 2*time.Second || c.Requests != 0 ||
		c.Engine != "epoll" || len(c.Headers) != 1 || c.Headers[0] != "X-A: 1" || !c.StopOnReceiveError {
		t.Errorf("config %+v", c)
	}
	if !o.quiet || !o.ms || o.json || o.repeat != 1 || !o.startAt.Equal(start) {
		t.Errorf("options %+v", o)
	}
	// -warmup 300 runs 300 requests, at least one per connection, and its
	// failures do not stop it.
	if w := o.warm; w == nil || w.Requests != 300 || w.Duration != 0 || w.StopOnReceiveError || w.Concurrency != 50 {
		t.Errorf("warm-up %+v", o.warm)
	}

	// -t alone implies ab's 50 000 requests; -n keeps its own.
	for args, want := range map[string]int{"-t 3": 50000, "-t 3 -n 10": 10} {
		f, err := readFlags(append(strings.Fields(args), "http://127.0.0.1/"))
		if err != nil {
			t.Fatal(err)
		}
		o, err := f.check(now)
		if err != nil || o.cfg.Requests != want || o.cfg.Duration != 3*time.Second {
			t.Errorf("%s: %v, %+v; want %d requests in 3s", args, err, o, want)
		}
	}
}

// Each flag that does not go with -h3 or -h2, or needs one, is one line of
// its own and exit 2.
func TestCheckH3(t *testing.T) {
	const u = "https://127.0.0.1:8443/"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-h3", "http://127.0.0.1/"}, `-h3 needs an https:// URL, not "http://127.0.0.1/": QUIC is always TLS`},
		{[]string{"-h3", "-k", "-pipeline", "2", u}, "-pipeline has no meaning with -h3: HTTP/3 puts -streams requests in flight on a connection"},
		{[]string{"-h3", "-pipeline", "1", u}, "-pipeline has no meaning with -h3: HTTP/3 puts -streams requests in flight on a connection"},
		{[]string{"-h3", "-engine", "epoll", u}, "-engine has no meaning with -h3: HTTP/3 runs on quic-go's goroutines, not on an I/O engine of loadgen's"},
		{[]string{"-h3", "-rate", "100", "-spin", u}, "-spin has no meaning with -h3: quic-go's goroutines sleep until a request is due"},
		{[]string{"-h3", "-0rtt", u}, "-0rtt needs -resume: only a resumed TLS session carries a request in 0-RTT"},
		{[]string{"-h3", "-k", "-streams", "0", u}, "invalid number of streams -streams 0"},
		{[]string{"-k", "-streams", "4", u}, "-streams needs -h3 or -h2: over HTTP/1.1, -pipeline puts requests in flight on a connection"},
		{[]string{"-h2", "-h3", u}, "-h2 and -h3: give one"},
		{[]string{"-h2", "http://127.0.0.1/"}, `-h2 needs an https:// URL, not "http://127.0.0.1/": this client speaks HTTP/2 over TLS only`},
		{[]string{"-h2", "-k", "-pipeline", "2", u}, "-pipeline has no meaning with -h2: HTTP/2 puts -streams requests in flight on a connection"},
		{[]string{"-h2", "-engine", "epoll", u}, "-engine has no meaning with -h2: HTTP/2 runs on net/http's goroutines, not on an I/O engine of loadgen's"},
		{[]string{"-h2", "-resume", "-0rtt", u}, "-0rtt needs -h3: HTTP/2 over TCP has no 0-RTT here"},
		{[]string{"-h2", "-streams", "4", u}, "streams need keep-alive: without it a connection carries one request"},
		{[]string{"-resume", "-0rtt", u}, "-0rtt needs -h3 and -resume"},
		// Config.Validate's, once the flags are good.
		{[]string{"-h3", "-streams", "4", u}, "streams need keep-alive: without it a connection carries one request"},
		{[]string{"-h3", "-k", "-streams", "2000", u}, "invalid number of streams 2000 (1 to 1024)"},
		{[]string{"-h3", "-H", "Connection: close", u}, "header Connection has no place in HTTP/3 (RFC 9114, section 4.2)"},
	} {
		var stdout, stderr strings.Builder
		o, code := parse(tc.args, &stdout, &stderr, time.Now())
		if o != nil || code != 2 || stdout.Len() != 0 {
			t.Errorf("%q: options %v, exit %d, stdout %q; want nil, 2, nothing", tc.args, o, code, stdout.String())
		}
		if got, want := stderr.String(), "loadgen: "+tc.want+"\n"; got != want {
			t.Errorf("%q: stderr %q, want %q", tc.args, got, want)
		}
	}
}

func TestCheckH3Good(t *testing.T) {
	f, err := readFlags([]string{"-h3", "-k", "-streams", "8", "-resume", "-0rtt", "-c", "4", "-n", "100", "-i", "-rate", "500",
		"https://127.0.0.1:8443/hello/world"})
	if err != nil {
		t.Fatal(err)
	}
	o, err := f.check(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	c := o.cfg
	if !c.H3 || c.Streams != 8 || !c.Resume || !c.EarlyData || !c.KeepAlive || c.Concurrency != 4 || c.Requests != 100 ||
		c.Method != "HEAD" || c.Rate != 500 || c.Engine != "" || c.Pipeline != 1 {
		t.Errorf("config %+v", c)
	}
	// Without them, a run is HTTP/1.x as before.
	f, err = readFlags([]string{"-k", "https://127.0.0.1:8443/"})
	if err != nil {
		t.Fatal(err)
	}
	if o, err = f.check(time.Now()); err != nil || o.cfg.H3 || o.cfg.Streams != 1 || o.cfg.EarlyData {
		t.Errorf("%v, config %+v", err, o.cfg)
	}
}
