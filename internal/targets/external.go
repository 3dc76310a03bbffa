package targets

import (
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"syscall"
)

// AddExternal adds to the table, for this process, a reference that is a
// program outside the project: argv, its {addr} (host:port) and {port}
// replaced by where it is to listen. It serves once it accepts a
// connection, stops on SIGTERM, and its CPU is its own process's. versus
// -exec measures a yardstick this way beside the table's targets.
func AddExternal(name string, argv []string) error {
	switch {
	case name == "" || strings.ContainsAny(name, "/ "):
		return fmt.Errorf("external target %q: a name without / or spaces", name)
	case len(argv) == 0:
		return fmt.Errorf("external target %s: no command", name)
	}
	if _, err := Lookup(name); err == nil {
		return fmt.Errorf("external target %s: the table has a target of that name", name)
	}
	if command := strings.Join(argv, " "); !strings.Contains(command, "{addr}") && !strings.Contains(command, "{port}") {
		return errors.New("external target " + name + ": its command names no {addr} or {port} to listen on")
	}
	All = append(All, Target{
		Name: name, Kind: Reference,
		Counted: []string{filepath.Base(argv[0])},
		Stop:    syscall.SIGTERM,
		launch: func(_ Target, e Env, _ string) (launch, error) {
			_, port, err := net.SplitHostPort(e.Addr)
			if err != nil {
				return launch{}, err
			}
			args := make([]string, len(argv)-1)
			for i, a := range argv[1:] {
				args[i] = strings.NewReplacer("{addr}", e.Addr, "{port}", port).Replace(a)
			}
			return launch{path: argv[0], args: args}, nil
		},
	})
	return nil
}
