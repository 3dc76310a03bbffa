// Package plan builds the go test commands each of bin/report's runs is
// made of, a block or round at a time, what they need from a run before
// them (the keep-alive ceilings), and the stopping rule that adds blocks
// to the rows short of kept ones. bin/report runs them; package report
// reads what they print.
package plan

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"hellobench/bench"
	"hellobench/bench/report"
)

// GoTest is a go test command that runs benchmarks only.
func GoTest(args ...string) []string {
	return append([]string{"go", "test", "-run", "^$"}, args...)
}

// Ceilings are the in-memory benchmarks, then the ceilings in
// blocks: each block runs every server once in each mode (of modes, when
// given), in the block's own order (bench.Order), for the same time each.
func Ceilings(quick, inMemory bool, rounds, blocks int, each time.Duration, modes string) [][]string {
	var cmds [][]string
	if quick {
		if inMemory {
			cmds = append(cmds, memory("-benchtime", "20000x")...)
		}
		return append(cmds, GoTest("-bench", "Ceiling", "-benchtime", "1x", "-timeout", "0", "./bench", "-args", "-modes", "keepalive,json", "-warmup", "2000", "-for", "200ms", "-block", "0"))
	}
	if inMemory {
		cmds = append(cmds, memory("-count", fmt.Sprint(max(rounds, memoryRounds)))...)
	}
	var only []string
	if modes != "" {
		only = []string{"-modes", modes}
	}
	for k := range blocks {
		cmds = append(cmds, GoTest(slices.Concat([]string{"-bench", "Ceiling", "-benchtime", "1x", "-timeout", "0", "./bench", "-args", "-for", each.String(), "-block", fmt.Sprint(k)}, only)...))
	}
	return cmds
}

// memoryRounds is the fewest rounds of the in-memory benchmarks:
// benchstat asks for 10 to give an interval that means something.
const memoryRounds = 10

// memory run the in-memory benchmarks of every server package,
// then net/http's JSON encoders on encoding/json/v2, which this Go builds
// only with GOEXPERIMENT=jsonv2.
func memory(how ...string) [][]string {
	return [][]string{
		GoTest(slices.Concat([]string{"-bench", ".", "-benchmem", "-cpu", "1"}, how, []string{"./servers/..."})...),
		append([]string{"env", "GOEXPERIMENT=jsonv2"}, GoTest(slices.Concat([]string{"-bench", "^BenchmarkEncoderV2$", "-benchmem", "-cpu", "1"}, how, []string{"./servers/nethttp"})...)...),
	}
}

// Work are bench-work's blocks: each runs every server at every
// level of CPU work, then at every wait, in the block's order.
func Work(quick bool, blocks int, each time.Duration) [][]string {
	work := []string{"-for", each.String()}
	if quick {
		blocks = 1
		work = []string{"-for", "200ms", "-warmup", "2000", "-work-cpu", "0,20us"}
	}
	var cmds [][]string
	for k := range blocks {
		block := []string{"-timeout", "0", "./bench", "-args", "-block", fmt.Sprint(k)}
		cmds = append(cmds,
			GoTest(slices.Concat([]string{"-bench", "^BenchmarkWork$", "-benchtime", "1x"}, block, work)...),
			waitCommand(quick, k, nil))
	}
	return cmds
}

// waitCommand is bench-work's block k of the waits (BenchmarkWait at its
// waits and rate), of the servers named (nil: every one); -quick one
// short wait.
func waitCommand(quick bool, k int, servers []string) []string {
	args := []string{"-bench", "^BenchmarkWait$", "-benchtime", "1x", "-timeout", "0", "./bench", "-args"}
	if servers != nil {
		args = append(args, "-servers", strings.Join(servers, ","))
	}
	args = append(args, "-block", fmt.Sprint(k))
	if quick {
		args = append(args, "-wait", "10ms", "-wait-for", "400ms")
	}
	return GoTest(args...)
}

// uringServers are make bench-work PART=uring's idle servers: uring and
// the io_uring floor it is held against.
var uringServers = []string{"uring", "floor-uring"}

// Uring are make bench-work PART=uring's blocks (bin/report
// -uring): in each, uring's waits as make bench-work runs them, then its
// and the io_uring floor's idle connections as make bench-sweep does; the
// rows replace theirs in work.txt and sweep.txt. -quick runs one block of
// one short wait and a thousand connections quiet for half a second.
func Uring(quick bool, blocks int) [][]string {
	idle := []string{"-servers", strings.Join(uringServers, ",")}
	if quick {
		idle = append(idle, "-idle", "1000", "-quiet", "500ms")
	}
	var cmds [][]string
	for k := range Blocks(quick, blocks) {
		cmds = append(cmds, waitCommand(quick, k, uringServers[:1]), idleCommand(idle...))
	}
	return cmds
}

