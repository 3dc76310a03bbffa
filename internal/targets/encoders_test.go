package targets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEncoders checks that every server names its JSON encoder and that
// the call named is in its code, so the report cannot name a call the
// server does not make.
func TestEncoders(t *testing.T) {
	for _, s := range Servers() {
		e, ok := Encoders[s.Name]
		if !ok {
			t.Errorf("%s: no entry in Encoders", s.Name)
			continue
		}
		pkg := s.Package
		if e.In != "" {
			pkg = e.In
		}
		files, err := filepath.Glob(filepath.Join("../..", pkg, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files in %s (%v)", s.Name, s.Package, err)
		}
		found := false
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			found = found || strings.Contains(string(b), e.Call+"(")
		}
		if !found {
			t.Errorf("%s: no call %s( in %s", s.Name, e.Call, pkg)
		}
	}
	if len(Encoders) != len(Servers()) {
		t.Errorf("%d entries in Encoders for %d servers", len(Encoders), len(Servers()))
	}
}
