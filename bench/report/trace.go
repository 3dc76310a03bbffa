package report

import (
	"bufio"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// TraceSection is bin/report -trace's key in Report.Sections, and its
// file's name, trace.txt; the traces themselves are in TraceDir beside it.
const TraceSection = "trace"

// TraceDir is the directory, beside trace.txt, of the run's traces
// (NAME.strace).
const TraceDir = "traces"

// A Trace is one server's system calls while a few requests came, far
// apart, on one keep-alive connection (BenchmarkTrace), split into the
// bursts of calls each request set off, and one of them annotated.
type Trace struct {
	Server string `json:"server"`
	// Bursts are the bursts of calls, each after a quiet gap of at
	// least burstGap; Calls those of the middle one of Requests, as a
	// request alone sets them off.
	// Requests are the bursts a request set off (those that read one);
	// PerRequest their calls by name, on average.
	Bursts     int                `json:"bursts"`
	Requests   int                `json:"requests"`
	PerRequest map[string]float64 `json:"calls_per_request"`
	Calls      []TraceCall        `json:"calls"`
	// File is the trace's file, under TraceDir.
	File string `json:"file"`
}

// A TraceCall is one system call of a burst.
type TraceCall struct {
	// AtUS is when it began, or for a wait of longWait or more when it
	// ended (the wake-up), µs after the burst's first call; TookUS how
	// long it lasted (strace's -T), µs.
	AtUS   float64 `json:"at_us"`
	TookUS float64 `json:"took_us"`
	// Thread is the thread that made it: A for the burst's first, then
	// B, C... in the order they first call.
	Thread string `json:"thread"`
	Name   string `json:"name"`
	Result string `json:"result"`
	// What says what the call is for, in plain words ("" if no rule
	// knows it).
	What string `json:"what"`
}

// burstGap is the quiet that separates two requests' bursts: the
// requests come 50 ms apart (BenchmarkTrace's 20 req/s), and a request's
// calls are within a millisecond or two of each other even under strace.
const burstGap = 10 * time.Millisecond

// AddTrace reads bin/report -trace's output, file, and the traces in dir
// into rep: Report.Traces and its section. A file that does not exist is
// a run not made, and leaves rep as it is.
func AddTrace(rep *Report, file, dir string) error {
	all, why := map[string]Samples{}, map[string]string{}
	sec, ok, err := ReadBench(file, all, why)
	if err != nil {
		return fmt.Errorf("%s: %v", file, err)
	}
	if !ok {
		return nil
	}
	var traces []Trace
	for _, key := range slices.Sorted(maps.Keys(all)) {
		server, ok := strings.CutPrefix(key, "hellobench/bench/BenchmarkTrace/")
		if !ok {
			continue
		}
		if w, ok := why[key]; ok {
			return fmt.Errorf("%s: %s fell over: %s", file, key, w)
		}
		t, err := ReadTrace(server, filepath.Join(dir, server+".strace"))
		if err != nil {
			return err
		}
		traces = append(traces, t)
	}
	if len(traces) == 0 {
		return nil
	}
	slices.SortStableFunc(traces, func(a, b Trace) int { return serverRank(a.Server) - serverRank(b.Server) })
	if rep.Sections == nil {
		rep.Sections = map[string]Section{}
	}
	rep.Sections[TraceSection] = sec
	rep.Traces = traces
	return nil
}

// A call is one system call read from strace's output, its unfinished
// and resumed halves joined.
type call struct {
	tid        string
	start, end time.Duration // since midnight
	at         time.Duration // where the call is placed: start, or end for a long wait
	name, args string
	result     string
}

// straceLine matches a line of strace -f -tt -T: thread, time, and the
// rest; resumed the rest of a resumed call.
var (
	straceLine = regexp.MustCompile(`^(\d+)\s+(\d\d):(\d\d):(\d\d)\.(\d{6}) (.*)$`)
	resumed    = regexp.MustCompile(`^<\.\.\. (\w+) resumed>(.*)$`)
	finished   = regexp.MustCompile(`^(.*)\) += (.*?) <(\d+\.\d+)>$`)
)

// ReadTrace reads a trace strace -f -tt -T wrote, splits it into bursts
// and annotates the middle one.
func ReadTrace(server, file string) (Trace, error) {
	calls, err := readStrace(file)
	if err != nil {
		return Trace{}, err
	}
	// A long wait is placed where it ends: the wake-up that starts a
	// burst, not the sleep that ended the one before.
	for i := range calls {
		calls[i].at = calls[i].start
		if calls[i].end-calls[i].start >= longWait {
			calls[i].at = calls[i].end
		}
	}
	slices.SortStableFunc(calls, func(a, b call) int { return int(a.at - b.at) })
	var bursts [][]call
	for i, c := range calls {
		if i == 0 || c.at-calls[i-1].at >= burstGap {
			bursts = append(bursts, nil)
		}
		bursts[len(bursts)-1] = append(bursts[len(bursts)-1], c)
	}
	if len(bursts) == 0 {
		return Trace{}, fmt.Errorf("%s: no system call traced", file)
	}
	// The bursts a request set off: those that read it, or where the
	// read is the kernel's (io_uring), those that a completion began.
	var reqs [][]call
	for _, b := range bursts {
		if slices.ContainsFunc(b, readsRequest) {
			reqs = append(reqs, b)
		}
	}
	if len(reqs) == 0 {
		for _, b := range bursts {
			if b[0].name == "io_uring_enter" && b[0].end-b[0].start >= longWait && !strings.HasPrefix(b[0].result, "-1") {
				reqs = append(reqs, b)
			}
		}
	}
	if len(reqs) == 0 {
		return Trace{}, fmt.Errorf("%s: no burst of calls that a request set off", file)
	}
	t := Trace{Server: server, Bursts: len(bursts), Requests: len(reqs), File: filepath.Base(file), PerRequest: map[string]float64{}}
	for _, b := range reqs {
		for _, c := range b {
			t.PerRequest[c.name] += 1 / float64(len(reqs))
		}
	}
	threads := map[string]string{}
	b := reqs[len(reqs)/2]
	for _, c := range b {
		if _, ok := threads[c.tid]; !ok {
			threads[c.tid] = string(rune('A' + len(threads)%26))
		}
		t.Calls = append(t.Calls, TraceCall{AtUS: us(c.at - b[0].at), TookUS: us(c.end - c.start), Thread: threads[c.tid],
			Name: c.name, Result: c.result, What: annotate(c)})
	}
	return t, nil
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// readStrace reads strace's lines into calls, in the order they began.
func readStrace(file string) ([]call, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var calls []call
	open := map[string]int{} // a thread's unfinished call: its index
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for n := 1; sc.Scan(); n++ {
		m := straceLine.FindStringSubmatch(sc.Text())
		if m == nil {
			return nil, fmt.Errorf("%s:%d: %q is not a line of strace -f -tt -T", file, n, sc.Text())
		}
		tid, rest := m[1], m[6]
		var at time.Duration
		for i, unit := range []time.Duration{time.Hour, time.Minute, time.Second, time.Microsecond} {
			v, _ := strconv.Atoi(m[2+i])
			at += time.Duration(v) * unit
		}
		if r := resumed.FindStringSubmatch(rest); r != nil {
			i, ok := open[tid]
			if !ok || calls[i].name != r[1] {
				continue // resumed from before the trace began
			}
			delete(open, tid)
			args, result, _ := split(r[2])
			calls[i].args += args
			calls[i].result, calls[i].end = result, at
			continue
		}
		if strings.HasPrefix(rest, "+++") || strings.HasPrefix(rest, "---") {
			continue // a thread's exit, a signal
		}
		name, args, ok := strings.Cut(rest, "(")
		if !ok {
			return nil, fmt.Errorf("%s:%d: %q is not a system call", file, n, rest)
		}
		c := call{tid: tid, start: at, end: at, name: name}
		if a, unfinished := strings.CutSuffix(args, " <unfinished ...>"); unfinished {
			c.args = a
			open[tid] = len(calls)
		} else {
			var took time.Duration
			c.args, c.result, took = split(args)
			c.end = at + took
		}
		calls = append(calls, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	return calls, nil
}

// split cuts a finished call's text into its arguments, its result and
// how long it took.
func split(s string) (args, result string, took time.Duration) {
	m := finished.FindStringSubmatch(s)
	if m == nil {
		return s, "?", 0
	}
	sec, _ := strconv.ParseFloat(m[3], 64)
	return m[1], m[2], time.Duration(sec * float64(time.Second))
}

// longWait is how long a wait has to last to be a sleep that the burst's
// first event ends.
const longWait = time.Millisecond

// annotate says in plain words what c is for, or "".
func annotate(c call) string {
	took := c.end - c.start
	failed := strings.HasPrefix(c.result, "-1 ")
	switch {
	case strings.HasPrefix(c.name, "epoll_") && c.name != "epoll_ctl" && took >= longWait && c.result == "0":
		return "wakes when its wait's timeout ends, with nothing ready"
	case strings.HasPrefix(c.name, "epoll_") && c.name != "epoll_ctl" && took >= longWait:
		return "wakes from a wait for readiness: a socket is readable, the request has come"
	case strings.HasPrefix(c.name, "epoll_") && c.name != "epoll_ctl" && c.result == "0":
		return "polls for ready sockets without waiting, and finds none"
	case strings.HasPrefix(c.name, "epoll_") && c.name != "epoll_ctl":
		return "waits for readiness (epoll)"
	case c.name == "io_uring_enter" && took >= longWait:
		return "wakes from a wait for completions: the receive has completed, the request has come"
	case c.name == "io_uring_enter" && strings.Contains(c.result, "ETIME"):
		return "waits a little for more completions, and its timer ends the wait"
	case c.name == "io_uring_enter":
		return "submits the queued operations (the answer's send, the next receive) and reaps completions"
	case readsRequest(c):
		return "reads the request (" + c.result + " bytes)"
	case isRead(c.name) && strings.Contains(c.result, "EAGAIN"):
		return "reads again and finds nothing: the socket is drained, so the reader parks until epoll says it is readable"
	case isWrite(c.name) && strings.Contains(c.args, "HTTP/1.") && !failed:
		return "writes the answer (" + c.result + " bytes)"
	case isWrite(c.name) && c.result == "8":
		return "writes 8 bytes to an eventfd: one thread wakes another's event loop"
	case c.name == "futex" && strings.Contains(c.args, "FUTEX_WAKE"):
		return "wakes another thread of the process"
	case c.name == "futex" && strings.Contains(c.args, "FUTEX_WAIT") && strings.Contains(c.result, "EAGAIN"):
		return "a thread would sleep, but another has already woken it"
	case c.name == "futex" && strings.Contains(c.args, "FUTEX_WAIT") && took >= longWait:
		return "a sleeping thread is woken"
	case c.name == "futex" && strings.Contains(c.args, "FUTEX_WAIT"):
		return "a thread goes to sleep until another wakes it"
	case c.name == "nanosleep":
		return "Go's system monitor (sysmon) naps between its checks"
	case c.name == "tgkill" && strings.Contains(c.args, "SIGURG"):
		return "Go preempts a goroutine that has run long (a signal to its thread)"
	}
	return ""
}

// readsRequest says whether c read a request.
func readsRequest(c call) bool { return isRead(c.name) && strings.Contains(c.args, "GET ") }

func isRead(name string) bool {
	return slices.Contains([]string{"read", "readv", "recvfrom", "recvmsg"}, name)
}

func isWrite(name string) bool {
	return slices.Contains([]string{"write", "writev", "sendto", "sendmsg"}, name)
}
