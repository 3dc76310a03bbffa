package main

import (
	"net/http"
	"testing"
	"time"

	"hellobench/servers/internal/nethttpguard/guardtest"
)

// echo answers OPTIONS itself with 204 and names it in a 405's Allow;
// servers/echo answers the contract's 405 instead.

// handler is the server's handler, guarded or bare, as main builds it.
func handler(bare bool) http.Handler { return newServer("", time.Second, time.Second, bare).Handler }

func TestRoutes(t *testing.T) { guardtest.Routes(t, "echo", handler) }

func TestStrict(t *testing.T) { guardtest.Strict(t, "echo", handler) }
