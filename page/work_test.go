package page

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"
)

func TestWorkFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want Work
		errs []string // substrings of the parse or check error, each
	}{
		{nil, Work{}, nil},
		{[]string{"-work-cpu", "20us", "-work-wait", "10ms"}, Work{CPU: 20 * time.Microsecond, Wait: 10 * time.Millisecond}, nil},
		{[]string{"-work-cpu", "10s"}, Work{CPU: 10 * time.Second}, nil},
		{[]string{"-work-cpu", "-1us", "-work-wait", "11s"}, Work{}, []string{"-work-cpu -1µs: want 0 to 10s", "-work-wait 11s: want 0 to 10s"}},
		{[]string{"-work-wait", "ten"}, Work{}, []string{`invalid value "ten" for flag -work-wait`}},
	} {
		var w Work
		fs := flag.NewFlagSet("server", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		w.Flags(fs)
		err := fs.Parse(tc.args)
		if err == nil {
			err = w.Check()
		}
		if len(tc.errs) == 0 {
			if err != nil || w != tc.want {
				t.Errorf("%q: got %+v, %v; want %+v, no error", tc.args, w, err, tc.want)
			}
			continue
		}
		if err == nil {
			t.Errorf("%q: no error", tc.args)
			continue
		}
		for _, e := range tc.errs {
			if !strings.Contains(err.Error(), e) {
				t.Errorf("%q: error %q does not say %q", tc.args, err, e)
			}
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %q is more than one line", tc.args, err)
		}
	}
	if (Work{}).On() || !(Work{Wait: 1}).On() || !(Work{CPU: 1}).On() {
		t.Error("On: the zero Work must be off, any work on")
	}
}

func BenchmarkBurn(b *testing.B) {
	Calibrate()
	for _, d := range []time.Duration{time.Microsecond, 20 * time.Microsecond} {
		b.Run(d.String(), func(b *testing.B) {
			for b.Loop() {
				Burn(d)
			}
		})
	}
}

func BenchmarkWorkOff(b *testing.B) {
	var w Work
	b.ReportAllocs()
	for b.Loop() {
		if w.On() {
			w.Do()
		}
	}
}
