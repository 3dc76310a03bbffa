package report

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// PickFile is make bench's one run: every figure of the pick table,
// measured in one invocation on one host (PickSection).
const PickFile = PickSection + ".txt"

// ReadPick reads make bench's run in dir on its own, so that nothing of
// another run's can enter the pick table; nil when dir has none.
func ReadPick(dir string) (*Report, error) {
	file := filepath.Join(dir, PickFile)
	if err := Stat(file); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	rep, err := Read(map[string]string{PickSection: file})
	if err != nil {
		return nil, err
	}
	rep.Machine = rep.Sections[PickSection].Machine
	return &rep, nil
}

// A Hostile is one server's results against hostile clients, as the
// robustness suite (package robust) wrote them into its page.
type Hostile struct {
	Server string
	// Held are the tests every assertion of which passed; Deviations
	// those held with a documented shortfall, Failed and Skipped the
	// rest, each by test name.
	Held                        int
	Deviations, Failed, Skipped []string
}

// Robustness is the robustness suite's page as the pick table reads it:
// when and where it ran, and each server's results.
type Robustness struct {
	Date string
	// Host is the host key the page names (HostKey), "" on a page from
	// before it named one.
	Host    string
	Full    bool
	Servers []Hostile
}

// Robustness page lines the pick table reads.
const (
	robustDatePrefix = "run on "
	RobustHostPrefix = "Host key: "
)

// ReadRobustness reads the robustness suite's page (results/ROBUSTNESS.md):
// each server's section and the Result column of its table. A missing
// page is none.
func ReadRobustness(file string) (*Robustness, error) {
	f, err := os.Open(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r Robustness
	var cur *Hostile
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "Written by the robustness suite"):
			r.Full = strings.Contains(line, "full sizes")
			if _, d, ok := strings.Cut(line, robustDatePrefix); ok {
				r.Date = strings.TrimSuffix(d, ".")
			}
		case strings.HasPrefix(line, RobustHostPrefix):
			r.Host = strings.TrimSuffix(strings.TrimPrefix(line, RobustHostPrefix), ".")
		case strings.HasPrefix(line, "## "):
			// A server's section is headed by its name; the corpus's
			// and later sections by words.
			cur = nil
			if name := strings.TrimPrefix(line, "## "); !strings.Contains(name, " ") {
				r.Servers = append(r.Servers, Hostile{Server: name})
				cur = &r.Servers[len(r.Servers)-1]
			}
		case cur != nil && strings.HasPrefix(line, "| ") && !strings.HasPrefix(line, "| Test |"):
			cells := strings.Split(line, " | ")
			if len(cells) < 4 {
				continue
			}
			test, result := strings.TrimPrefix(cells[0], "| "), cells[2]
			switch {
			case result == "held":
				cur.Held++
			case strings.HasPrefix(result, "deviation"):
				cur.Deviations = append(cur.Deviations, test)
			case strings.HasPrefix(result, "skipped"):
				cur.Skipped = append(cur.Skipped, test)
			case strings.HasPrefix(result, "**failed**"):
				cur.Failed = append(cur.Failed, test)
			default:
				return nil, fmt.Errorf("%s: %s's %s: a result %q of no known kind", file, cur.Server, test, result)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if r.Date == "" {
		return nil, fmt.Errorf("%s: no line says when the suite ran", file)
	}
	return &r, nil
}

// Find is server's results, if the page has them.
func (r *Robustness) Find(server string) (Hostile, bool) {
	if r == nil {
		return Hostile{}, false
	}
	for _, h := range r.Servers {
		if h.Server == server && h.Held+len(h.Deviations)+len(h.Failed)+len(h.Skipped) > 0 {
			return h, true
		}
	}
	return Hostile{}, false
}
