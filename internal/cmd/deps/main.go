// Command deps prints the table of the programs outside Go that the
// project runs (package internal/deps), for scripts/deps.sh and CI, so
// that no script lists a Debian package of its own.
//
// Usage:
//
//	deps            one line per program: its name (or a file's path), its Debian package, what needs it
//	deps -packages  the Debian packages, one a line, each once
package main

import (
	"flag"
	"fmt"
	"os"

	"hellobench/internal/deps"
)

func main() {
	packages := flag.Bool("packages", false, "print only the Debian packages, one a line, each once")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "deps: unexpected argument %q\n", flag.Arg(0))
		flag.Usage()
		os.Exit(2)
	}
	if *packages {
		for _, p := range deps.Packages() {
			fmt.Println(p)
		}
		return
	}
	for _, p := range deps.Programs {
		fmt.Printf("%s %s %s\n", p.Name, p.Package, p.For)
	}
}
