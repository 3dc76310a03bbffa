package bench

import (
	"strings"
	"testing"
	"time"
)

func TestVersusCheck(t *testing.T) {
	ok := VersusConfig{Targets: []string{"nethttp", "nethttp/bare", "nginx", "nginx/aa"}, Client: "loadgen", Mode: KeepAlive, Connections: 50, Duration: time.Second, Rounds: 3, Pairs: true}
	if err := ok.Check(); err != nil {
		t.Errorf("%+v: %v", ok, err)
	}
	bad := VersusConfig{Targets: []string{"gnet/bare", "nope", "fcgi"}, Client: "wrk", Mode: Pipeline, Duration: -time.Second, Pairs: true}
	err := bad.Check()
	if err == nil {
		t.Fatalf("%+v: no error", bad)
	}
	// Every problem at once, each naming what is wrong.
	for _, want := range []string{
		"gnet/bare: gnet has no -bare (those that do: nethttp",
		`unknown target "nope"`,
		"pairs need an even number of targets, not 3",
		"wrk runs keep-alive only (keepalive or json), not pipeline",
		"0 rounds", "0 connections", "runs of -1s",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q:\n%v", want, err)
		}
	}
	if err := (VersusConfig{Client: "ab", Mode: "slow", Connections: 1, Duration: time.Second, Rounds: 1}).Check(); err == nil ||
		!strings.Contains(err.Error(), "no target") || !strings.Contains(err.Error(), `unknown client "ab"`) || !strings.Contains(err.Error(), `unknown mode "slow"`) {
		t.Errorf("no target, client ab, mode slow: got %v", err)
	}
}
