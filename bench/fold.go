package bench

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// KernelSuffix marks a kernel function in a folded stack, as the
// folded-stack tools (stackcollapse-perf's --kernel) mark it: the rules
// that sort samples into categories and the flame graph's colours read it.
const KernelSuffix = "_[k]"

// ProfileFile is the name of the folded stacks of server name at a load
// (BenchmarkProfile's "saturated", "of=25%").
func ProfileFile(name, load string) string {
	return name + "_" + strings.NewReplacer("=", "", "%", "").Replace(load) + ".folded.gz"
}

// FoldPerf reads perf script's output (-F comm,tid,period,ip,sym,dso) and
// returns its samples as folded stacks, the frames from the root down
// joined by ";", with the number of samples each was seen in. A frame
// without a symbol is named by its object in brackets ([libc.so.6]), and
// a run of such frames of one object is one frame.
func FoldPerf(r io.Reader) (map[string]int64, error) {
	folded := map[string]int64{}
	var frames []string // leaf first, as perf prints them
	inSample := false
	flush := func() {
		if inSample && len(frames) > 0 {
			slices.Reverse(frames)
			folded[strings.Join(frames, ";")]++
		}
		frames, inSample = frames[:0], false
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "":
			flush()
		case line[0] != ' ' && line[0] != '\t':
			flush()
			inSample = true
		case inSample:
			f, err := perfFrame(line)
			if err != nil {
				return nil, err
			}
			// A walk through code built without frame pointers (lighttpd's)
			// can repeat an unnamed frame a hundred times: once is its truth.
			if n := len(frames); n > 0 && strings.HasPrefix(f, "[") && frames[n-1] == f {
				continue
			}
			frames = append(frames, f)
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("bench: perf script: %v", err)
	}
	return folded, nil
}

// perfFrame is one frame line of perf script: an address, the symbol (or
// [unknown]) and the object in parentheses.
func perfFrame(line string) (string, error) {
	line = strings.TrimSpace(line)
	addr, rest, ok := strings.Cut(line, " ")
	open := strings.LastIndex(rest, " (")
	if !ok || open < 0 || !strings.HasSuffix(rest, ")") {
		return "", fmt.Errorf("bench: perf script: a frame %q, not address symbol (object)", line)
	}
	if _, err := strconv.ParseUint(addr, 16, 64); err != nil {
		return "", fmt.Errorf("bench: perf script: a frame %q, not address symbol (object)", line)
	}
	sym, dso := strings.TrimSpace(rest[:open]), rest[open+2:len(rest)-1]
	// Folded stacks separate frames with ";" and a stack from its count
	// with a space: neither may stay inside a name.
	sym = strings.NewReplacer(";", ":", " ", "_").Replace(sym)
	if sym == "[unknown]" || sym == "" {
		sym = dso
		if !strings.HasPrefix(dso, "[") {
			sym = "[" + filepath.Base(dso) + "]"
		}
	}
	if dso == "[kernel.kallsyms]" || strings.HasPrefix(dso, "[kernel") {
		sym += KernelSuffix
	}
	return sym, nil
}

// WriteFolded writes folded stacks to file, gzip-compressed, one "stack
// count" line each, in the stacks' order.
func WriteFolded(file string, folded map[string]int64) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	defer f.Close()
	z := gzip.NewWriter(f)
	w := bufio.NewWriter(z)
	for _, stack := range slices.Sorted(maps.Keys(folded)) {
		fmt.Fprintf(w, "%s %d\n", stack, folded[stack])
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := z.Close(); err != nil {
		return err
	}
	return f.Close()
}

// ReadFolded reads a file WriteFolded wrote (or one uncompressed, when its
// name does not end in .gz).
func ReadFolded(file string) (map[string]int64, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(file, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", file, err)
		}
		r = z
	}
	folded := map[string]int64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		i := strings.LastIndexByte(line, ' ')
		if i <= 0 {
			return nil, fmt.Errorf("%s:%d: %q is not a folded stack (frames;... count)", file, n, line)
		}
		stack := line[:i]
		c, err := strconv.ParseInt(line[i+1:], 10, 64)
		if err != nil || c < 0 {
			return nil, fmt.Errorf("%s:%d: %q is not a folded stack (frames;... count)", file, n, line)
		}
		folded[stack] += c
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	return folded, nil
}
