// Command targets prints what the Makefile needs from hellobench's one
// target table (internal/targets): the names of a kind of target, one
// line, space-separated, or the Go package to build for one target, so
// that `make serve-NAME` builds that and nothing else.
//
// Usage:
//
//	targets [-kind all|server|reference|guarded]
//	targets -package NAME
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"hellobench/internal/targets"
)

// A config is the command line, read but not yet checked.
type config struct {
	kind    string
	pkg     string // -package: a target's name
	kindSet bool
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("targets: ")
	var c config
	flag.StringVar(&c.kind, "kind", "server", "which rows: `server`, reference, guarded (those with -bare) or all")
	flag.StringVar(&c.pkg, "package", "", "print the Go package to build for the target `NAME` (nothing for a program from Debian)")
	flag.Parse()
	flag.Visit(func(f *flag.Flag) { c.kindSet = c.kindSet || f.Name == "kind" })
	if err := c.check(flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "targets:", err)
		flag.Usage()
		os.Exit(2)
	}
	if err := run(c, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// check returns every problem with the command line at once.
func (c config) check(args []string) error {
	var errs []error
	if len(args) > 0 {
		errs = append(errs, fmt.Errorf("unexpected arguments %q", args))
	}
	if c.pkg != "" && c.kindSet {
		errs = append(errs, errors.New("-kind and -package exclude each other"))
	}
	switch c.kind {
	case "server", "reference", "guarded", "all":
	default:
		errs = append(errs, fmt.Errorf("unknown -kind %q: server, reference, guarded or all", c.kind))
	}
	return errors.Join(errs...)
}

// run prints what c asks for to w.
func run(c config, w io.Writer) error {
	if c.pkg != "" {
		t, err := targets.Lookup(c.pkg)
		if err != nil {
			return err
		}
		if t.Package != "" {
			_, err = fmt.Fprintln(w, t.Package)
		}
		return err
	}
	var names []string
	switch c.kind {
	case "server":
		names = targets.Names(targets.Server)
	case "reference":
		names = targets.Names(targets.Reference)
	case "guarded":
		names = targets.Guarded()
	case "all":
		names = targets.Names()
	}
	_, err := fmt.Fprintln(w, strings.Join(names, " "))
	return err
}
