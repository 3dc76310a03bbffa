package bench

// make compare WHAT=clients: every HTTP/1.1 load generator of the clients table
// at hand against one server, round after round, to see what each costs
// per request and how its rate compares with wrk's.

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"hellobench/internal/targets"
)

// A ClientsConfig says what CompareClients runs.
type ClientsConfig struct {
	Server      string        // the target every client loads
	Connections int           // each client's
	Duration    time.Duration // of each measured run
	Rounds      int
	Modes       []Mode   // in the order they run
	Clients     []string // from ClientNames, in the order each round runs them
}

// Check reports the first thing wrong with c, naming the flag of the
// clients command that sets it.
func (c ClientsConfig) Check() error {
	if _, err := targets.Lookup(c.Server); err != nil {
		return fmt.Errorf("-server: %v", err)
	}
	if c.Connections < 1 {
		return fmt.Errorf("-c %d: want at least one connection", c.Connections)
	}
	if c.Duration <= 0 {
		return fmt.Errorf("-d %v: want a positive duration", c.Duration)
	}
	if slices.Contains(c.Clients, "wrk") && c.Duration%time.Second != 0 {
		// Else wrk would run longer than the others.
		return fmt.Errorf("-d %v: wrk runs whole seconds; want 1s, 2s or more", c.Duration)
	}
	if slices.Contains(c.Clients, "bombardier") && c.Duration < time.Second {
		return fmt.Errorf("-d %v: bombardier runs at least 1s", c.Duration)
	}
	if c.Rounds < 1 {
		return fmt.Errorf("-rounds %d: want at least one round", c.Rounds)
	}
	modes := make([]string, len(Modes))
	for i, m := range Modes {
		modes[i] = string(m)
	}
	ms := make([]string, len(c.Modes))
	for i, m := range c.Modes {
		ms[i] = string(m)
	}
	if err := checkList("-modes", ms, modes); err != nil {
		return err
	}
	return checkList("-clients", c.Clients, ClientNames)
}

// checkList checks that list names at least one of known, each at most
// once.
func checkList(flag string, list, known []string) error {
	if len(list) == 0 {
		return fmt.Errorf("%s: empty; want some of %s", flag, strings.Join(known, ","))
	}
	for i, v := range list {
		if !slices.Contains(known, v) {
			return fmt.Errorf("%s: unknown %q; want some of %s", flag, v, strings.Join(known, ","))
		}
		if slices.Contains(list[:i], v) {
			return fmt.Errorf("%s: %q twice", flag, v)
		}
	}
	return nil
}

// A ClientsRun is one make compare WHAT=clients run.
type ClientsRun struct {
	Date        string       `json:"date"` // UTC, "2006-01-02 15:04 MST"
	Server      string       `json:"server"`
	Connections int          `json:"connections"`
	Duration    float64      `json:"duration_s"`
	Rounds      int          `json:"rounds"`
	Rows        []ClientsRow `json:"rows"`
}

// A ClientsRow is one client in one mode.
type ClientsRow struct {
	Client     string  `json:"client"`
	Mode       Mode    `json:"mode"`
	Skipped    string  `json:"skipped,omitempty"` // why the row was not measured
	ClientCPU  Figure  `json:"client_cpu_us_per_req"`
	ClientUser Figure  `json:"client_user_us_per_req"` // the part in user mode
	Segments   Figure  `json:"tcp_segments_per_req"`   // both ways
	ReqPerSec  Figure  `json:"req_per_sec"`
	ServerCPU  Figure  `json:"server_cpu_us_per_req"`
	Busy       Figure  `json:"server_cpu_pct"`
	ClientBusy Figure  `json:"client_cpu_pct"`
	CPUVsWrk   *Figure `json:"client_cpu_vs_wrk,omitempty"` // round by round
	RateVsWrk  *Figure `json:"req_per_sec_vs_wrk,omitempty"`
	// ServerVsLoadgen is the server's CPU per request under this client
	// over its CPU per request under loadgen, over the rounds in which the
	// server was saturated under both: near 1, the figure belongs to the
	// server, not to the client that loaded it.
	ServerVsLoadgen *Figure `json:"server_cpu_vs_loadgen,omitempty"`
}

// warmUp is how long the server is loaded, once, before the first
// measured run.
const warmUp = time.Second

// A cell is one client in one mode.
type cell struct {
	mode   Mode
	client string
}

