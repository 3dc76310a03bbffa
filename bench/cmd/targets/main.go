// Command targets prints the names in hellobench's one target table
// (internal/targets), one line, space-separated, for the Makefile.
//
// Usage:
//
//	targets [-kind all|server|reference]
package main

import (
	"flag"
	"fmt"
	"log"
	"strings"

	"hellobench/internal/targets"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("targets: ")
	kind := flag.String("kind", "server", "which rows: `server`, reference or all")
	flag.Parse()
	var names []string
	switch *kind {
	case "server":
		names = targets.Names(targets.Server)
	case "reference":
		names = targets.Names(targets.Reference)
	case "all":
		names = targets.Names()
	default:
		log.Fatalf("unknown -kind %q: server, reference or all", *kind)
	}
	fmt.Println(strings.Join(names, " "))
}
