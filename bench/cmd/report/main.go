// Command report runs the bench (or reads its saved output) and writes the
// report: REPORT.md, results.json, ceilings.svg and, after a sweep,
// sweep.svg, in the output directory.
//
// Usage:
//
//	report [-run] [-quick] [-sweep] [-rounds 3] [-n 200000] [-out results]
//
// With -run it first runs the in-memory benchmarks of every server package
// and the ceiling benchmarks, -rounds times in turn (so servers alternate,
// A B C A B C) and saves the output to bench.txt; with -sweep it runs the
// concurrency sweep into sweep.txt. Without them it renders what those
// files hold. Both files are standard `go test -bench` output: benchstat
// compares two of them.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"hellobench/bench"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("report: ")
	run := flag.Bool("run", false, "run the in-memory and ceiling benchmarks into bench.txt first")
	quick := flag.Bool("quick", false, "with -run: a smoke run of about a minute (keep-alive only, short runs, one round)")
	sweep := flag.Bool("sweep", false, "run the concurrency sweep into sweep.txt first")
	rounds := flag.Int("rounds", 3, "with -run: rounds of the ceiling benchmarks, taken as medians")
	n := flag.Int("n", 200000, "with -run: requests per ceiling run")
	sweepN := flag.Int("sweep-n", 100000, "with -sweep: requests per sweep run")
	out := flag.String("out", "results", "output `directory`")
	flag.Parse()
	if flag.NArg() > 0 {
		log.Fatalf("unexpected arguments %q", flag.Args())
	}
	root, err := bench.FindRoot()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	benchFile := filepath.Join(*out, "bench.txt")
	sweepFile := filepath.Join(*out, "sweep.txt")

	if *run {
		var cmds [][]string
		if *quick {
			cmds = append(cmds,
				[]string{"go", "test", "-run", "^$", "-bench", ".", "-benchmem", "-cpu", "1", "-benchtime", "20000x", "./servers/..."},
				[]string{"go", "test", "-run", "^$", "-bench", "Ceiling", "-benchtime", "50000x", "-timeout", "0", "./bench", "-args", "-modes", "keepalive", "-warmup", "2000"})
		} else {
			cmds = append(cmds, []string{"go", "test", "-run", "^$", "-bench", ".", "-benchmem", "-cpu", "1", "-count", "3", "./servers/..."})
			// A new connection per request is several times slower, so it
			// gets a fifth of the requests: enough CPU time to read.
			for range *rounds {
				cmds = append(cmds,
					[]string{"go", "test", "-run", "^$", "-bench", "Ceiling/.*/(keepalive|pipeline)", "-benchtime", fmt.Sprintf("%dx", *n), "-timeout", "0", "./bench"},
					[]string{"go", "test", "-run", "^$", "-bench", "Ceiling/.*/close", "-benchtime", fmt.Sprintf("%dx", *n/5), "-timeout", "0", "./bench"})
			}
		}
		if err := runAll(root, benchFile, cmds); err != nil {
			log.Fatal(err)
		}
	}
	if *sweep {
		cmd := []string{"go", "test", "-run", "^$", "-bench", "Sweep", "-benchtime", fmt.Sprintf("%dx", *sweepN), "-timeout", "0", "./bench"}
		if err := runAll(root, sweepFile, [][]string{cmd}); err != nil {
			log.Fatal(err)
		}
	}

	all := map[string]samples{}
	var commands []string
	for _, f := range []string{benchFile, sweepFile} {
		c, err := readBench(f, all)
		if err != nil {
			log.Fatal(err)
		}
		commands = append(commands, c...)
	}
	if len(all) == 0 {
		log.Fatalf("no benchmark results in %s or %s: run with -run", benchFile, sweepFile)
	}
	rep := build(all, commands)
	// The date is when the benchmarks ran, not when this report was drawn.
	if fi, err := os.Stat(benchFile); err == nil {
		rep.Machine.Date = fi.ModTime().UTC().Format(dateFormat)
	}
	if err := write(*out, rep); err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "report: wrote %s\n", filepath.Join(*out, "REPORT.md"))
}

// runAll runs the commands in root, writing their output (and each command,
// as a # command: line) to file and to stderr. A failing command ends the
// run: its figures would be incomplete.
func runAll(root, file string, cmds [][]string) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	defer f.Close()
	w := io.MultiWriter(f, os.Stderr)
	for _, c := range cmds {
		fmt.Fprintf(w, "%s%s\n", commandPrefix, quote(c))
		cmd := exec.Command(c[0], c[1:]...)
		cmd.Dir = root
		cmd.Stdout = w
		cmd.Stderr = w
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s: %v", quote(c), err)
		}
	}
	return f.Close()
}

func quote(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " $^*?'\"()|") {
			a = "'" + a + "'"
		}
		q[i] = a
	}
	return strings.Join(q, " ")
}

func readBench(file string, into map[string]samples) ([]string, error) {
	b, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return parseBench(bytes.NewReader(b), into)
}

// Machine is what the report records of the machine it ran on.
type Machine struct {
	CPU    string `json:"cpu"`
	Cores  int    `json:"cores"`
	Kernel string `json:"kernel"`
	Go     string `json:"go"`
	Date   string `json:"date"`
}

const dateFormat = "2006-01-02 15:04 MST"

func machine() Machine {
	m := Machine{Cores: runtime.NumCPU(), Go: runtime.Version(), Date: time.Now().UTC().Format(dateFormat)}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "model name"); ok {
				m.CPU = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = "Linux " + strings.TrimSpace(string(b))
	}
	if out, err := exec.Command("go", "env", "GOVERSION").Output(); err == nil {
		m.Go = strings.TrimSpace(string(out))
	}
	return m
}
