package main

import (
	"fmt"
	"log"
	"strings"
	"time"

	"hellobench/bench"
	"hellobench/bench/report"
)

// keptRule is make bench-tls's keep-alive stopping rule. A row's interval
// narrows with the blocks it keeps (its server saturated, the host at its
// usual level), and the host lets it keep a third to a half of them, a
// share that changes from one invocation to the next: so after the whole
// blocks, each further block runs only the rows that keep fewer than
// kept, until none does or most blocks have run in all. The rule looks at
// which blocks were kept, never at the ratios, so stopping by it does not
// bias them.
type keptRule struct {
	kept, most int
	quick      bool
	each       time.Duration
}

// next is the command of block k, given the run's output so far in file:
// nil when every row keeps enough blocks or k has reached the cap.
func (r keptRule) next(file string, k int) ([]string, error) {
	if k >= r.most {
		return nil, nil
	}
	rep, err := report.Read(map[string]string{"tls-keepalive": file})
	if err != nil {
		return nil, err
	}
	short := report.Short(rep.TLS, string(bench.TLSKeepAlive), r.kept)
	if len(short) == 0 {
		return nil, nil
	}
	names, counts := make([]string, len(short)), make([]string, len(short))
	for i, s := range short {
		names[i], counts[i] = s.Server, fmt.Sprintf("%s %d", s.Server, s.Kept())
	}
	log.Printf("block %d: short of %d blocks kept: %s", k, r.kept, strings.Join(counts, ", "))
	return tlsKeepAliveBlock(r.quick, r.each, k, names), nil
}

// header is the rule as the output's until line records it.
func (r keptRule) header() string {
	return report.UntilPrefix + fmt.Sprintf(report.UntilFormat, r.kept, r.most)
}
