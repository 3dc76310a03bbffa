package robust

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"hellobench/internal/proc"
	"hellobench/page"
)

// request is a keep-alive GET of the page.
const request = "GET " + page.Path + " HTTP/1.1\r\nHost: robust\r\n\r\n"

// readPage reads one response from br and checks that it is the page.
func readPage(br *bufio.Reader) error {
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return fmt.Errorf("body: %w", err)
	}
	if resp.StatusCode != http.StatusOK || !bytes.Equal(body, page.HTML) {
		return fmt.Errorf("status %d with %d body bytes, want 200 and the %d-byte page", resp.StatusCode, len(body), page.Size)
	}
	return nil
}

// get asks for the page on a new connection and checks the answer, all
// within d.
func get(addr string, d time.Duration) error {
	c, err := net.DialTimeout("tcp", addr, d)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(d))
	if _, err := io.WriteString(c, "GET "+page.Path+" HTTP/1.1\r\nHost: robust\r\nConnection: close\r\n\r\n"); err != nil {
		return fmt.Errorf("send: %w", err)
	}
	if err := readPage(bufio.NewReader(c)); err != nil {
		return fmt.Errorf("a new connection: %w", err)
	}
	return nil
}

// reset closes c with SO_LINGER 0, so that the kernel sends RST.
func reset(c net.Conn) {
	c.(*net.TCPConn).SetLinger(0)
	c.Close()
}

// A load is what loadgen -json reports, the fields the suite reads.
type load struct {
	Complete int64 `json:"complete"`
	Failed   int64 `json:"failed"`
	Failures struct {
		Length int64 `json:"length"`
	} `json:"failures"`
	Non2xx  int64 `json:"non_2xx"`
	Latency struct {
		P99 float64 `json:"p99"`
	} `json:"latency_us"`
}

// loadgen runs loadgen -json with args. Exit status 1 with a report is a
// run that had failures: the report is returned for the caller to judge.
func loadgen(args ...string) (load, error) {
	out, _, err := proc.Run(proc.Spec{
		Name: "loadgen", Path: filepath.Join(binDir, "loadgen"),
		Args: append([]string{"-json"}, args...),
	})
	var ee *proc.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.Code == 1) {
		return load{}, err
	}
	var l load
	if jerr := json.Unmarshal(out, &l); jerr != nil {
		if err != nil {
			return load{}, err
		}
		return load{}, fmt.Errorf("loadgen printed no JSON report (%v): %.200q", jerr, out)
	}
	return l, nil
}

// served checks that a run of loadgen had every request answered 2xx.
func (l load) served() error {
	if l.Complete == 0 || l.Failed != 0 || l.Non2xx != 0 {
		return fmt.Errorf("loadgen: %d complete, %d failed, %d not 2xx", l.Complete, l.Failed, l.Non2xx)
	}
	return nil
}

// bystander runs loadgen -k -c 2 for d against url in the background: a
// normal client beside a hostile one.
func bystander(url string, d time.Duration) <-chan result {
	ch := make(chan result, 1)
	go func() {
		l, err := loadgen("-k", "-c", "2", "-d", d.String(), url)
		ch <- result{l, err}
	}()
	return ch
}

type result struct {
	load
	err error
}

// check fails t unless the bystander was served, and adds its figures.
func (t *test) check(r result) {
	t.Helper()
	if r.err != nil {
		t.Fatalf("bystander: %v", r.err)
	}
	t.row.add(t, "bystander", "%d requests, p99 %.2f ms", r.Complete, r.Latency.P99/1e3)
	if err := r.served(); err != nil {
		t.Errorf("bystander: %v", err)
	}
}
