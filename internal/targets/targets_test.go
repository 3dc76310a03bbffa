package targets

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestTableMatchesTree checks that every folder under servers/ is a row of
// the table and every row's package exists: a server cannot be added or
// removed in one place only.
func TestTableMatchesTree(t *testing.T) {
	ents, err := os.ReadDir("../../servers")
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range ents {
		// servers/internal holds the guards two servers on the same
		// stack share; it is not a server.
		if e.IsDir() && e.Name() != "internal" {
			dirs = append(dirs, e.Name())
		}
	}
	servers := Names(Server)
	slices.Sort(dirs)
	sorted := slices.Sorted(slices.Values(servers))
	if !slices.Equal(dirs, sorted) {
		t.Errorf("servers/ holds %v, the table's servers are %v", dirs, sorted)
	}
	for _, tg := range All {
		if tg.Package != "" {
			if _, err := os.Stat("../../" + tg.Package); err != nil {
				t.Errorf("%s: package %s: %v", tg.Name, tg.Package, err)
			}
		}
		if len(tg.Counted) == 0 || tg.Stop == 0 || tg.launch == nil || tg.ServerHeader == "" {
			t.Errorf("%s: incomplete row %+v", tg.Name, tg)
		}
		if tg.Kind == Server && tg.Port == 0 {
			t.Errorf("%s: a server without its own port", tg.Name)
		}
	}
}

func TestLookup(t *testing.T) {
	tg, err := Lookup("fcgi")
	if err != nil || tg.Name != "fcgi" || !slices.Equal(tg.Counted, []string{"lighttpd", "fcgi"}) {
		t.Errorf("Lookup(fcgi) = %+v, %v", tg, err)
	}
	_, err = Lookup("apache")
	if err == nil || !strings.Contains(err.Error(), `unknown target "apache" (known: nethttp, fasthttp, fiber, gin, gnet, fcgi, echo, chi, hertz, nginx, lighttpd-static, floor)`) {
		t.Errorf("Lookup(apache): %v", err)
	}
}
