package main

import (
	"slices"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	out := func(c config) string {
		t.Helper()
		var b strings.Builder
		if err := run(c, &b); err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		if !strings.HasSuffix(b.String(), "\n") {
			t.Errorf("%+v: output %q does not end its line", c, b.String())
		}
		return strings.TrimSpace(b.String())
	}
	has := func(c config, want, not []string) {
		t.Helper()
		names := strings.Fields(out(c))
		for _, n := range want {
			if !slices.Contains(names, n) {
				t.Errorf("-kind %s: %q has no %s", c.kind, names, n)
			}
		}
		for _, n := range not {
			if slices.Contains(names, n) {
				t.Errorf("-kind %s: %q has %s", c.kind, names, n)
			}
		}
	}
	has(config{kind: "server"}, []string{"nethttp", "gnet", "fcgi"}, []string{"nginx", "floor"})
	has(config{kind: "reference"}, []string{"nginx", "floor"}, []string{"nethttp"})
	has(config{kind: "guarded"}, []string{"nethttp", "gin", "fasthttp", "fiber"}, []string{"gnet", "fcgi", "nginx"})
	has(config{kind: "all"}, []string{"nethttp", "nginx"}, nil)

	for name, want := range map[string]string{
		"nethttp": "./servers/nethttp",
		"fcgi":    "./servers/fcgi",    // the application lighttpd spawns
		"floor":   "./bench/cmd/floor", // a reference built from Go
		"nginx":   "",                  // from Debian: nothing to build
	} {
		var b strings.Builder
		if err := run(config{pkg: name}, &b); err != nil {
			t.Errorf("-package %s: %v", name, err)
		} else if got := strings.TrimSpace(b.String()); got != want {
			t.Errorf("-package %s: got %q, want %q", name, got, want)
		}
	}
	if err := run(config{pkg: "nope"}, new(strings.Builder)); err == nil || !strings.Contains(err.Error(), "nethttp") {
		t.Errorf("-package nope: got %v, want an error listing the targets", err)
	}
}

func TestCheck(t *testing.T) {
	err := config{kind: "servers", pkg: "gin", kindSet: true}.check([]string{"x"})
	if err == nil {
		t.Fatal("no error")
	}
	// Every problem at once.
	for _, want := range []string{"unexpected arguments", "exclude each other", `unknown -kind "servers"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if err := (config{kind: "all"}).check(nil); err != nil {
		t.Errorf("-kind all: %v", err)
	}
}
