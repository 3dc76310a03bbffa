// Package conformance holds the one HTTP/1.1 contract suite that every
// hellobench server must pass. The tests start each server binary as a real
// process on a loopback port and speak raw TCP to it, so that pipelining,
// split requests, HTTP/1.0, bad input, timeouts and shutdown are checked as a
// client would meet them. Real clients (curl, ab, wrk) are run against every
// server too.
//
// The servers are the rows of the one target table, internal/targets: adding
// a server there puts it under this suite.
package conformance
