// Command report runs the bench (or reads its saved output) and writes the
// report: REPORT.md, results.json and the charts in the output directory,
// and, with -docs, the generated sections of README.md, the pages under
// docs/ and bench/COSTS.md.
//
// Usage:
//
//	report [-PART...] [flags]         run the parts asked for, then write the report
//	report -make TARGET [-again N] [-part X]  what make TARGET AGAIN=N PART=X runs
//	report agree|agree-load|agree-tls|agree-h3|agree-latency DIR,DIR...
//	report compare [-hosts results] DIR
//
// report -h lists every part and flag. Each part (a row of parts: -run,
// -sweep, -work, -load, -tls, -h3, ...) runs its benchmarks, go test
// commands from package plan, into its file in -out (bench.txt,
// sweep.txt, ...): standard `go test -bench` output, with the date and
// conditions of the run in comment lines, so that benchstat compares two
// of them. Without a part it renders what those files hold. The results
// model and its rules are package report, the markdown and SVG package
// render. -make TARGET does what that make target does, and decides where
// a re-run (-again N) goes and writes the agreement page comparing it with
// results/. The subcommands compare runs already made; nothing is run.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"hellobench/bench"
	"hellobench/internal/proc"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("report: ")
	if len(os.Args) > 1 {
		if _, ok := comparisons[os.Args[1]]; ok {
			os.Exit(compareMain(os.Args[1], os.Args[2:], os.Stdout, os.Stderr))
		}
	}
	o := newOptions(flag.NewFlagSet("report", flag.ExitOnError))
	o.fs.Usage = func() { usage(o) }
	if err := o.parse(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "%v\n", prefixed(err))
		os.Exit(2)
	}
	var err error
	if o.root, err = bench.FindRoot(); err != nil {
		log.Fatal(err)
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		log.Fatal(err)
	}
	// Interrupted: stop the benchmarks and the servers they started, and
	// keep no partial output.
	proc.Handle("report", 5*time.Second, removePartial)
	if err := runParts(o); err != nil {
		fatal(err)
	}
	rep, err := readReport(o.out)
	if err != nil {
		log.Fatal(err)
	}
	if err := write(o.out, rep); err != nil {
		log.Fatal(err)
	}
	log.Printf("wrote %s", filepath.Join(o.out, "REPORT.md"))
	if o.docs {
		for _, d := range documents {
			if err := d.update(o.root, rep); err != nil {
				log.Fatal(err)
			}
			log.Printf("wrote the generated sections of %s", d.path)
		}
	}
	if r, ok := o.makeRun(); ok {
		if err := r.finish(resultsDir, o.again, os.Stdout); err != nil {
			log.Fatal(err)
		}
	}
}

// fatal ends the report with err, unless an interrupt is already ending
// it (then its processes were stopped on purpose).
func fatal(err error) {
	if !proc.Stopping() {
		log.Print(err)
	}
	proc.Exit(1)
}

// prefixed is err with every line of it starting "report: ".
func prefixed(err error) string {
	return "report: " + strings.ReplaceAll(err.Error(), "\n", "\nreport: ")
}
