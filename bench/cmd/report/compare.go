package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"hellobench/bench/report/render"
)

// A comparison is a subcommand that runs nothing: it sets runs already
// made side by side and prints the page.
type comparison struct {
	args, usage string
	compare     func(dirs []string) (string, error)
}

// comparisons are the subcommands, by name.
var comparisons = map[string]comparison{
	"agree":         {"DIR,DIR...", "make bench's ceilings in several runs' output directories", render.Agree},
	"agree-load":    {"DIR,DIR...", "make bench-load's figures in several runs", render.AgreeLoad},
	"agree-tls":     {"DIR,DIR...", "make bench-tls's ratios to nginx over TLS and handshake costs in several runs", render.AgreeTLS},
	"agree-h3":      {"DIR,DIR...", "make bench-tls PART=h3's ratios, CPU per new connection and idle memory in several runs", render.AgreeH3},
	"agree-latency": {"DIR,DIR...", "make bench-latency's p99 at the common rate in several runs", render.AgreeLatency},
	"compare":       {"[-hosts results] DIR", "the keep-alive ratios of the run in DIR (its bench.txt) beside every host recorded under -hosts", nil},
}

// compareMain runs subcommand name with args, printing to w and its
// errors to errw; it returns the exit code.
func compareMain(name string, args []string, w, errw io.Writer) int {
	c := comparisons[name]
	fs := flag.NewFlagSet("report "+name, flag.ContinueOnError)
	fs.SetOutput(errw)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: report %s %s\n\nIt prints %s; nothing is run.\n", name, c.args, c.usage)
		fs.PrintDefaults()
	}
	hosts := "results"
	if name == "compare" {
		fs.StringVar(&hosts, "hosts", hosts, "the results `directory` whose hosts/ the run is set beside")
	}
	if err := fs.Parse(args); err == flag.ErrHelp {
		return 0
	} else if err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(errw, "report %s: takes %s, not %q\n", name, c.args, fs.Args())
		return 2
	}
	var text string
	var err error
	if name == "compare" {
		text, err = render.CompareDir(fs.Arg(0), hosts)
	} else {
		text, err = c.compare(strings.Split(fs.Arg(0), ","))
	}
	if err != nil {
		fmt.Fprintf(errw, "report %s: %v\n", name, err)
		return 1
	}
	fmt.Fprint(w, text)
	return 0
}