// KeepAliveCeilings reads each server's keep-alive ceiling, req/s, from a
// run's bench.txt, as -ceilings takes them: name=req/s,...
func KeepAliveCeilings(file string) (string, error) {
	if err := report.Stat(file); err != nil {
		return "", fmt.Errorf("-latency: no ceilings in %s to take shares of: run -run (make bench) first", file)
	}
	rep, err := report.Read(map[string]string{report.CeilingsSection: file})
	if err != nil {
		return "", err
	}
	quick := rep.Sections[report.CeilingsSection].Quick
	var list []string
	for _, p := range rep.Ceilings {
		if p.Mode != "keepalive" || strings.Contains(p.Server, "/") {
			continue
		}
		switch {
		case p.Implied.N > 0:
			list = append(list, fmt.Sprintf("%s=%.0f", p.Server, p.Implied.Median))
		case quick && p.ReqPerSec.N > 0:
			// A smoke run's one block can leave a server a few per cent
			// short of saturated (nginx at 96.6 % busy on a noisy host):
			// the rate it reached stands in, so that the benches after
			// it still run; its figures are not for publishing.
			list = append(list, fmt.Sprintf("%s=%.0f", p.Server, p.ReqPerSec.Median))
		}
	}
	if len(list) == 0 {
		return "", fmt.Errorf("-latency: no saturated keep-alive ceiling in %s", file)
	}
	return strings.Join(list, ","), nil
}

// Latency are make bench-latency's rounds, each holding every
// server at every rate in the round's order, into logs the HdrHistogram
// logs of the point the latency chart shows; -quick holds two servers at
// three points for a second each, and logs them all.
func Latency(quick bool, rounds int, ceilings, logs string) [][]string {
	args := []string{"-bench", "^BenchmarkLatency$", "-benchtime", "1x", "-timeout", "0", "./bench", "-args", "-ceilings", ceilings, "-lat-logs", logs}
	if quick {
		args = append(args, "-lat-servers", quickServers(ceilings), "-rates", "10000", "-of", "0.5", "-many-conns", "200", "-many-rate", "10000",
			"-lat-for", "1s", "-lat-warmup", "300ms")
	} else {
		// The logs of every point (some hundreds) would outweigh the rest
		// of results/: those of the chart's point are kept.
		args = append(args, "-lat-logs-of", fmt.Sprintf("r=%d/c=%d", report.LatRate, report.CeilingConns))
	}
	var cmds [][]string
	for k := range rounds {
		cmds = append(cmds, GoTest(slices.Concat(args, []string{"-block", fmt.Sprint(k)})...))
	}
	return cmds
}

// Load are make bench-load's rounds: in each, every server held
// at the shares of its ceiling and the ladder (BenchmarkLoad), then in the
// first searches rounds the search for its rate within the p99 bound
// (BenchmarkCapacity) and the count of what every server asks of the
// kernel per request (BenchmarkWhy), each in the round's order; -quick holds two
// servers at one share and searches in two steps.
func Load(quick bool, rounds, searches int, ceilings string) [][]string {
	points := []string{"-rates", "10000,25000,40000", "-of", "0.1,0.25,0.5,0.75,0.9", "-many-conns", "0", "-lat-for", "1s", "-lat-warmup", "300ms"}
	if quick {
		points = []string{"-lat-servers", quickServers(ceilings), "-rates", "10000", "-of", "0.25", "-many-conns", "0", "-lat-for", "300ms", "-lat-warmup", "100ms"}
	}
	var cmds [][]string
	for k := range rounds {
		block := []string{"-block", fmt.Sprint(k)}
		cmds = append(cmds, GoTest(slices.Concat([]string{"-bench", "^BenchmarkLoad$", "-benchtime", "1x", "-timeout", "0", "./bench", "-args", "-ceilings", ceilings}, points, block)...))
		if k < searches {
			cmds = append(cmds, searchCommand(quick, k, ceilings), whyCommand(quick, k, ceilings))
		}
	}
	return cmds
}

// whyCommand is BenchmarkWhy's round k: every server counted at a quarter
// of its ceiling and saturated, in the round's order; -quick two servers.
func whyCommand(quick bool, k int, ceilings string) []string {
	var why []string
	if quick {
		why = []string{"-why-servers", quickServers(ceilings), "-why-for", "300ms"}
	}
	return GoTest(slices.Concat([]string{"-bench", "^BenchmarkWhy$", "-benchtime", "1x", "-timeout", "0", "./bench", "-args", "-ceilings", ceilings}, why, []string{"-block", fmt.Sprint(k)})...)
}

