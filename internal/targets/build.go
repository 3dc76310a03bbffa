package targets

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

var buildMu sync.Mutex

// Build builds the Go packages of ts into the directory bin with one go
// build, run in the module root.
func Build(root, bin string, ts ...Target) error {
	args := []string{"build", "-o", bin + string(filepath.Separator)}
	for _, t := range ts {
		if t.Package != "" {
			args = append(args, t.Package)
		}
	}
	if len(args) == 3 {
		return nil
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// Binary returns the path of t's binary in bin, building it first when
// it is not there.
func (t Target) Binary(root, bin string) (string, error) {
	if t.Package == "" {
		return "", fmt.Errorf("%s is not built from Go", t.Name)
	}
	path := filepath.Join(bin, t.binary())
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	return path, Build(root, bin, t)
}

// binary is the name of t's binary in bin/.
func (t Target) binary() string {
	if t.Bin != "" {
		return t.Bin
	}
	return t.Name
}
