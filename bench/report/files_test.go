package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadFile: a summary reads the same plain or compressed, the plain
// one first; with neither, the error is the plain name's; a broken .gz
// says which file it is.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "bench.txt")
	if _, err := ReadFile(name); !os.IsNotExist(err) || !strings.Contains(err.Error(), name+":") {
		t.Errorf("neither file: %v", err)
	}
	if err := Stat(name); !os.IsNotExist(err) {
		t.Errorf("Stat of neither file: %v", err)
	}
	if err := WriteGzip(name, []byte("compressed\n")); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(name); err != nil || string(b) != "compressed\n" {
		t.Errorf("the .gz alone: %q, %v", b, err)
	}
	if err := Stat(name); err != nil {
		t.Errorf("Stat of the .gz alone: %v", err)
	}
	os.WriteFile(name, []byte("plain\n"), 0o644)
	if b, err := ReadFile(name); err != nil || string(b) != "plain\n" {
		t.Errorf("both: %q, %v; want the plain one", b, err)
	}
	// WriteGzip leaves the compressed file alone, the plain one removed.
	if err := WriteGzip(name, []byte("again\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(name); !os.IsNotExist(err) {
		t.Errorf("WriteGzip left the plain file: %v", err)
	}
	if b, err := ReadFile(name); err != nil || string(b) != "again\n" {
		t.Errorf("rewritten: %q, %v", b, err)
	}
	os.WriteFile(name+".gz", []byte("not gzip"), 0o644)
	if _, err := ReadFile(name); err == nil || !strings.HasPrefix(err.Error(), name+".gz: ") {
		t.Errorf("a broken .gz: %v", err)
	}
}