// Why are make bench-load PART=why's rounds (bin/report -why).
func Why(quick bool, rounds int, ceilings string) [][]string {
	var cmds [][]string
	for k := range rounds {
		cmds = append(cmds, whyCommand(quick, k, ceilings))
	}
	return cmds
}

// Capacity are make bench-load's searches for the rate within the
// p99 bound alone (bin/report -capacity), round after round.
func Capacity(quick bool, rounds int, ceilings string) [][]string {
	var cmds [][]string
	for k := range rounds {
		cmds = append(cmds, searchCommand(quick, k, ceilings))
	}
	return cmds
}

// searchCommand is one round of the search for the rate within the p99
// bound (BenchmarkCapacity), in round k's order; -quick searches two
// servers in two steps.
func searchCommand(quick bool, k int, ceilings string) []string {
	search := []string{"-lat-for", "1s", "-lat-warmup", "300ms"}
	if quick {
		search = []string{"-lat-servers", quickServers(ceilings), "-slo-steps", "2", "-lat-for", "300ms", "-lat-warmup", "100ms"}
	}
	return GoTest(slices.Concat([]string{"-bench", "^BenchmarkCapacity$", "-benchtime", "1x", "-timeout", "0", "./bench", "-args", "-ceilings", ceilings}, search, []string{"-block", fmt.Sprint(k)})...)
}

// AtLoad are make bench-load's blocks at a quarter of each
// ceiling (BenchmarkAtLoad): every server once in each, in the block's
// order, beside a reference nginx held at a quarter of its own ceiling.
// Short runs buy blocks, as in the ceilings: only the host's usual level
// counts, so the interval narrows with the blocks kept. -quick holds two
// servers, one block.
func AtLoad(quick bool, blocks int, ceilings string) [][]string {
	args := []string{"-bench", "^BenchmarkAtLoad$", "-benchtime", "1x", "-timeout", "0", "./bench", "-args", "-ceilings", ceilings, "-at", "0.25"}
	if quick {
		return [][]string{GoTest(slices.Concat(args, []string{"-lat-servers", quickServers(ceilings), "-for", "300ms", "-lat-warmup", "100ms", "-block", "0"})...)}
	}
	var cmds [][]string
	for k := range blocks {
		cmds = append(cmds, GoTest(slices.Concat(args, []string{"-for", "500ms", "-lat-warmup", "200ms", "-block", fmt.Sprint(k)})...))
	}
	return cmds
}

// Readiness are make bench-readiness's rounds: in each, the floors
// on epoll and io_uring, gnet and nginx saturated, in the round's order,
// while perf counts what each asks of the kernel (BenchmarkReadiness).
func Readiness(quick bool, rounds int) [][]string {
	var cmds [][]string
	for k := range rounds {
		args := []string{"-bench", "^BenchmarkReadiness$", "-benchtime", "1x", "-timeout", "0", "./bench", "-args", "-block", fmt.Sprint(k)}
		if quick {
			args = append(args, "-why-for", "300ms")
		}
		cmds = append(cmds, GoTest(args...))
	}
	return cmds
}

// quickServers are the two servers -quick holds: net/http and nginx, a Go
// runtime and the C reference, or in the place of one that had no ceiling
// in the quick run's single block (its client can be the limit) the first
// that had one.
func quickServers(ceilings string) string {
	var have []string
	for _, c := range strings.Split(ceilings, ",") {
		if name, _, _ := strings.Cut(c, "="); name != "floor" { // no stack anyone would run
			have = append(have, name)
		}
	}
	var pick []string
	for _, name := range slices.Concat([]string{"nethttp", "nginx"}, have) {
		if len(pick) < 2 && slices.Contains(have, name) && !slices.Contains(pick, name) {
			pick = append(pick, name)
		}
	}
	return strings.Join(pick, ",")
}

// Blocks is a run's rounds (the ceilings': one per block); -quick runs one.
func Blocks(quick bool, blocks int) int {
	if quick {
		return 1
	}
	return blocks
}

// Sweep are the sweep and the idle connections, round after round.
func Sweep(rounds, n int) [][]string {
	var cmds [][]string
	for range rounds {
		cmds = append(cmds,
			GoTest("-bench", "Sweep", "-benchtime", fmt.Sprintf("%dx", n), "-timeout", "0", "./bench"),
			idleCommand())
	}
	return cmds
}

