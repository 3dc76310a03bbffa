# hellobench: make help lists the targets.

GO      ?= go
# bash, so that a pipe fails when its first command does.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
# gnet's optimised poller (its documented poll_opt tag): epoll events carry
# the connection instead of a map lookup by descriptor, and non-blocking
# epoll calls skip the scheduler's syscall bookkeeping. Exported, so the go
# builds the tests and benchmarks run get it too; other packages ignore it.
export GOFLAGS += -tags=poll_opt
# The CPU list a served process is pinned to, and its GOMAXPROCS.
CPU     ?= 0
PROCS   ?= 1
# The listen address; empty: the server's own default port.
ADDR    ?=
# Set (TLS=1): make serve-NAME serves HTTPS with a certificate generated
# for the run; with H3=1 as well, HTTP/3 too, on the same port over UDP
# (on a stack without HTTP/3, bin/serve names those with it).
TLS     ?=
H3      ?=
# Where the bench puts the server and the client (taskset CPU lists) and the
# server's GOMAXPROCS (PROCS); the bench reads them from the
# environment.
SERVER_CPUS ?= 0
CLIENT_CPUS ?= 1
SCALE_CORES ?= 1,2
export SERVER_CPUS CLIENT_CPUS PROCS
# The servers, from the one target table (internal/targets). Recursive
# (=), so that only the recipes that use it compile and run the program.
SERVERS = $(shell $(GO) run ./bench/cmd/targets)
TOOLS   := loadgen floor versus clients report serve targets guards
# bombardier, one of the clients compare-clients runs, at a pinned version.
BOMBARDIER := github.com/codesenberg/bombardier@v1.2.6
BENCHSTAT  := golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
# FORCE=1 runs the bench even when another process is busy on the pinned
# CPUs (the report says so); without it the bench refuses to start.
FORCE   ?=
RUNFLAGS = $(if $(FORCE),-force)
# How long make fuzz runs each fuzz target.
FUZZTIME ?= 30s
# staticcheck, run through the Go toolchain at a pinned version.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

.DEFAULT_GOAL := help
.PHONY: help servers build $(addprefix bin/,$(TOOLS)) deps test vet fuzz robust soak compare FORCE
.PHONY: bench bench-ceilings bench-profile bench-quick bench-sweep bench-scale bench-work
.PHONY: bench-latency bench-load
.PHONY: bench-readiness bench-tls bench-h3

# Re-runs and parts are variables, not targets of their own; bin/report
# checks them and decides where a run goes (bin/report -h lists them).
# AGAIN=N (bench-ceilings, -latency, -load, -tls): the run once more,
# separately, into results/again/N (bench-ceilings) or again/KIND-N, then the
# agreement of results/ with again 2 to N, so run AGAIN=2, then AGAIN=3.
AGAIN   ?=
# PART=X (bench-work, bench-load, bench-tls): only X, bin/report -X
# (bench-tls: -tls-X); bench-ceilings PART=json, with AGAIN only: the json
# ceilings alone (bin/report -modes json).
PART    ?=
# WHAT=X: which make compare runs; RUN=DIR, the run WHAT=run compares.
WHAT    ?=
RUN     ?=
# RATE=N (bench): the steady rate, req/s, the pick table's cores are
# measured at; a request costs less as the rate rises, so it is measured,
# not scaled.
RATE    ?= 10000
# report runs what make $@ runs, with its AGAIN and PART (bin/report -make).
report = bin/report $(RUNFLAGS) -make $@ -again=$(AGAIN) -part=$(PART)

help:
	@awk 'BEGIN {FS = ":.*## "} /^[a-z][a-z%-]*:.*## / {n++; t[n] = $$1; d[n] = $$2; \
		sub(/%/, "NAME", t[n]); if (length(t[n]) > w) w = length(t[n])} \
		END {f = "  %-" w "s  %s\n"; for (i = 1; i <= n; i++) printf f, t[i], d[i]; \
		printf f, "AGAIN=N", "bench-ceilings, -latency, -load, -tls: once more, then compared"; \
		printf f, "PART=X", "bench-ceilings (json, AGAIN only), -work, -load, -tls: only that part"; \
		printf f, "variables", "CPU=$(CPU) PROCS=$(PROCS) ADDR=$(ADDR) SCALE_CORES=$(SCALE_CORES)"; \
		printf f, "", "SERVER_CPUS=$(SERVER_CPUS) CLIENT_CPUS=$(CLIENT_CPUS)"}' $(MAKEFILE_LIST)

servers: ## list the servers of the target table: the NAMEs of serve-NAME
	@$(GO) run ./bench/cmd/targets

