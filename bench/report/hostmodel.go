package report

import (
	"math"
	"slices"
)

// Why a ratio to nginx moves between hosts, as a model a reader can check.
//
// A request's CPU is the server's own code (user time) and the kernel's
// work on its behalf (kernel time: system calls, TCP, the scheduler).
// Hosts run the two at different speeds: the core's speed moves user
// time; the cost of entering the kernel, its mitigations and its network
// path move kernel time. The model gives host h one factor for each, the
// same for every stack on h:
//
//	CPU_s(h) = u_h·U_s + k_h·K_s
//
// where U_s and K_s are stack s's user and kernel µs per request on the
// host whose run split them (cgroup v1's usage_user and usage_sys). Host
// h's two factors are solved from its two yardsticks measured in the same
// runs as its stacks: nginx (user and kernel mixed) and the epoll floor
// (almost all kernel). Every stack's ratio to nginx on h follows, as
// (u_h·U_s + k_h·K_s) / CPU_nginx(h). None of h's stacks enters its own
// prediction, so comparing the prediction with their measured ratios
// tests the model; carrying the split host's ratios over unchanged is the
// prediction it has to beat.

// A Prediction is one stack's ratio to nginx on a host: measured (the
// median of the host's invocations), the model's, and the split host's
// own, carried over unchanged.
type Prediction struct {
	Stack                    string
	Measured, Model, Carried float64
}

// A HostModel is the model's prediction of one host's ratios.
type HostModel struct {
	Key string
	// From is the host whose split predicts this one; InSample says it is
	// this host itself (no other host recorded the split): a fit, not a
	// prediction.
	From     string
	InSample bool
	// User and Kernel are the host's factors over From's: u_h and k_h.
	User, Kernel float64
	Rows         []Prediction
	// Why says why a host has no prediction ("" where it has one).
	Why string
}

// Errors are the mean and the largest absolute error over the rows, in
// percent of the measured ratio: the model's and the carried ratios'.
func (m HostModel) Errors() (mean, worst, carriedMean, carriedWorst float64) {
	for _, r := range m.Rows {
		e := 100 * math.Abs(r.Model-r.Measured) / r.Measured
		c := 100 * math.Abs(r.Carried-r.Measured) / r.Measured
		mean, carriedMean = mean+e, carriedMean+c
		worst, carriedWorst = max(worst, e), max(carriedWorst, c)
	}
	if n := float64(len(m.Rows)); n > 0 {
		mean, carriedMean = mean/n, carriedMean/n
	}
	return mean, worst, carriedMean, carriedWorst
}

// The model's yardsticks: the factors are solved from these two.
const (
	yardstick = "nginx"
	kernelish = "floor"
)

// Predict models every host's ratios from the split of another host (the
// first in the list that recorded one), or of its own where no other did.
func Predict(hosts []Host) []HostModel {
	var models []HostModel
	for i, h := range hosts {
		m := HostModel{Key: h.Key}
		from := slices.IndexFunc(hosts, func(o Host) bool { return o.Key != h.Key && hasSplit(o) })
		if from < 0 && hasSplit(h) {
			from, m.InSample = i, true
		}
		if from < 0 {
			m.Why = "no host recorded the user and kernel split"
			models = append(models, m)
			continue
		}
		m.From = hosts[from].Key
		models = append(models, predictOne(m, h, hosts[from]))
	}
	return models
}

// predictOne solves h's factors from its yardsticks and predicts its
// stacks from the split host's.
func predictOne(m HostModel, h, split Host) HostModel {
	un, kn := splitOf(split, yardstick)
	uf, kf := splitOf(split, kernelish)
	n, f := cpuOn(h, yardstick), cpuOn(h, kernelish)
	det := un*kf - kn*uf
	switch {
	case n == 0 || f == 0:
		m.Why = "its runs lack nginx's or the floor's keep-alive ceiling"
		return m
	case math.Abs(det) < 0.05*(un+kn)*(uf+kf):
		// The two yardsticks split alike: two equations that are one.
		m.Why = "nginx and the floor split their time alike on the split host: the two factors cannot be told apart"
		return m
	}
	m.User = (n*kf - f*kn) / det
	m.Kernel = (un*f - uf*n) / det
	for _, s := range Order() {
		if s == yardstick || s == kernelish {
			continue
		}
		got, ok1 := h.Ratio(s)
		was, ok2 := split.Ratio(s)
		u, k := splitOf(split, s)
		if !ok1 || !ok2 || u+k == 0 {
			continue
		}
		m.Rows = append(m.Rows, Prediction{Stack: s, Measured: got.Median, Model: (m.User*u + m.Kernel*k) / n, Carried: was.Median})
	}
	return m
}

// hasSplit says whether a host's runs recorded the yardsticks' split.
func hasSplit(h Host) bool {
	u, k := splitOf(h, yardstick)
	uf, kf := splitOf(h, kernelish)
	return u+k > 0 && uf+kf > 0
}

// splitOf is a target's user and kernel µs per request on h: the median
// of its runs' medians; zeros where no run split it.
func splitOf(h Host, target string) (user, kernel float64) {
	var us, ks []float64
	for _, r := range h.Runs {
		if u, ok := r.User[target]; ok {
			us, ks = append(us, u.Median), append(ks, r.Sys[target].Median)
		}
	}
	if len(us) == 0 {
		return 0, 0
	}
	return figureOf(us).Median, figureOf(ks).Median
}

// cpuOn is a target's CPU µs per keep-alive request on h: the median of
// its runs' medians, 0 where none measured it.
func cpuOn(h Host, target string) float64 {
	var v []float64
	for _, r := range h.Runs {
		if c, ok := r.CPU[target]; ok {
			v = append(v, c.Median)
		}
	}
	if len(v) == 0 {
		return 0
	}
	return figureOf(v).Median
}

// PredictRun is the model's prediction of one run, a user's own made on a
// machine of their own, from the recorded hosts' split.
func PredictRun(run HostRun, hosts []Host) HostModel {
	ms := Predict(append(slices.Clip(hosts), Host{Key: "this run", Runs: []HostRun{run}}))
	return ms[len(ms)-1]
}
