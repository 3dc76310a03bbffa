package report

import (
	"testing"
)

func TestWorkPointNames(t *testing.T) {
	p, ok := WorkPoint("gnet/cpu=20us", Samples{"cpu-us/req": {30}, "saturated": {1}}, 50)
	if !ok || p.Server != "gnet" || p.WorkCPU != 20 || p.Conns != 50 || p.CPU.Median != 30 {
		t.Errorf("gnet/cpu=20us: got server %q, work %v, conns %d, cpu %v", p.Server, p.WorkCPU, p.Conns, p.CPU.Median)
	}
	for _, name := range []string{"gnet/cpu=20µs", "gnet/cpu=", "gnet/wait=10ms/c=200", "gnet"} {
		if _, ok := WorkPoint(name, Samples{}, 50); ok {
			t.Errorf("WorkPoint(%q) accepted", name)
		}
	}
	w, ok := WaitPoint("gnet/inline/wait=10ms/c=200", Samples{"little-%": {0.5, 0.4, 0.6}})
	if !ok || w.Server != "gnet/inline" || w.Wait != 10 || w.Conns != 200 || w.Little.Median != 0.5 {
		t.Errorf("gnet/inline/wait=10ms/c=200: got %+v, %v", w, ok)
	}
	for _, name := range []string{"gnet/wait=10µs/c=200", "gnet/wait=10ms", "gnet/cpu=20us"} {
		if _, ok := WaitPoint(name, Samples{}); ok {
			t.Errorf("waitPoint(%q) accepted", name)
		}
	}
}
