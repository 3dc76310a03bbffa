package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Bombardier runs bombardier (its default fasthttp client) for a duration:
// bombardier -cC -dD -l -p r -o json. It is a Go program; run pins it to
// one core with GOMAXPROCS=1.
type Bombardier struct {
	Bin  string
	CPUs string // taskset CPU list to pin it to; "": not pinned
}

func (b Bombardier) Name() string { return "bombardier" }

// Unsupported says why bombardier cannot run m, or "" when it can.
func (b Bombardier) Unsupported(m Mode) string {
	switch m {
	case Pipeline:
		return "bombardier waits for each response before sending the next request: no pipelining"
	case Conn10:
		return noPerConn
	}
	return ""
}

// Args returns bombardier's command-line arguments for l. For Close it asks
// for "Connection: close", which its fasthttp client obeys by dialling anew
// for the next request (its -a applies to the net/http client only).
func (b Bombardier) Args(l Load) []string {
	args := []string{"-c", strconv.Itoa(l.Connections), "-d", l.Duration.String(), "-l", "-p", "r", "-o", "json"}
	if l.Mode == Close {
		args = append(args, "-H", "Connection: close")
	}
	return append(args, l.URL)
}

// Run runs bombardier and fails on any error and on any response but a 2xx.
// Its fasthttp client retries a GET whose connection the server closed
// unanswered, so most such drops show as a lower rate, not as errors.
func (b Bombardier) Run(l Load) (Stats, error) {
	if err := checkLoad(b, l); err != nil {
		return Stats{}, err
	}
	if l.Duration < time.Second {
		return Stats{}, fmt.Errorf("bench: bombardier runs at least 1s, not %v", l.Duration)
	}
	return runTimed("bombardier", b.Bin, b.CPUs, b.Args(l), l.URL)
}

// bombardierJSON is the part of bombardier's -o json result read here.
type bombardierJSON struct {
	Result *struct {
		TimeTaken float64 `json:"timeTakenSeconds"`
		Req1xx    int64   `json:"req1xx"`
		Req2xx    int64   `json:"req2xx"`
		Req3xx    int64   `json:"req3xx"`
		Req4xx    int64   `json:"req4xx"`
		Req5xx    int64   `json:"req5xx"`
		Others    int64   `json:"others"` // requests that got no response
		Errors    []struct {
			Description string `json:"description"`
			Count       int64  `json:"count"`
		} `json:"errors"`
		Latency struct {
			Percentiles map[string]float64 `json:"percentiles"` // µs
		} `json:"latency"`
	} `json:"result"`
}

// parseBombardier reads bombardier's -o json -p r result.
func parseBombardier(out []byte) (Stats, error) {
	var s Stats
	var j bombardierJSON
	if err := json.Unmarshal(out, &j); err != nil || j.Result == nil {
		return s, fmt.Errorf("bench: unreadable bombardier output (%v): %.300q", err, out)
	}
	r := j.Result
	s.Requests = r.Req2xx
	s.Elapsed = time.Duration(r.TimeTaken * float64(time.Second))
	if r.TimeTaken > 0 {
		s.ReqPerSec = float64(r.Req2xx) / r.TimeTaken
	}
	s.P50 = time.Duration(r.Latency.Percentiles["50"] * float64(time.Microsecond))
	s.P99 = time.Duration(r.Latency.Percentiles["99"] * float64(time.Microsecond))
	if other := r.Req1xx + r.Req3xx + r.Req4xx + r.Req5xx; other > 0 || r.Others > 0 || len(r.Errors) > 0 {
		var errs []string
		for _, e := range r.Errors {
			errs = append(errs, fmt.Sprintf("%d× %s", e.Count, e.Description))
		}
		return s, fmt.Errorf("bench: bombardier: %d non-2xx responses (%d 1xx, %d 3xx, %d 4xx, %d 5xx) and %d failed requests [%s] besides %d 2xx",
			other, r.Req1xx, r.Req3xx, r.Req4xx, r.Req5xx, r.Others, strings.Join(errs, "; "), r.Req2xx)
	}
	if s.Requests == 0 {
		return s, errors.New("bench: bombardier: no complete request")
	}
	return s, nil
}
