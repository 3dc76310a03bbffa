package main

import (
	"fmt"
	"testing"
	"time"

	"hellobench/page"
	"hellobench/servers/internal/jsontest"
)

// TestJSON serves as main does, through the guard (start, in
// guard_test.go), and bare: c.JSON adds a charset to the media type.
func TestJSON(t *testing.T) {
	for _, bare := range []bool{false, true} {
		t.Run(fmt.Sprintf("bare=%v", bare), func(t *testing.T) {
			jsontest.Answers(t, start(t, 5*time.Second, bare), "hertz", page.JSONType+"; charset=utf-8")
		})
	}
}