build: ## build every server and tool into bin/ (make bin/TOOL: one tool)
	$(GO) build -o bin/ $(addprefix ./servers/,$(SERVERS)) $(addprefix ./bench/cmd/,$(TOOLS))

# One tool of bench/cmd alone (make bin/loadgen); go build knows what is stale.
$(addprefix bin/,$(TOOLS)):
	$(GO) build -o bin/ ./bench/cmd/$(notdir $@)

deps: ## install the Debian packages the tests and benches use when root, or name them
	@./scripts/deps.sh

vet: ## go vet, gofmt and staticcheck
	$(GO) vet ./...
	@test -z "$$(gofmt -l .)" || { echo "gofmt would change:"; gofmt -l .; exit 1; }
	$(GO) run $(STATICCHECK) ./...

test: deps vet bin/bombardier bin/benchstat ## the whole test suite, then the tests skipped and why
	$(GO) test -count=1 -json ./... | $(GO) run ./internal/cmd/skipped

serve-%: ## build NAME alone, serve it pinned in the foreground; TLS=1: HTTPS; H3=1: HTTP/3
	@pkg=$$($(GO) run ./bench/cmd/targets -package $*) && $(GO) build -o bin/ ./bench/cmd/serve $$pkg
	@bin/serve -cpu "$(CPU)" -procs $(PROCS) $(if $(ADDR),-addr $(ADDR)) \
		$(if $(TLS),-tls) $(if $(H3),-h3) $*

robust: build deps ## every server against hostile clients and faults; results/ROBUSTNESS.md
	HELLOBENCH_FRAMING_OUT=$(CURDIR)/results/framing.json \
		$(GO) test -count=1 -run '^TestFraming$$' ./conformance
	$(GO) test -count=1 -timeout 0 ./robust \
		-args -full -report ../results/ROBUSTNESS.md -framing ../results/framing.json

soak: build deps ## 10 minutes of keep-alive churn per server: RSS, goroutines, fds stay flat
	$(GO) test -count=1 -timeout 0 -run '^TestSoak$$' ./robust -args -soak 10m

# gnet's and uring's parser, uring's split receives, the body framing and
# both guards.
fuzz: ## run each fuzzer for FUZZTIME (make test replays their seed corpora)
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./servers/internal/http1
	$(GO) test -run '^$$' -fuzz '^FuzzSplit$$' -fuzztime $(FUZZTIME) ./servers/uring
	$(GO) test -run '^$$' -fuzz '^FuzzBody$$' -fuzztime $(FUZZTIME) ./servers/internal/framing
	$(GO) test -run '^$$' -fuzz '^FuzzScan$$' -fuzztime $(FUZZTIME) ./servers/internal/nethttpguard
	$(GO) test -run '^$$' -fuzz '^FuzzScan$$' -fuzztime $(FUZZTIME) ./servers/internal/fasthttpguard

# Every pick-table cell from one invocation on one host (bin/report -pick).
bench: build deps ## the pick table from one run, <45 min: README; RATE=N prices cores at N req/s
	$(report) -rate=$(RATE)

# The ceilings again (AGAIN=N) skip the in-memory benchmarks: a figure that
# holds in one run only is not one.
# PART=json, with AGAIN=N only: the blocks' /json ceilings alone, into
# results/again/N, compared with make bench-ceilings' in results/agreement.md.
bench-ceilings: build deps ## ceilings in every mode, in-memory costs, ~40 min; docs, COSTS.md
	$(report)

# The profiles take shares of the ceilings of make bench's run, so that
# both come from one host.
bench-profile: build deps ## CPU by function, allocations by site, a request's system calls: docs/
	$(report)

bench-sweep: build deps ## 1 to 10 000 connections and idle connections, ~25 min; results/
	$(report)

bench-scale: build deps ## keep-alive ceilings on SCALE_CORES cores of SERVER_CPUS; results/
	$(report) -cores $(SCALE_CORES)

bench-quick: build ## a smoke run of every bench, ~3 min: prints a report, keeps nothing
	d=$$(mktemp -d) && trap 'rm -rf "$$d"' EXIT && $(report) -out "$$d" && cat "$$d/REPORT.md"

# PART=uring: uring's waits and its and the io_uring floor's idle
# connections alone, into uring.txt, whose rows replace theirs in work.txt
# and sweep.txt (make bench-sweep's): a change to uring measured again
# without the whole runs.
bench-work: build deps ## CPU work (0-100 µs) and waits in the handler at each ceiling; PART=uring
	$(report)

