package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// usage prints report's usage: its subcommands, its parts and every flag,
// from the tables.
func usage(o *options) {
	w := o.fs.Output()
	fmt.Fprintf(w, "usage: report [flags]    run the parts asked for, then write the report in -out\n")
	for _, name := range slices.Sorted(maps.Keys(comparisons)) {
		c := comparisons[name]
		fmt.Fprintf(w, "       report %s %s\n", name, c.args)
	}
	fmt.Fprintf(w, "       report -make TARGET [-again N] [-part X]    what make TARGET AGAIN=N PART=X runs\n")
	fmt.Fprintf(w, "\nThe make targets (-make) and their parts (-part):\n")
	for _, r := range makeRuns {
		if r.part != "" {
			fmt.Fprintf(w, "  %-16s -part %-11s %s\n", r.target, r.part, strings.Join(r.flags, " "))
		} else {
			fmt.Fprintf(w, "  %-28s %s\n", r.target, strings.Join(r.flags, " "))
		}
	}
	fmt.Fprintf(w, "\nThe parts, in the order they run (flag, section, file in -out, its blocks or rounds):\n")
	for _, p := range parts {
		also := ""
		if len(p.by) > 0 {
			also = " (also -" + strings.Join(p.by, ", -") + ")"
		}
		if p.ceilings {
			also += " (shares of -ceilings-from)"
		}
		fmt.Fprintf(w, "  -%-15s %-14s %-18s -%s%s\n", p.flag, p.section, p.file, p.count, also)
	}
	fmt.Fprintf(w, "\nThe flags:\n")
	o.fs.PrintDefaults()
}
