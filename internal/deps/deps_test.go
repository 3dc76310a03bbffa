package deps

import (
	"slices"
	"strings"
	"testing"
)

func TestTable(t *testing.T) {
	var names []string
	for _, p := range Programs {
		if p.Name == "" || p.Package == "" || p.For == "" {
			t.Errorf("%+v: a field is empty", p)
		}
		if strings.ContainsAny(p.Name+p.Package, " \t\n") {
			// deps.sh reads the command's output split at white space.
			t.Errorf("%+v: white space in the name or the package", p)
		}
		if slices.Contains(names, p.Name) {
			t.Errorf("%s: listed twice", p.Name)
		}
		names = append(names, p.Name)
	}
}

func TestNotInstalled(t *testing.T) {
	for name, want := range map[string]string{
		"hey":      "hey is not installed: apt-get install hey",
		"nginx":    "nginx is not installed: apt-get install nginx-light",
		"no-such":  "no-such is not installed",
		"lighttpd": "lighttpd is not installed: apt-get install lighttpd",
		// The program's name is not the package's.
		"gtlsclient": "gtlsclient is not installed: apt-get install ngtcp2-client",
	} {
		if got := NotInstalled(name); got != want {
			t.Errorf("NotInstalled(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestPackages(t *testing.T) {
	got := Packages()
	if n := strings.Count(strings.Join(got, " "), "util-linux"); n != 1 {
		t.Errorf("util-linux %d times in %v, want once", n, got)
	}
	for _, p := range Programs {
		if !slices.Contains(got, p.Package) {
			t.Errorf("%s's package %s is not in %v", p.Name, p.Package, got)
		}
	}
	if got[0] != "curl" {
		t.Errorf("Packages()[0] = %q, want the table's first, curl", got[0])
	}
}
