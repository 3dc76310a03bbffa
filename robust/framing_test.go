package robust

import (
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"hellobench/internal/targets"
)

var framingFrom = flag.String("framing", "", "the conformance suite's framing results (HELLOBENCH_FRAMING_OUT) to add to the report, `file`")

// framingRun is the part of the conformance suite's framing results the
// report reads: every case's category, and each server's outcome, guarded
// and bare.
type framingRun struct {
	Cases []struct {
		Name     string `json:"name"`
		Category string `json:"category"`
	} `json:"cases"`
	Results []struct {
		Server    string `json:"server"`
		Mode      string `json:"mode"`
		Case      string `json:"case"`
		OK        bool   `json:"ok"`
		Deviation string `json:"deviation"`
		Skipped   string `json:"skipped"`
	} `json:"results"`
}

// framingTable writes, per category, how many cases each server meets out
// of the box (bare) and with its guard, from the file -framing names.
func framingTable(b *strings.Builder, path string) error {
	if path == "" {
		return nil
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var run framingRun
	if err := json.Unmarshal(raw, &run); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	category := map[string]string{}
	var categories []string
	total := map[string]int{}
	for _, c := range run.Cases {
		category[c.Name] = c.Category
		if !slices.Contains(categories, c.Category) {
			categories = append(categories, c.Category)
		}
		total[c.Category]++
	}
	// met[server/mode/category] counts the cases met; skipped marks a
	// server and mode that did not run.
	met := map[string]int{}
	dev := map[string]int{}
	skipped := map[string]string{}
	for _, r := range run.Results {
		k := r.Server + "/" + r.Mode
		if r.Skipped != "" {
			skipped[k] = r.Skipped
			continue
		}
		if r.OK {
			met[k+"/"+category[r.Case]]++
			if r.Deviation != "" {
				dev[k+"/"+category[r.Case]]++
			}
		}
	}
	b.WriteString("## The request corpus: out of the box and with each server's guard\n\n")
	b.WriteString("The conformance suite's request corpus (conformance/framing_test.go and conformance/corpus_test.go, each case with its RFC section " +
		"and the public suite it comes from), run against every server as it serves and against its stack out of the box " +
		"(`-bare`: without the server's guard). Each cell is the cases met of the category, out of the box → with the guard; " +
		"a case is met when the exact statuses come back, the connection is closed or kept as the case asks, and nothing answers " +
		"the bytes behind a refused request or a body. A server's listed deviations (in the suite, each with its reason) count as met " +
		"and are shown in brackets. For fcgi, lighttpd is the HTTP server, the same out of the box and as served: its two figures differ by its deviations, " +
		"counted as met only as served.\n\n")
	servers := targets.Names(targets.Server)
	b.WriteString("| category | cases | " + strings.Join(servers, " | ") + " |\n|---|--:|" + strings.Repeat("---|", len(servers)) + "\n")
	// The whole corpus, last.
	const all = "whole corpus"
	for k, n := range maps.Clone(met) {
		if i := strings.LastIndexByte(k, '/'); i >= 0 {
			met[k[:i]+"/"+all] += n
		}
	}
	for k, n := range maps.Clone(dev) {
		if i := strings.LastIndexByte(k, '/'); i >= 0 {
			dev[k[:i]+"/"+all] += n
		}
	}
	total[all] = len(run.Cases)
	categories = append(categories, all)
	for _, c := range categories {
		fmt.Fprintf(b, "| %s | %d |", c, total[c])
		for _, s := range servers {
			fmt.Fprintf(b, " %s → %s |", cellOf(met, dev, skipped, s+"/bare", c), cellOf(met, dev, skipped, s+"/guarded", c))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	for _, s := range servers {
		if why := skipped[s+"/bare"]; why != "" {
			fmt.Fprintf(b, "- %s out of the box: not run: %s\n", s, why)
		}
	}
	b.WriteString("\n")
	return nil
}

func cellOf(met, dev map[string]int, skipped map[string]string, key, category string) string {
	if skipped[key] != "" {
		return "–"
	}
	s := fmt.Sprint(met[key+"/"+category])
	if d := dev[key+"/"+category]; d > 0 {
		s += fmt.Sprintf(" (%d)", d)
	}
	return s
}
