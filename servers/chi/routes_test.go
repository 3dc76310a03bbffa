package main

import (
	"net/http"
	"testing"
	"time"

	"hellobench/servers/internal/nethttpguard/guardtest"
)

// chi's default 405 sends one Allow line for each method; servers/chi sets
// the contract's one.

// handler is the server's handler, guarded or bare, as main builds it.
func handler(bare bool) http.Handler { return newServer("", time.Second, time.Second, bare).Handler }

func TestRoutes(t *testing.T) { guardtest.Routes(t, "chi", handler) }

func TestStrict(t *testing.T) { guardtest.Strict(t, "chi", handler) }
