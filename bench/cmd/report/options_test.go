package main

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"
)

// parsed is report's options after args, and parse's error.
func parsed(args ...string) (*options, error) {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o := newOptions(fs)
	return o, o.parse(args)
}

// TestCheck checks that check names every problem, one line each, as
// make named those of AGAIN and PART.
func TestCheck(t *testing.T) {
	for _, c := range []struct {
		args string
		want string // the lines of the error; "" none
	}{
		{"", ""},
		{"-run -quick -out scratch", ""},
		{"-rounds 0 -for 0s -conn-rate -1", "-rounds must be positive, not 0\n-for must be positive, not 0s\n-conn-rate must be positive, not -1"},
		{"-tls-keepalive-kept -1 -tls-handshake-most 3", "-tls-keepalive-kept must not be negative, not -1\n-tls-handshake-most (3) must not be below -tls-handshake-blocks (12)"},
		{"-docs -quick", "-docs takes a full run's figures, not -quick's"},
		{"-out results x", `unexpected arguments ["x"] (the comparisons are subcommands: report agree DIR,DIR...)`},
		{"-again 2", "-again and -part take -make TARGET"},
		{"-make bench-nope", "-make bench-nope: no such target; bin/report runs bench, bench-ceilings, bench-profile, bench-sweep, bench-scale, bench-quick, bench-work, bench-latency, bench-load, bench-readiness, bench-tls"},
		{"-make bench -again= -part=", ""},
		{"-make bench -again=2", "make bench takes neither AGAIN nor PART"},
		{"-make bench-ceilings -again= -part=", ""},
		{"-make bench-ceilings -again=2 -part=json", ""},
		{"-make bench-ceilings -again= -part=json", "make bench-ceilings PART=json takes AGAIN=N: it measures make bench-ceilings's json blocks again"},
		{"-make bench-ceilings -again=1", "AGAIN=1: a number from 2 on, the invocation's number"},
		{"-make bench-tls -again=02", "AGAIN=02: a number from 2 on, the invocation's number"},
		{"-make bench-latency -again=two", "AGAIN=two: a number from 2 on, the invocation's number"},
		{"-make bench-work -again=2", "make bench-work takes no AGAIN"},
		{"-make bench-work -part=uring -again=2", "make bench-work PART=uring takes no AGAIN"},
		{"-make bench-load -part=why -again=2", "make bench-load PART=why takes no AGAIN"},
		{"-make bench-load -part=capacity -again=2", ""},
		{"-make bench-sweep -part=x", "make bench-sweep takes neither AGAIN nor PART"},
		{"-make bench-readiness -again=2", "make bench-readiness takes neither AGAIN nor PART"},
		{"-make bench-latency -part=x", "PART=x: bench-latency takes no PART"},
		{"-make bench-tls -part=rsa", "PART=rsa: bench-tls takes PART=keepalive|handshakes|h3"},
		{"-make bench-load -part=json -again=1", "PART=json: bench-load takes PART=at-load|capacity|why|newconn|min-wait\nAGAIN=1: a number from 2 on, the invocation's number"},
		{"-make bench-ceilings -again=1 -rounds 0 -docs -quick", "-rounds must be positive, not 0\n-docs takes a full run's figures, not -quick's\nAGAIN=1: a number from 2 on, the invocation's number"},
	} {
		_, err := parsed(strings.Fields(c.args)...)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("report %s:\n got %q\nwant %q", c.args, got, c.want)
		}
	}
}

// TestMakeFlags checks what -make sets: the target's flags and output,
// under results/again with AGAIN, and that flags after it still count.
func TestMakeFlags(t *testing.T) {
	o, err := parsed("-make", "bench", "-again=", "-part=", "-rate=30000")
	if err != nil {
		t.Fatal(err)
	}
	if !*o.want["pick"] || *o.want["run"] || !o.docs || o.out != "results" || o.rate != 30000 {
		t.Errorf("make bench RATE=30000: -pick %v -run %v -docs %v -out %q -rate %d", *o.want["pick"], *o.want["run"], o.docs, o.out, o.rate)
	}
	o, err = parsed("-make", "bench-ceilings", "-again=", "-part=")
	if err != nil {
		t.Fatal(err)
	}
	if !*o.want["run"] || !o.docs || o.out != "results" || !o.inMemory || o.hosts != "" {
		t.Errorf("make bench-ceilings: -run %v -docs %v -out %q -in-memory %v -hosts %q", *o.want["run"], o.docs, o.out, o.inMemory, o.hosts)
	}
	o, err = parsed("-make", "bench-ceilings", "-again=3", "-part=json")
	if err != nil {
		t.Fatal(err)
	}
	if o.docs || o.out != "results/again/3" || o.inMemory || o.hosts != "results" || o.modes != "json" {
		t.Errorf("make bench-ceilings AGAIN=3 PART=json: -docs %v -out %q -in-memory %v -hosts %q -modes %q", o.docs, o.out, o.inMemory, o.hosts, o.modes)
	}
	o, err = parsed("-make", "bench-load", "-again=2", "-part=capacity")
	if err != nil {
		t.Fatal(err)
	}
	if *o.want["load"] || !*o.want["capacity"] || o.out != "results/again/load-2" || o.ceilingsFrom != "results/bench.txt" || o.docs {
		t.Errorf("make bench-load AGAIN=2 PART=capacity: -load %v -capacity %v -out %q -ceilings-from %q -docs %v",
			*o.want["load"], *o.want["capacity"], o.out, o.ceilingsFrom, o.docs)
	}
	o, err = parsed("-h3-blocks", "24", "-make", "bench-tls", "-again=4", "-part=h3")
	if err != nil {
		t.Fatal(err)
	}
	if !*o.want["h3"] || *o.want["tls"] || o.out != "results/again/h3-4" || o.h3Blocks != 24 {
		t.Errorf("make bench-tls AGAIN=4 PART=h3 RUNFLAGS='-h3-blocks 24': -h3 %v -tls %v -out %q -h3-blocks %d", *o.want["h3"], *o.want["tls"], o.out, o.h3Blocks)
	}
	o, err = parsed("-make", "bench-work", "-again=", "-part=")
	if err != nil {
		t.Fatal(err)
	}
	if !*o.want["work"] || o.each != 500*time.Millisecond || !o.docs || o.out != "results" {
		t.Errorf("make bench-work: -work %v -for %v -docs %v -out %q", *o.want["work"], o.each, o.docs, o.out)
	}
	o, err = parsed("-make", "bench-scale", "-again=", "-part=", "-cores", "1,2,4")
	if err != nil {
		t.Fatal(err)
	}
	if !*o.want["scale"] || o.cores != "1,2,4" || o.n != 100000 || o.docs || o.out != "results" {
		t.Errorf("make bench-scale: -scale %v -cores %q -n %d -docs %v -out %q", *o.want["scale"], o.cores, o.n, o.docs, o.out)
	}
	o, err = parsed("-make", "bench-quick", "-again=", "-part=", "-out", "scratch")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range strings.Fields("run work uring latency load readiness tls newconn h3 min-wait") {
		if !*o.want[f] {
			t.Errorf("make bench-quick: no -%s", f)
		}
	}
	if !o.quick || o.docs || o.out != "scratch" {
		t.Errorf("make bench-quick: -quick %v -docs %v -out %q", o.quick, o.docs, o.out)
	}
}
