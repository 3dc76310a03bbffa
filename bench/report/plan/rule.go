package plan

import (
	"fmt"
	"log"
	"strings"

	"hellobench/bench/report"
)

// Then adds to a run the commands its output so far asks for: a
// stopping rule's further blocks (Rule), or the runs that take the
// run's own ceilings (Pick). Header is its line in the run's file.
type Then interface {
	Next(file string, k int) ([][]string, error)
	Header() string
}

// Rule is the stopping rule of make bench-tls's keep-alive and
// handshake blocks. A row's interval narrows with the blocks it keeps (its
// server saturated, the host at its usual level), and the host lets it
// keep a third to a half of them, a share that changes from one
// invocation to the next: so after the whole blocks, each further block
// runs only the rows that keep fewer than kept, until none does or most
// blocks have run in all. The rule looks at which blocks were kept, never
// at the figures, so stopping by it does not bias them.
type Rule struct {
	section    string   // the run's section (report.Read's name for its file)
	modes      []string // the modes whose rows it counts
	kept, most int
	// block is block k's commands, for the servers short in each mode.
	block func(k int, short map[string][]string) [][]string
}

// Next is the commands of block k, given the run's output so far in file:
// none when every row keeps enough blocks or k has reached the cap.
func (r Rule) Next(file string, k int) ([][]string, error) {
	if k >= r.most {
		return nil, nil
	}
	rep, err := report.Read(map[string]string{r.section: file})
	if err != nil {
		return nil, err
	}
	short := map[string][]string{}
	var counts []string
	for _, m := range r.modes {
		for _, s := range report.Short(rep.TLS, m, r.kept) {
			short[m] = append(short[m], s.Server)
			counts = append(counts, fmt.Sprintf("%s %s %d", s.Server, m, s.Kept()))
		}
	}
	if len(short) == 0 {
		return nil, nil
	}
	log.Printf("block %d: short of %d blocks kept: %s", k, r.kept, strings.Join(counts, ", "))
	return r.block(k, short), nil
}

// Header is the rule as the output's until line records it.
func (r Rule) Header() string {
	return report.UntilPrefix + fmt.Sprintf(report.UntilFormat, r.kept, r.most)
}
