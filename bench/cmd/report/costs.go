package main

import (
	"fmt"
	"strings"
)

// costs breaks a request's server CPU time into layers, by differences of
// the measured CPU µs per request: the floor, each stack's server loop
// beyond it, the router on top, a new connection, the FastCGI hop, and
// what pipelining saves. A difference is only as good as the two medians it
// comes from; one below zero is noise and is shown as measured.
func costs(rep Report) string {
	cpu := map[string]float64{}
	for _, c := range rep.Ceilings {
		cpu[c.Server+"/"+c.Mode] = c.CPUPerReq
	}
	have := func(keys ...string) bool {
		for _, k := range keys {
			if cpu[k] <= 0 {
				return false
			}
		}
		return true
	}
	var b strings.Builder
	floor := cpu["floor/keepalive"]
	if floor <= 0 {
		return ""
	}
	part := func(v, total float64) string { return fmt.Sprintf("%.2f (%.0f %%)", v, 100*v/total) }

	b.WriteString("### A keep-alive request\n\n")
	b.WriteString("| stack | syscall floor | server loop | router | total CPU µs/req |\n|---|--:|--:|--:|--:|\n")
	for _, r := range []struct{ name, loop, router string }{
		{"nethttp", "nethttp", ""}, {"gin", "nethttp", "gin"},
		{"fasthttp", "fasthttp", ""}, {"fiber", "fasthttp", "fiber"},
		{"gnet", "gnet", ""}, {"nginx", "nginx", ""}, {"lighttpd-static", "lighttpd-static", ""},
	} {
		if !have(r.name+"/keepalive", r.loop+"/keepalive") {
			continue
		}
		total := cpu[r.name+"/keepalive"]
		loop := cpu[r.loop+"/keepalive"] - floor
		router := "–"
		if r.router != "" {
			router = part(total-cpu[r.loop+"/keepalive"], total)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %.2f |\n", r.name, part(floor, total), part(loop, total), router, total)
	}
	fmt.Fprintf(&b, "| floor | %.2f (100 %%) | – | – | %.2f |\n\n", floor, floor)

	b.WriteString("### A new connection per request\n\n")
	b.WriteString("| stack | keep-alive request | new connection | total CPU µs/req |\n|---|--:|--:|--:|\n")
	for _, s := range order() {
		if s == "fcgi" || !have(s+"/keepalive", s+"/close") {
			continue
		}
		total := cpu[s+"/close"]
		ka := cpu[s+"/keepalive"]
		fmt.Fprintf(&b, "| %s | %s | %s | %.2f |\n", s, part(ka, total), part(total-ka, total), total)
	}
	b.WriteString("\n")

	if have("fcgi/keepalive", "nethttp/keepalive", "lighttpd-static/keepalive") {
		var app float64
		for _, c := range rep.Ceilings {
			if c.Server == "fcgi" && c.Mode == "keepalive" {
				app = c.AppPerReq
			}
		}
		total := cpu["fcgi/keepalive"]
		lighttpd := total - app
		static := cpu["lighttpd-static/keepalive"]
		nethttp := cpu["nethttp/keepalive"]
		b.WriteString("### The FastCGI hop (lighttpd + net/http/fcgi, keep-alive)\n\n")
		b.WriteString("| part | CPU µs/req |\n|---|--:|\n")
		fmt.Fprintf(&b, "| syscall floor | %s |\n", part(floor, total))
		fmt.Fprintf(&b, "| lighttpd serving a static file, beyond the floor | %s |\n", part(static-floor, total))
		fmt.Fprintf(&b, "| lighttpd's FastCGI side (lighttpd here minus lighttpd static) | %s |\n", part(lighttpd-static, total))
		fmt.Fprintf(&b, "| the application: net/http/fcgi and the handler | %s |\n", part(app, total))
		fmt.Fprintf(&b, "| total | %.2f |\n\n", total)
		fmt.Fprintf(&b, "Against nethttp answering HTTP itself (%.2f µs), the hop costs %.2f µs per request: %.1f× the CPU.\n\n", nethttp, total-nethttp, total/nethttp)
	}

	b.WriteString("### What pipelining saves (16 requests in flight per connection)\n\n")
	b.WriteString("| stack | keep-alive CPU µs/req | pipelined | saved |\n|---|--:|--:|--:|\n")
	for _, s := range order() {
		if !have(s+"/keepalive", s+"/pipeline") {
			continue
		}
		ka, pl := cpu[s+"/keepalive"], cpu[s+"/pipeline"]
		fmt.Fprintf(&b, "| %s | %.2f | %.2f | %s |\n", s, ka, pl, part(ka-pl, ka))
	}
	b.WriteString("\n")
	return b.String()
}
