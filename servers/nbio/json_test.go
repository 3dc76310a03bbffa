package main

import (
	"fmt"
	"testing"
	"time"

	"hellobench/page"
	"hellobench/servers/internal/jsontest"
)

// TestJSON serves as main does, through the guard, and bare: json.Encoder
// ends the Message with a newline.
func TestJSON(t *testing.T) {
	for _, bare := range []bool{false, true} {
		t.Run(fmt.Sprintf("bare=%v", bare), func(t *testing.T) {
			jsontest.AnswersWith(t, serveTest(t, 5*time.Second, bare), "nbio", page.JSONType, []byte(string(page.JSON)+"\n"))
		})
	}
}