# The rates' shares are of the keep-alive ceilings make bench-ceilings left in
# results/. AGAIN=N keeps no HdrHistogram logs: those kept are results/'s.
bench-latency: build deps ## latency and GC pauses at fixed rates, ~20 min; docs/latency.md
	$(report)

# The shares are of the keep-alive ceilings make bench-ceilings left in
# results/.
# PART=capacity: the search for the rate within the p99 bound alone (into
# capacity.txt, which replaces load.txt's search); why: the count of what
# every server asks of the kernel per request alone (into why.txt, which
# replaces load.txt's count); at-load: the blocks at a
# quarter of each ceiling beside a reference nginx alone; newconn, which
# the whole run leaves out: every server on a new connection per request at
# a fixed rate, beside a reference nginx (docs/ceilings.md); min-wait,
# which it leaves out too: uring at a quarter of its ceiling with each of
# io_uring's minimum waits (bench/COSTS.md). why, newconn and min-wait take
# no AGAIN.
bench-load: build deps ## CPU, p99 under load, ~35 min; PART=at-load|capacity|why|newconn|min-wait
	$(report)

bench-readiness: build deps ## what the floors, gnet, uring and nginx ask of the kernel, ~2 min
	$(report)

# Keep-alive (PART=keepalive, about 30 min): 36 short blocks of its own,
# then blocks of the rows short of 36 kept, at most 120; handshakes:
# nethttp's and nginx's full and resumed, 12 short blocks, then blocks of
# the rows short of 24 kept, at most 80;
# then 6 blocks of the other modes: pipelined, handshakes (ECDSA and RSA),
# TLS 1.2, HTTP/2 over TLS and h2c.
# PART=h3 (also make bench-h3): nethttp over HTTP/1.1 with TLS, HTTP/2
# and HTTP/3 at fixed rates, into protocols.txt (bin/report -h3; 12 blocks,
# about 20 min); AGAIN=N puts it in results/again/h3-N, and
# results/h3-agreement.md sets the invocations side by side.
bench-tls: build deps ## TLS, HTTP/2 beside nginx, >1 h; PART=keepalive|handshakes|h3 (HTTP/3)
	$(report)

bench-h3:
	$(MAKE) bench-tls PART=h3 AGAIN=$(AGAIN)

# loadgen keeps each server's core busy; wrk -t1, the reference client, does
# not keep gnet's or nginx's busy on a slow machine, and then measures itself.
define compare-gnet
bin/versus $(RUNFLAGS) -client loadgen -c 50 -d 5s -rounds 5 gnet nginx fasthttp
bin/versus $(RUNFLAGS) -client wrk -c 50 -d 5s -rounds 3 gnet nginx fasthttp
endef
define compare-fcgi
bin/versus $(RUNFLAGS) -client wrk -c 50 -d 5s -rounds 3 fcgi nethttp lighttpd-static
endef
# Three views of one cost, each side by side (bin/guards, on the servers
# of the table that take -bare): over the network, in memory
# (BenchmarkGuard, one process per run, on and off alternating) and the
# scanners alone; its test runs the quick variant.
define compare-guards
bin/guards $(RUNFLAGS) -out results
endef
define compare-clients
bin/clients $(RUNFLAGS) -server nginx -c 50 -d 3s -rounds 5 -out results/clients.json
bin/report -docs -out results
endef

define compare-run
$(if $(RUN),,$(error make compare WHAT=run takes RUN=DIR, the directory of your bench.txt))
bin/report compare -hosts results $(RUN)
endef

# WHAT=run: a make bench of your own (RUN=DIR holding its bench.txt, as
# bin/report -run -out DIR writes it) beside every host recorded, with the
# model's prediction for your machine; nothing is run.
# WHAT=gnet: gnet vs nginx vs fasthttp, -c50, loadgen then wrk; fcgi:
# lighttpd+fcgi vs nethttp vs lighttpd static; guards: each guarded server
# against itself -bare, results/guards.txt; clients: loadgen vs wrk,
# h2load, bombardier and hey against nginx, docs/loadgen.md's section.
# The tools a comparison needs besides build's.
needs-guards  := bin/benchstat
needs-clients := bin/bombardier
compare: build deps $(needs-$(WHAT)) ## side by side: WHAT=gnet|fcgi|guards|clients|run (RUN=DIR)
	$(if $(compare-$(WHAT)),,$(error WHAT=$(WHAT): compare takes gnet, fcgi, guards, clients or run))
	$(compare-$(WHAT))

bin/benchstat:
	GOBIN=$(CURDIR)/bin $(GO) install $(BENCHSTAT)

bin/bombardier:
	GOBIN=$(CURDIR)/bin $(GO) install $(BOMBARDIER)