// CompareClients starts cc.Server once, placed as cfg says, warms it up
// once, then for each mode runs every client in turn, round after round (A
// B C A B C ...), each run measured by Measure; progress gets a line per
// run. A client that is not installed, or lacks a mode, gets rows that say
// why. A client that fails is left out of the mode's later rounds and its
// row says why; the run is then returned with an error naming the
// failures. Any other error returns an empty run.
func CompareClients(cfg Config, cc ClientsConfig, progress io.Writer) (_ ClientsRun, err error) {
	if err := cc.Check(); err != nil {
		return ClientsRun{}, err
	}
	run := ClientsRun{
		Date:        time.Now().UTC().Format("2006-01-02 15:04 MST"),
		Server:      cc.Server,
		Connections: cc.Connections,
		Duration:    cc.Duration.Seconds(),
		Rounds:      cc.Rounds,
	}
	clients := make(map[string]Client)
	skipped := make(map[cell]string)
	for _, name := range cc.Clients {
		c, why, err := clientFor(cfg, name)
		if err != nil {
			return ClientsRun{}, err
		}
		for _, m := range cc.Modes {
			if lc, ok := c.(limited); ok {
				why = lc.Unsupported(m)
			}
			skipped[cell{m, name}] = why
		}
		clients[name] = c
	}

	s, err := cfg.Start(cc.Server, "")
	if err != nil {
		return ClientsRun{}, err
	}
	defer func() {
		if serr := s.Stop(); serr != nil && err == nil {
			err = serr
		}
	}()
	load := Load{URL: s.URL(), Connections: cc.Connections, Duration: cc.Duration}
	fmt.Fprintf(progress, "%s on CPUs %q, clients on CPUs %q (GOMAXPROCS=1), %d connections, %v per run\n",
		cc.Server, cfg.ServerCPUs, cfg.ClientCPUs, cc.Connections, cc.Duration)
	if err := warm(clients, cc, skipped, load); err != nil {
		return ClientsRun{}, err
	}

	results := make(map[cell][]Result)
	var failures []string
	for _, m := range cc.Modes {
		load.Mode = m
		for i := range cc.Rounds {
			// Each round in its own order: no client always runs first,
			// or after the same one.
			for _, j := range Order(len(cc.Clients), i) {
				name := cc.Clients[j]
				k := cell{m, name}
				if skipped[k] != "" {
					continue
				}
				r, err := Measure(s, clients[name], load)
				if err != nil {
					select {
					case <-s.Proc.Exited():
						return ClientsRun{}, err
					default:
					}
					skipped[k] = fmt.Sprintf("failed in round %d: %v", i+1, err)
					failures = append(failures, fmt.Sprintf("%s %s: %s", name, m, skipped[k]))
					fmt.Fprintf(progress, "%-9s round %d/%d %-10s %s\n", m, i+1, cc.Rounds, name, skipped[k])
					continue
				}
				results[k] = append(results[k], r)
				fmt.Fprintf(progress, "%-9s round %d/%d %-10s %9.0f req/s  client %6.2f µs/req %4.0f%% busy  server %6.2f µs/req %4.0f%% busy  %s\n",
					m, i+1, cc.Rounds, name, r.ReqPerSec, r.ClientCPUPerRequest(), r.ClientBusy(), r.CPUPerRequest(), r.Busy(), Label(cc.Connections, r.Busy(), r.ClientBusy()))
			}
		}
	}
	run.Rows = clientRows(cc.Modes, cc.Clients, results, skipped)
	if len(failures) > 0 {
		return run, fmt.Errorf("%d of the runs failed:\n%s", len(failures), strings.Join(failures, "\n"))
	}
	return run, nil
}

// clientFor returns the named client of the clients table pinned to
// cfg.ClientCPUs, or, when it is not installed, nil and why.
func clientFor(cfg Config, name string) (Client, string, error) {
	i := slices.IndexFunc(Clients, func(c ClientSpec) bool { return c.Name == name })
	if i < 0 {
		return nil, "", fmt.Errorf("bench: unknown client %q", name)
	}
	bin, why, err := Clients[i].find(cfg)
	if err != nil || why != "" {
		return nil, why, err
	}
	cpus := cfg.ClientCPUs
	switch name {
	case "loadgen":
		return Loadgen{Bin: bin, CPUs: cpus}, "", nil
	case "wrk":
		return Wrk{Bin: bin, CPUs: cpus}, "", nil
	case "h2load":
		return H2load{Bin: bin, CPUs: cpus}, "", nil
	case "bombardier":
		return Bombardier{Bin: bin, CPUs: cpus}, "", nil
	case "hey":
		return Hey{Bin: bin, CPUs: cpus}, "", nil
	}
	return nil, "", fmt.Errorf("bench: client %q has no adapter", name)
}

// warm loads the server for warmUp with the first client and mode that
// will run, so that the first measured run does not pay for its start.
func warm(clients map[string]Client, cc ClientsConfig, skipped map[cell]string, l Load) error {
	for _, m := range cc.Modes {
		for _, name := range cc.Clients {
			if skipped[cell{m, name}] != "" {
				continue
			}
			l.Mode, l.Duration = m, warmUp
			if _, err := clients[name].Run(l); err != nil {
				return fmt.Errorf("warm-up with %s, %s: %v", name, m, err)
			}
			return nil
		}
	}
	return nil
}

