package targets

import (
	"strings"
	"testing"
)

// TestAddExternalRefuses: a bad external target is refused with what is
// wrong, and the table is left as it was.
func TestAddExternalRefuses(t *testing.T) {
	n := len(All)
	for _, tc := range []struct {
		name string
		argv []string
		want string
	}{
		{"", []string{"x", "{port}"}, "a name without"},
		{"a/b", []string{"x", "{port}"}, "a name without"},
		{"y", nil, "no command"},
		{"nginx", []string{"x", "{port}"}, "the table has a target of that name"},
		{"y", []string{"x", "8080"}, "no {addr} or {port}"},
	} {
		if err := AddExternal(tc.name, tc.argv); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("AddExternal(%q, %q): %v, want an error saying %q", tc.name, tc.argv, err, tc.want)
		}
	}
	if len(All) != n {
		t.Errorf("the table grew from %d to %d rows", n, len(All))
	}
}
