package plan

import (
	"fmt"
	"slices"
	"time"

	"hellobench/bench"
)

// Pick is make bench's one invocation: every figure the pick table shows,
// measured on one host in one run, so that no cell divides one run's
// figure by another's. First the keep-alive ceilings in blocks beside the
// reference nginx; then, at the rates those ceilings give, the CPU per
// request at Rate, the search for the rate held within the p99 bound, the
// memory of idle connections, keep-alive over TLS and full TLS
// handshakes, each in rounds or blocks of its own.
type Pick struct {
	Quick bool
	// Blocks are the keep-alive ceilings' blocks, Rounds the rounds of
	// the CPU at Rate (6: the fewest with a 95 % interval), Searches
	// those of the p99 search and of the idle connections, TLSBlocks the
	// blocks of keep-alive over TLS and of the full handshakes.
	Blocks, Rounds, Searches, TLSBlocks int
	// Rate is the steady rate the cores column is priced at, req/s.
	Rate int
	// Each is how long each ceiling and TLS run lasts.
	Each time.Duration
}

// PickIdle is the idle connections whose memory the pick table shows.
const PickIdle = 10000

// First are the keep-alive ceilings' blocks; -quick one short block.
func (p Pick) First() [][]string {
	if p.Quick {
		return [][]string{GoTest("-bench", "Ceiling", "-benchtime", "1x", "-timeout", "0", "./bench", "-args",
			"-modes", string(bench.KeepAlive), "-warmup", "2000", "-for", "200ms", "-block", "0")}
	}
	var cmds [][]string
	for k := range p.Blocks {
		cmds = append(cmds, GoTest("-bench", "Ceiling", "-benchtime", "1x", "-timeout", "0", "./bench", "-args",
			"-modes", string(bench.KeepAlive), "-for", p.Each.String(), "-block", fmt.Sprint(k)))
	}
	return cmds
}

// Next is the rest of the run, once, after the ceilings' blocks (k is
// the number of blocks run so far): it reads their keep-alive ceilings
// from the run's own output in file, so that every share and search is
// of this host's ceilings.
func (p Pick) Next(file string, k int) ([][]string, error) {
	if k != Blocks(p.Quick, p.Blocks) {
		return nil, nil
	}
	ceilings, err := KeepAliveCeilings(file)
	if err != nil {
		return nil, err
	}
	return p.rest(ceilings), nil
}

// Header is the run's pick line: the rate it prices cores at.
func (p Pick) Header() string {
	return fmt.Sprintf("# pick: rate %d idle %d", p.Rate, PickIdle)
}

// rest are the runs after the ceilings, given them (name=req/s,...).
func (p Pick) rest(ceilings string) [][]string {
	rounds, searches, tls := Blocks(p.Quick, p.Rounds), Blocks(p.Quick, p.Searches), Blocks(p.Quick, p.TLSBlocks)
	at := []string{"-rates", fmt.Sprint(p.Rate), "-of", "", "-many-conns", "0", "-lat-for", "1s", "-lat-warmup", "300ms"}
	search := []string{"-lat-for", "1s", "-lat-warmup", "300ms"}
	idle := []string{"-idle", fmt.Sprint(PickIdle)}
	each := []string{"-for", p.Each.String()}
	if p.Quick {
		servers := quickServers(ceilings)
		at = append([]string{"-lat-servers", servers}, "-rates", fmt.Sprint(p.Rate), "-of", "", "-many-conns", "0", "-lat-for", "300ms", "-lat-warmup", "100ms")
		search = []string{"-lat-servers", servers, "-slo-steps", "2", "-lat-for", "300ms", "-lat-warmup", "100ms"}
		idle = []string{"-servers", servers, "-idle", "1000", "-quiet", "500ms"}
		each = []string{"-servers", "nethttp", "-warmup", "500", "-for", "200ms"}
	}
	run := func(name string, k int, args ...string) []string {
		return GoTest(slices.Concat([]string{"-bench", "^" + name + "$", "-benchtime", "1x", "-timeout", "0", "./bench", "-args"},
			args, []string{"-block", fmt.Sprint(k)})...)
	}
	var cmds [][]string
	for k := range rounds {
		cmds = append(cmds, run("BenchmarkLoad", k, slices.Concat([]string{"-ceilings", ceilings}, at)...))
	}
	for k := range searches {
		cmds = append(cmds,
			run("BenchmarkCapacity", k, slices.Concat([]string{"-ceilings", ceilings}, search)...),
			idleCommand(idle...))
	}
	// Keep-alive over TLS on the client each block finds cheapest; the
	// full handshakes on loadgen, as make bench-tls runs them.
	for k := range tls {
		cmds = append(cmds,
			run("BenchmarkTLS", k, slices.Concat([]string{"-tls-modes", string(bench.TLSKeepAlive)}, each)...),
			run("BenchmarkTLS", k, slices.Concat([]string{"-tls-modes", string(bench.TLSFull), "-tls-client", "loadgen"}, each)...))
	}
	return cmds
}
