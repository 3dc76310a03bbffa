package main

import (
	"testing"
)

func TestQuickServers(t *testing.T) {
	for _, c := range []struct{ ceilings, want string }{
		{"nethttp=49652,nginx=98000,fasthttp=76628", "nethttp,nginx"},
		{"nginx=98000,fasthttp=76628,nethttp=49652", "nethttp,nginx"},
		// nginx unsaturated in the quick block: the next one with a ceiling.
		{"nethttp=49652,fasthttp=76628,floor=113443", "nethttp,fasthttp"},
		{"floor=113443,gin=48123", "gin"},
	} {
		if got := quickServers(c.ceilings); got != c.want {
			t.Errorf("quickServers(%q) = %q, want %q", c.ceilings, got, c.want)
		}
	}
}
