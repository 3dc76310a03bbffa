// Package timeouts checks the contract's two timeouts, -header-timeout and
// -idle-timeout, which every Go server takes as a flag.Duration. The
// stacks read a zero timeout, and some a negative one, as no timeout at
// all: a server given one would serve unbounded without a word. So each
// server checks the two after flag.Parse and, on an error, prints it as
// its one line on stderr and exits with status 2, the flag package's
// status for bad usage, before it listens:
//
//	if err := timeouts.Check(*headerTimeout, *idleTimeout); err != nil {
//		fmt.Fprintf(os.Stderr, "nethttp: %v\n", err)
//		os.Exit(2)
//	}
package timeouts

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Check returns an error naming every one of the two flags that is not
// positive, with its value, on one line: "-header-timeout -1s: must be
// positive".
func Check(header, idle time.Duration) error {
	var bad []string
	for _, f := range []struct {
		name string
		d    time.Duration
	}{{"-header-timeout", header}, {"-idle-timeout", idle}} {
		if f.d <= 0 {
			bad = append(bad, fmt.Sprintf("%s %v: must be positive", f.name, f.d))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return errors.New(strings.Join(bad, "; "))
}