// clientRows makes a row of each client in each mode, in mode then client
// order, with each client's ratios to wrk in the same mode taken round by
// round: round i of both ran within the same round.
func clientRows(modes []Mode, names []string, results map[cell][]Result, skipped map[cell]string) []ClientsRow {
	var rows []ClientsRow
	for _, m := range modes {
		var wrk *ClientsRow
		start := len(rows)
		for _, name := range names {
			k := cell{m, name}
			row := ClientsRow{Client: name, Mode: m, Skipped: skipped[k]}
			if row.Skipped == "" {
				rs := results[k]
				row.ClientCPU = Of(rs, Result.ClientCPUPerRequest)
				row.ClientUser = Of(rs, Result.ClientUserPerRequest)
				row.Segments = Of(rs, Result.SegmentsPerRequest)
				row.ReqPerSec = Of(rs, func(r Result) float64 { return r.ReqPerSec })
				row.ServerCPU = Of(rs, Result.CPUPerRequest)
				row.Busy = Of(rs, Result.Busy)
				row.ClientBusy = Of(rs, Result.ClientBusy)
			}
			rows = append(rows, row)
		}
		var lg *ClientsRow
		for i := range rows[start:] {
			if r := &rows[start+i]; r.Client == "wrk" && r.Skipped == "" {
				wrk = r
			}
			if r := &rows[start+i]; r.Client == "loadgen" && r.Skipped == "" {
				lg = r
			}
		}
		if lg != nil {
			for i := range rows[start:] {
				if r := &rows[start+i]; r != lg && r.Skipped == "" {
					f := saturatedRatio(*r, *lg)
					r.ServerVsLoadgen = &f
				}
			}
		}
		if wrk == nil {
			continue
		}
		for i := range rows[start:] {
			r := &rows[start+i]
			if r == wrk || r.Skipped != "" {
				continue
			}
			cpu, rate := Ratio(r.ClientCPU, wrk.ClientCPU), Ratio(r.ReqPerSec, wrk.ReqPerSec)
			r.CPUVsWrk, r.RateVsWrk = &cpu, &rate
		}
	}
	return rows
}

// saturatedRatio is a's server CPU per request over b's, round by round,
// over the rounds in which the server was saturated (SaturatedCeiling)
// under both clients.
func saturatedRatio(a, b ClientsRow) Figure {
	saturated := func(r ClientsRow) Figure {
		return Only(r.ServerCPU, func(i int) bool { return i < len(r.Busy.Rounds) && r.Busy.Rounds[i] >= SaturatedCeiling })
	}
	return Ratio(saturated(a), saturated(b))
}

// WriteTable writes the run as a table per mode: each client's medians
// over the rounds, with their range for the client's own figures and its
// ratios to wrk, then the clients skipped and why.
func (r ClientsRun) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "%s, %d connections, %gs per run, %d rounds in changing orders: medians with %s\n", r.Server, r.Connections, r.Duration, r.Rounds, IntervalName(r.Rounds))
	var modes []Mode
	for _, row := range r.Rows {
		if !slices.Contains(modes, row.Mode) {
			modes = append(modes, row.Mode)
		}
	}
	for _, m := range modes {
		fmt.Fprintf(w, "\n%s\n", m)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "client\tclient CPU µs/req\tof it user\tsegments/req\treq/s\tserver CPU µs/req\tserver busy %\tclient busy %\tclient CPU vs wrk\treq/s vs wrk\tserver CPU vs under loadgen\tnote")
		var skipped []string
		for _, row := range r.Rows {
			switch {
			case row.Mode != m:
			case row.Skipped != "":
				skipped = append(skipped, row.Client+" skipped: "+row.Skipped)
			default:
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", row.Client,
					FormatFigure(row.ClientCPU, 2), FormatMedian(row.ClientUser, 2), FormatMedian(row.Segments, 2), FormatFigure(row.ReqPerSec, 0),
					FormatMedian(row.ServerCPU, 2), FormatMedian(row.Busy, 0), FormatMedian(row.ClientBusy, 0),
					FormatRatio(row.CPUVsWrk), FormatRatio(row.RateVsWrk), FormatRatio(row.ServerVsLoadgen), note(row, r.Connections))
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, s := range skipped {
			if _, err := fmt.Fprintln(w, s); err != nil {
				return err
			}
		}
	}
	return nil
}

// note counts the rounds of conns connections whose server core was not
// kept busy, by what set their pace.
func note(row ClientsRow, conns int) string {
	count := make(map[string]int)
	for i, b := range row.Busy.Rounds {
		if i < len(row.ClientBusy.Rounds) {
			if l := Label(conns, b, row.ClientBusy.Rounds[i]); l != "" {
				count[l]++
			}
		}
	}
	var notes []string
	for _, l := range []string{LatencyBound, ClientBound, Unsaturated} {
		if count[l] > 0 {
			notes = append(notes, fmt.Sprintf("%s in %d/%d rounds", l, count[l], len(row.Busy.Rounds)))
		}
	}
	return strings.Join(notes, ", ")
}

// Save writes r as indented JSON to path, making its directory.
func (r ClientsRun) Save(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