// idleCommand is make bench-sweep's idle connections (BenchmarkIdle at
// its counts and quiet time), with args after -args.
func idleCommand(args ...string) []string {
	cmd := GoTest("-bench", "^BenchmarkIdle$", "-benchtime", "1x", "-timeout", "0", "./bench")
	if len(args) > 0 {
		cmd = append(append(cmd, "-args"), args...)
	}
	return cmd
}

// Scale are the keep-alive ceilings on each core count, round after
// round.
func Scale(rounds, n int, cores string) [][]string {
	var cmds [][]string
	for range rounds {
		cmds = append(cmds, GoTest("-bench", "Scale", "-benchtime", fmt.Sprintf("%dx", n), "-timeout", "0", "./bench", "-args", "-cores", cores))
	}
	return cmds
}

// TLS are make bench-tls's blocks but keep-alive's: each runs
// every server with TLS once in every other TLS mode with an ECDSA
// certificate (and TLS 1.2's rows), then the full handshakes again with an
// RSA one, in the block's order. -quick runs net/http resumed and HTTP/2
// with 16 streams, one block.
func TLS(quick bool, blocks int, each time.Duration) [][]string {
	if quick {
		return [][]string{GoTest("-bench", "^BenchmarkTLS$", "-benchtime", "1x", "-timeout", "0", "./bench", "-args",
			"-servers", "nethttp", "-tls-modes", "tls-resumed,h2-16", "-warmup", "2000", "-for", "200ms", "-block", "0")}
	}
	var modes []string
	for _, m := range bench.TLSModes {
		if m != bench.TLSKeepAlive {
			modes = append(modes, string(m))
		}
	}
	var cmds [][]string
	for k := range blocks {
		block := []string{"-bench", "^BenchmarkTLS$", "-benchtime", "1x", "-timeout", "0", "./bench", "-args", "-for", each.String(), "-block", fmt.Sprint(k)}
		cmds = append(cmds,
			GoTest(slices.Concat(block, []string{"-tls-modes", strings.Join(modes, ","), "-tls12"})...),
			GoTest(slices.Concat(block, []string{"-tls-key-type", "rsa", "-tls-modes", "tls-full"})...))
	}
	return cmds
}

// TLSKeepAlive are make bench-tls's keep-alive blocks: each runs
// every server keep-alive over TLS once, in the block's order, with runs
// as short as the ceilings'. Keep-alive is the mode whose ratios to nginx
// are wanted to ±5 %, and a block counts only at the host's usual level,
// which the host leaves for seconds at a time: so it takes many short
// blocks, as the ceilings do, not a few long ones. -quick runs net/http,
// one block.
func TLSKeepAlive(quick bool, blocks int, each time.Duration) [][]string {
	var cmds [][]string
	for k := range Blocks(quick, blocks) {
		cmds = append(cmds, tlsKeepAliveBlock(quick, each, k, nil))
	}
	return cmds
}

// tlsKeepAliveBlock is keep-alive block k over TLS of the servers named
// (nil: every one; -quick's net/http).
func tlsKeepAliveBlock(quick bool, each time.Duration, k int, servers []string) []string {
	args := []string{"-bench", "^BenchmarkTLS$", "-benchtime", "1x", "-timeout", "0", "./bench", "-args"}
	if quick && servers == nil {
		servers = []string{"nethttp"}
	}
	if servers != nil {
		args = append(args, "-servers", strings.Join(servers, ","))
	}
	args = append(args, "-tls-modes", string(bench.TLSKeepAlive))
	if quick {
		args = append(args, "-warmup", "2000", "-for", "200ms")
	} else {
		args = append(args, "-for", each.String())
	}
	return GoTest(append(args, "-block", fmt.Sprint(k))...)
}

// newRule is a Rule, nil (whole blocks only) when kept is 0; -quick
// asks one block more of its rows, so that the smoke run takes the rule's
// path.
func newRule(quick bool, section string, modes []string, kept, most int, block func(k int, short map[string][]string) [][]string) *Rule {
	switch {
	case quick:
		kept, most = 2, 2
	case kept == 0:
		return nil
	}
	return &Rule{section: section, modes: modes, kept: kept, most: most, block: block}
}

// KeepAliveRule is keep-alive's stopping rule (newRule).
func KeepAliveRule(quick bool, kept, most int, each time.Duration) *Rule {
	mode := string(bench.TLSKeepAlive)
	return newRule(quick, report.TLSKeepAliveSection, []string{mode}, kept, most, func(k int, short map[string][]string) [][]string {
		return [][]string{tlsKeepAliveBlock(quick, each, k, short[mode])}
	})
}

