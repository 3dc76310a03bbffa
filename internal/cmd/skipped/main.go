// Command skipped reads `go test -json` on its standard input, prints what
// a plain `go test` prints (each package's result, and the output of
// failing tests), and ends with the list of skipped tests and why, so
// that a skip is never silent. It exits 1 when any test or package failed.
//
// Usage:
//
//	go test -json ./... | skipped
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// An event is one line of test2json's output.
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

type key struct{ pkg, test string }

func main() {
	output := map[key][]string{} // a test's output, kept until it ends
	var skips []string
	failed := false
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			// Not an event: go's own messages (a build error) pass through.
			fmt.Println(sc.Text())
			continue
		}
		k := key{e.Package, e.Test}
		switch e.Action {
		case "output":
			output[k] = append(output[k], e.Output)
			if e.Test == "" && isResult(e.Output) {
				fmt.Print(e.Output)
			}
		case "skip":
			if e.Test != "" {
				skips = append(skips, fmt.Sprintf("%s %s: %s", e.Package, e.Test, reason(output[k])))
			}
			delete(output, k)
		case "fail":
			failed = true
			if e.Test == "" {
				for _, line := range output[k] {
					if !isResult(line) {
						fmt.Print(line)
					}
				}
			} else {
				fmt.Print(strings.Join(output[k], ""))
			}
			delete(output, k)
		case "pass":
			delete(output, k)
		case "build-fail":
			failed = true
		case "build-output":
			fmt.Print(e.Output)
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "skipped:", err)
		os.Exit(1)
	}
	if len(skips) > 0 {
		fmt.Printf("\n%d tests skipped:\n", len(skips))
		for _, s := range skips {
			fmt.Println("  " + s)
		}
	} else {
		fmt.Println("\nno test skipped")
	}
	if failed {
		os.Exit(1)
	}
}

// isResult reports whether a package's output line is its summary ("ok",
// "FAIL", "?").
func isResult(line string) bool {
	for _, p := range []string{"ok  \t", "FAIL\t", "?   \t", "--- FAIL", "FAIL\n"} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// reason picks the skip message out of a skipped test's output.
func reason(lines []string) string {
	var r []string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "=== ") || strings.HasPrefix(l, "--- SKIP") {
			continue
		}
		// "file_test.go:12: message"
		if _, msg, ok := strings.Cut(l, ": "); ok && strings.Contains(l, "_test.go:") {
			l = msg
		}
		r = append(r, l)
	}
	if len(r) == 0 {
		return "(no reason given)"
	}
	return strings.Join(r, "; ")
}
