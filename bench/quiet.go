package bench

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"hellobench/internal/proc"
)

// Quiet bounds what another process may use of a CPU the bench pins to:
// above it, that process competes with the server or the client and the
// figures measure it too.
const (
	quietShare = 5.0         // percent of one CPU
	quietLook  = time.Second // how long the check watches
)

// CheckQuiet watches the server's and the client's CPUs for a second and
// returns an error naming every other process that used more than 5 % of
// one of them. With force it returns the same finding as a note to put in
// the report instead, and no error. An unpinned config is not checked.
func (c Config) CheckQuiet(force bool) (note string, err error) {
	var cpus []int
	for _, list := range []string{c.ServerCPUs, c.ClientCPUs} {
		if list == "" {
			continue
		}
		l, err := proc.ParseCPUs(list)
		if err != nil {
			return "", err
		}
		cpus = append(cpus, l...)
	}
	if len(cpus) == 0 {
		return "", nil
	}
	slices.Sort(cpus)
	busy := proc.BusyOn(slices.Compact(cpus), quietLook, quietShare)
	if len(busy) == 0 {
		return "", nil
	}
	var who []string
	for _, b := range busy {
		who = append(who, b.String())
	}
	finding := fmt.Sprintf("CPUs %s were not quiet: %s", strings.Join(strings.Fields(fmt.Sprint(cpus)), ","), strings.Join(who, ", "))
	if force {
		return finding, nil
	}
	return "", fmt.Errorf("bench: %s; stop it (or run with -force, which marks the report)", finding)
}
