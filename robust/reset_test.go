package robust

import (
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"hellobench/internal/targets"
)

// TestResets resets connections (SO_LINGER 0, so the kernel sends RST)
// mid-request, after half a request, and mid-response, after a few bytes
// of pipelined responses. The server must keep serving and must not keep
// the descriptors of the reset connections.
func TestResets(t *testing.T) {
	n := size().resets
	forEach(t, "resets", fmt.Sprintf("%d mid-request, %d mid-response", n, n), true, func(t *test, tg targets.Target) {
		in := t.start(tg, targets.Env{})
		t.serves(in, 5*time.Second, "before the resets")
		pid := t.httpPID(in)
		base := t.files(pid)
		for i := 1; i <= n; i++ {
			if err := resetMidRequest(in.Addr); err != nil {
				t.Fatalf("reset %d mid-request: %v", i, err)
			}
			if err := resetMidResponse(in.Addr); err != nil {
				t.Fatalf("reset %d mid-response: %v", i, err)
			}
			if i%50 == 0 || i == n {
				t.serves(in, 5*time.Second, fmt.Sprintf("after %d resets of each kind", i))
			}
		}
		_, open, ok := t.waitFiles(pid, 5*time.Second, func(c int) bool { return c <= base })
		t.row.add(t, "descriptors after", "%d more than before", open-base)
		if !ok {
			t.Errorf("%d descriptors more than before the resets, 5 s after them", open-base)
		}
	})
}

// resetMidRequest sends half a request and resets the connection.
func resetMidRequest(addr string) error {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return err
	}
	defer reset(c)
	_, err = io.WriteString(c, request[:len(request)/2])
	return err
}

// resetMidResponse sends ten pipelined requests, reads the first bytes of
// the answers, and resets the connection with the rest unread.
func resetMidResponse(addr string) error {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return err
	}
	defer reset(c)
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, strings.Repeat(request, 10)); err != nil {
		return err
	}
	buf := make([]byte, 16)
	if _, err := io.ReadFull(c, buf); err != nil {
		return fmt.Errorf("no answer begun: %w", err)
	}
	if !strings.HasPrefix(string(buf), "HTTP/1.1 200 ") {
		return fmt.Errorf("the answer begins %q", buf)
	}
	return nil
}
