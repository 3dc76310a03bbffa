package report

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"slices"
	"strings"

	"hellobench/internal/targets"
)

// StackVersions is, by stack name, the modules (as "path version") whose
// packages each server under servers/ imports directly, as the build in
// root resolves them: go.mod's requirements after minimal version
// selection, the versions linked into bin/NAME. The Go project's
// golang.org/x modules (system calls, not HTTP) are left out; a stack of
// the standard library alone has none.
func StackVersions(root string) (map[string][]string, error) {
	var pkgs []string
	name := map[string]string{} // import path → stack
	for _, n := range targets.Names() {
		t, err := targets.Lookup(n)
		if err != nil || t.Kind != targets.Server || !strings.HasPrefix(t.Package, "./servers/") {
			continue
		}
		pkgs = append(pkgs, t.Package)
		name["hellobench/"+strings.TrimPrefix(t.Package, "./")] = n
	}
	imports, err := goList(root, "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", pkgs)
	if err != nil {
		return nil, err
	}
	mods, err := goList(root, "{{.ImportPath}}{{with .Module}}{{if not .Main}} {{.Path}} {{.Version}}{{end}}{{end}}", append([]string{"-deps"}, pkgs...))
	if err != nil {
		return nil, err
	}
	return stackModules(imports, mods, name), nil
}

// stackModules joins go list's lines: each server package's imports
// ("pkg imp imp ...") and each package's module ("pkg path version"), by
// the stacks' names.
func stackModules(imports, mods []string, name map[string]string) map[string][]string {
	module := map[string]string{}
	for _, l := range mods {
		if f := strings.Fields(l); len(f) == 3 {
			module[f[0]] = f[1] + " " + f[2]
		}
	}
	v := map[string][]string{}
	for _, l := range imports {
		f := strings.Fields(l)
		if len(f) == 0 || name[f[0]] == "" {
			continue
		}
		var ms []string
		for _, imp := range f[1:] {
			if m := module[imp]; m != "" && !strings.HasPrefix(m, "golang.org/x/") && !slices.Contains(ms, m) {
				ms = append(ms, m)
			}
		}
		slices.Sort(ms)
		v[name[f[0]]] = ms
	}
	return v
}

// goList runs go list with a -f template in root, a line per package.
func goList(root, format string, args []string) ([]string, error) {
	cmd := exec.Command("go", append([]string{"list", "-f", format}, args...)...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines, sc.Err()
}
