package main

import "testing"

func TestParseWrk(t *testing.T) {
	out := []byte(`Running 5s test @ http://127.0.0.1:18181/hello/world
  1 threads and 50 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   253.02us   45.10us   2.10ms   90.12%
    Req/Sec   197.37k     3.01k  201.55k    88.00%
  982341 requests in 5.00s, 367.28MB read
Requests/sec: 196428.57
Transfer/sec:     73.44MB
`)
	n, rps, err := parseWrk(out)
	if err != nil || n != 982341 || rps != 196428.57 {
		t.Errorf("parseWrk: %d %v %v", n, rps, err)
	}
	if _, _, err := parseWrk([]byte("unable to connect to 127.0.0.1:1 Connection refused\n")); err == nil {
		t.Error("parseWrk: no error for a failed run")
	}
}

func TestParseLoadgen(t *testing.T) {
	n, rps, err := parseLoadgen([]byte(`{"complete":1000,"failed":3,"requests_per_sec":2500.5}`))
	if err != nil || n != 1003 || rps != 2500.5 {
		t.Errorf("parseLoadgen: %d %v %v", n, rps, err)
	}
	if _, _, err := parseLoadgen([]byte("loadgen: connect 127.0.0.1:1: connection refused\n")); err == nil {
		t.Error("parseLoadgen: no error for a failed run")
	}
}

func TestMedians(t *testing.T) {
	m := medians([]sample{{rps: 3, cpuPerReq: 9, srvBusy: 1}, {rps: 1, cpuPerReq: 5, srvBusy: 0.5}, {rps: 2, cpuPerReq: 7, srvBusy: 0.9}})
	if m.rps != 2 || m.cpuPerReq != 7 || m.srvBusy != 0.9 {
		t.Errorf("medians: %+v", m)
	}
}
