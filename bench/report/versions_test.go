package report

import (
	"slices"
	"testing"
)

// TestStackVersions lists the modules the servers import as go list
// resolves them from go.mod: fasthttp under fasthttp and fiber, none for
// the standard library's server.
func TestStackVersions(t *testing.T) {
	v, err := StackVersions("../..")
	if err != nil {
		t.Fatal(err)
	}
	if got := v["nethttp"]; len(got) != 0 {
		t.Errorf("nethttp: %q, want no module (the standard library)", got)
	}
	fasthttp := "github.com/valyala/fasthttp " + require(t, "github.com/valyala/fasthttp")
	if got := v["fasthttp"]; !slices.Equal(got, []string{fasthttp}) {
		t.Errorf("fasthttp: %q, want [%q]", got, fasthttp)
	}
	fiber := "github.com/gofiber/fiber/v2 " + require(t, "github.com/gofiber/fiber/v2")
	if got := v["fiber"]; !slices.Equal(got, []string{fiber, fasthttp}) {
		t.Errorf("fiber: %q, want [%q %q]", got, fiber, fasthttp)
	}
	if got := v["uring"]; len(got) != 0 {
		t.Errorf("uring: %q, want none (golang.org/x/sys left out)", got)
	}
	if _, ok := v["nginx"]; ok {
		t.Error("nginx, a reference, has Go modules")
	}
}

// require is go.mod's version of module path, read by go list -m.
func require(t *testing.T, path string) string {
	t.Helper()
	lines, err := goList("../..", "{{.Version}}", []string{"-m", path})
	if err != nil || len(lines) != 1 {
		t.Fatalf("go list -m %s: %q %v", path, lines, err)
	}
	return lines[0]
}

func TestStackModules(t *testing.T) {
	imports := []string{"hellobench/servers/a x/y golang.org/x/sys/unix net/http x/y/z", "hellobench/servers/b net/http", "hellobench/other x/y"}
	mods := []string{"x/y x v1.2.3", "x/y/z x v1.2.3", "golang.org/x/sys/unix golang.org/x/sys v0.1.0", "net/http"}
	got := stackModules(imports, mods, map[string]string{"hellobench/servers/a": "a", "hellobench/servers/b": "b"})
	if len(got) != 2 || !slices.Equal(got["a"], []string{"x v1.2.3"}) || len(got["b"]) != 0 {
		t.Errorf("stackModules = %q, want a: [x v1.2.3], b: none", got)
	}
}