// handshakeModes are the modes of make bench-tls's handshake blocks: the
// handshakes whose cost is wanted to ±10 % for nethttp and nginx.
var handshakeModes = []string{string(bench.TLSFull), string(bench.TLSResumed)}

// handshakeServers are the servers of the handshake blocks: crypto/tls
// (nethttp) and OpenSSL (nginx).
var handshakeServers = []string{"nethttp", "nginx"}

// TLSHandshakes are make bench-tls's handshake blocks: nethttp and
// nginx, a new connection per request with a full and with a resumed TLS
// 1.3 handshake, beside the reference nginx, in runs as short as the
// ceilings' on loadgen (the client every block picked for these modes,
// named so that no block spends its time picking again). Six 1 s blocks
// left cells at ±17 %: as for keep-alive, many short blocks are what keep
// enough at the host's usual level. -quick runs nethttp resumed, one block.
func TLSHandshakes(quick bool, blocks int, each time.Duration) [][]string {
	short := map[string][]string{}
	for _, m := range handshakeModes {
		short[m] = handshakeServers
	}
	if quick {
		short = map[string][]string{string(bench.TLSResumed): {"nethttp"}}
	}
	var cmds [][]string
	for k := range Blocks(quick, blocks) {
		cmds = append(cmds, tlsHandshakeBlock(quick, each, k, short)...)
	}
	return cmds
}

// tlsHandshakeBlock is handshake block k of the servers short in each mode:
// one command when every mode has the same servers, else one a mode.
func tlsHandshakeBlock(quick bool, each time.Duration, k int, short map[string][]string) [][]string {
	var modes []string
	for _, m := range handshakeModes {
		if len(short[m]) > 0 {
			modes = append(modes, m)
		}
	}
	same := true
	for _, m := range modes {
		same = same && slices.Equal(short[m], short[modes[0]])
	}
	run := func(servers, modes []string) []string {
		args := []string{"-bench", "^BenchmarkTLS$", "-benchtime", "1x", "-timeout", "0", "./bench", "-args",
			"-servers", strings.Join(servers, ","), "-tls-modes", strings.Join(modes, ","), "-tls-client", "loadgen"}
		if quick {
			args = append(args, "-warmup", "500", "-for", "200ms")
		} else {
			args = append(args, "-for", each.String())
		}
		return GoTest(append(args, "-block", fmt.Sprint(k))...)
	}
	if same {
		return [][]string{run(short[modes[0]], modes)}
	}
	var cmds [][]string
	for _, m := range modes {
		cmds = append(cmds, run(short[m], []string{m}))
	}
	return cmds
}

// HandshakeRule is the handshake blocks' stopping rule (newRule).
func HandshakeRule(quick bool, kept, most int, each time.Duration) *Rule {
	return newRule(quick, report.TLSHandshakeSection, handshakeModes, kept, most, func(k int, short map[string][]string) [][]string {
		return tlsHandshakeBlock(quick, each, k, short)
	})
}

// Protocols are make bench-tls PART=h3's blocks (BenchmarkProtocols): each
// runs every protocol at every rate once, in the block's order; then as
// many blocks of idle connections (BenchmarkProtoIdle) and the count of
// system calls; -quick one short block of each at one rate.
func Protocols(quick bool, blocks int) [][]string {
	var cmds [][]string
	for k := range blocks {
		args := []string{"-bench", "^BenchmarkProtocols$", "-benchtime", "1x", "-timeout", "0", "./bench", "-args", "-block", fmt.Sprint(k)}
		if quick {
			args = append(args, "-proto-rates", "2000", "-proto-new-rate", "300", "-proto-for", "300ms", "-proto-warmup", "100ms")
		}
		cmds = append(cmds, GoTest(args...))
	}
	// The memory of idle connections in each protocol, in every block.
	for k := range blocks {
		args := []string{"-bench", "^BenchmarkProtoIdle$", "-benchtime", "1x", "-timeout", "0", "./bench", "-args", "-block", fmt.Sprint(k)}
		if quick {
			args = append(args, "-proto-idle", "100", "-proto-idle-quiet", "300ms")
		}
		cmds = append(cmds, GoTest(args...))
	}
	// What the server asks of the kernel in each protocol, once.
	args := []string{"-bench", "^BenchmarkProtoCalls$", "-benchtime", "1x", "-timeout", "0", "./bench"}
	if quick {
		args = append(args, "-args", "-proto-calls-rate", "2000", "-proto-for", "300ms")
	}
	return append(cmds, GoTest(args...))
}
