package report

import (
	"math"
	"testing"
)

// modelHost is a host whose one run measured nginx, the floor and gin
// (CPU = user + kernel), with the split when split is set.
func modelHost(key string, user, kernel map[string]float64, split bool) Host {
	r := HostRun{Ratios: map[string]Figure{}, CPU: map[string]Figure{}, User: map[string]Figure{}, Sys: map[string]Figure{}}
	for s := range user {
		r.CPU[s] = figureOf([]float64{user[s] + kernel[s]})
		if split {
			r.User[s], r.Sys[s] = figureOf([]float64{user[s]}), figureOf([]float64{kernel[s]})
		}
	}
	n := user["nginx"] + kernel["nginx"]
	r.Nginx = r.CPU["nginx"]
	r.Ratios["gin"] = figureOf([]float64{(user["gin"] + kernel["gin"]) / n})
	r.Ratios["floor"] = figureOf([]float64{(user["floor"] + kernel["floor"]) / n})
	return Host{Key: key, Runs: []HostRun{r}}
}

// TestPredict checks the model on hosts that follow it exactly: host A
// runs user code 1.5 times and the kernel 2 times as slowly as the split
// host C, so its factors come back from nginx and the floor alone and
// gin's ratio is predicted without error, where carrying C's ratio over
// is 8.6 % off.
func TestPredict(t *testing.T) {
	cu := map[string]float64{"nginx": 2, "floor": 0.5, "gin": 5}
	ck := map[string]float64{"nginx": 4, "floor": 4.5, "gin": 3}
	au, ak := map[string]float64{}, map[string]float64{}
	for s := range cu {
		au[s], ak[s] = 1.5*cu[s], 2*ck[s]
	}
	hosts := []Host{modelHost("A", au, ak, false), modelHost("C", cu, ck, true)}
	ms := Predict(hosts)
	if len(ms) != 2 {
		t.Fatalf("%d models for 2 hosts", len(ms))
	}
	a := ms[0]
	if a.Why != "" || a.From != "C" || a.InSample || math.Abs(a.User-1.5) > 1e-9 || math.Abs(a.Kernel-2) > 1e-9 {
		t.Fatalf("host A: %+v; want factors 1.5 and 2 from C", a)
	}
	if len(a.Rows) != 1 || a.Rows[0].Stack != "gin" {
		t.Fatalf("host A's rows: %+v, want gin's", a.Rows)
	}
	mean, worst, cmean, _ := a.Errors()
	if mean > 1e-9 || worst > 1e-9 || math.Abs(cmean-100*(8.0/6-13.5/11)/(13.5/11)) > 1e-9 {
		t.Errorf("host A's errors: model %.3g %% (worst %.3g), carried %.3g %%", mean, worst, cmean)
	}
	if c := ms[1]; !c.InSample || c.From != "C" || math.Abs(c.User-1) > 1e-9 {
		t.Errorf("host C: %+v; want a fit on itself, factor 1", c)
	}
	// Without a split anywhere there is nothing to predict from.
	if m := Predict([]Host{modelHost("A", au, ak, false)}); m[0].Why == "" {
		t.Errorf("no split: %+v", m[0])
	}
	// nginx and the floor split alike: the factors cannot be told apart.
	cu["floor"], ck["floor"] = 1, 2
	if m := Predict([]Host{modelHost("A", au, ak, false), modelHost("C", cu, ck, true)}); m[0].Why == "" {
		t.Errorf("alike yardsticks: %+v", m[0])
	}
}
