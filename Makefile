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
# for the run.
TLS     ?=
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
.PHONY: help servers build $(addprefix bin/,$(TOOLS)) deps test vet fuzz robust soak bench bench-again bench-quick bench-sweep bench-scale bench-work bench-latency bench-latency-again bench-load bench-at-load bench-load-again bench-at-load-again bench-capacity-again bench-readiness bench-tls bench-tls-keepalive bench-tls-handshakes bench-tls-again bench-tls-keepalive-again bench-tls-handshakes-again compare-gnet compare-fcgi compare-clients compare-guards FORCE

help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_%-]+:.*## / {printf "  %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST)
	@echo "  servers: make servers lists them; serve-NAME takes any target of the table"
	@echo "  variables: CPU=$(CPU) PROCS=$(PROCS) ADDR=$(ADDR) SERVER_CPUS=$(SERVER_CPUS) CLIENT_CPUS=$(CLIENT_CPUS) SCALE_CORES=$(SCALE_CORES)"

servers: ## list the servers of the target table
	@$(GO) run ./bench/cmd/targets

build: ## build every server and tool into bin/
	$(GO) build -o bin/ $(addprefix ./servers/,$(SERVERS)) $(addprefix ./bench/cmd/,$(TOOLS))

# One tool of bench/cmd alone (make bin/loadgen); go build knows what is stale.
$(addprefix bin/,$(TOOLS)):
	$(GO) build -o bin/ ./bench/cmd/$(notdir $@)

deps: ## install the Debian packages the tests and benchmarks use when root, or name them
	@./scripts/deps.sh

vet: ## go vet, gofmt and staticcheck
	$(GO) vet ./...
	@test -z "$$(gofmt -l .)" || { echo "gofmt would change:"; gofmt -l .; exit 1; }
	$(GO) run $(STATICCHECK) ./...

test: deps vet bin/bombardier bin/benchstat ## run the whole test suite; ends with the skipped tests and why
	$(GO) test -count=1 -json ./... | $(GO) run ./internal/cmd/skipped

serve-%: ## build NAME alone (and bin/serve) and serve it in the foreground, pinned (serve-fasthttp, ...; TLS=1: over HTTPS with a certificate made for the run)
	@pkg=$$($(GO) run ./bench/cmd/targets -package $*) && $(GO) build -o bin/ ./bench/cmd/serve $$pkg
	@bin/serve -cpu "$(CPU)" -procs $(PROCS) $(if $(ADDR),-addr $(ADDR)) $(if $(TLS),-tls) $*

robust: build deps ## every server against hostile clients and faults, full size, and the framing cases out of the box; writes results/ROBUSTNESS.md
	HELLOBENCH_FRAMING_OUT=$(CURDIR)/results/framing.json $(GO) test -count=1 -run '^TestFraming$$' ./conformance
	$(GO) test -count=1 -timeout 0 ./robust -args -full -report ../results/ROBUSTNESS.md -framing ../results/framing.json

soak: build deps ## 10 minutes of churning keep-alive load per server: RSS and goroutines/fds must stay flat (not in CI)
	$(GO) test -count=1 -timeout 0 -run '^TestSoak$$' ./robust -args -soak 10m

fuzz: ## run each fuzzer (gnet's and uring's parser, uring's split receives, the body framing, both guards) for FUZZTIME (make test replays their seed corpora)
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./servers/internal/http1
	$(GO) test -run '^$$' -fuzz '^FuzzSplit$$' -fuzztime $(FUZZTIME) ./servers/uring
	$(GO) test -run '^$$' -fuzz '^FuzzBody$$' -fuzztime $(FUZZTIME) ./servers/internal/framing
	$(GO) test -run '^$$' -fuzz '^FuzzScan$$' -fuzztime $(FUZZTIME) ./servers/internal/nethttpguard
	$(GO) test -run '^$$' -fuzz '^FuzzScan$$' -fuzztime $(FUZZTIME) ./servers/internal/fasthttpguard

bench: build deps ## one run, about twenty-five minutes: ceilings and in-memory costs; results/, the README, docs/ceilings.md and COSTS sections
	bin/report $(RUNFLAGS) -run -docs -out results

# The ceilings measured twice more, each in a separate invocation, set
# beside make bench's: a figure that holds in one run only is not one.
bench-again: build deps ## the ceilings twice more, separately, beside make bench's; results/agreement.md
	bin/report $(RUNFLAGS) -run -in-memory=false -out results/again/2
	bin/report $(RUNFLAGS) -run -in-memory=false -out results/again/3
	bin/report -agree results,results/again/2,results/again/3 | tee results/agreement.md

bench-sweep: build deps ## the sweep (1 to 10 000 connections) and the idle connections, about twenty-five minutes, into results/
	bin/report $(RUNFLAGS) -sweep -docs -sweep-n 50000 -out results

bench-scale: build deps ## keep-alive ceilings on SCALE_CORES cores of SERVER_CPUS, client on CLIENT_CPUS; efficiency in results/REPORT.md
	bin/report $(RUNFLAGS) -scale -cores $(SCALE_CORES) -n 100000 -out results

bench-quick: build ## a smoke run of the benchmarks (bench-work's, bench-latency's, bench-load's, bench-readiness's and bench-tls's too), about two minutes: prints a report, keeps nothing
	d=$$(mktemp -d) && trap 'rm -rf "$$d"' EXIT && bin/report $(RUNFLAGS) -run -work -latency -load -readiness -tls -newconn -quick -out "$$d" && cat "$$d/REPORT.md"

bench-work: build deps ## handler CPU work (0-100 µs) at each Go server's ceiling, and handler waits at Little's-law connections; results/, docs/work.md section
	bin/report $(RUNFLAGS) -work -for 500ms -docs -out results

# The rates' shares are of the keep-alive ceilings make bench left in results/.
bench-latency: build deps ## each server held at fixed rates (a common ladder, shares of its own ceiling), about twenty minutes: latency curves, GC pauses; results/, docs/latency.md section
	bin/report $(RUNFLAGS) -latency -docs -out results

bench-latency-again: build deps ## make bench-latency twice more, separately; results/latency-agreement.md
	bin/report $(RUNFLAGS) -latency -ceilings-from results/bench.txt -out results/again/latency-2
	bin/report $(RUNFLAGS) -latency -ceilings-from results/bench.txt -out results/again/latency-3
	bin/report -agree-latency results,results/again/latency-2,results/again/latency-3 | tee results/latency-agreement.md
	# The agreement needs their figures; the HdrHistogram logs kept are make bench-latency's.
	rm -rf results/again/latency-2/latency results/again/latency-3/latency

# The shares are of the keep-alive ceilings make bench left in results/.
bench-load: build deps ## each server's CPU per request at shares of its ceiling (6 rounds) and the rate it holds with p99 within 5 ms (3 rounds), then at a quarter of its ceiling beside a reference nginx (40 blocks), about 35 minutes; results/, docs/load.md and the pick table
	bin/report $(RUNFLAGS) -load -docs -out results

bench-at-load: build deps ## make bench-load's blocks at a quarter of each ceiling alone (about a quarter of an hour); results/, docs/load.md and the pick table
	bin/report $(RUNFLAGS) -at-load -docs -out results

bench-readiness: build deps ## what the floors on epoll and io_uring, gnet and nginx ask of the kernel per request, saturated (5 rounds, about two minutes); results/, bench/COSTS.md section 7
	bin/report $(RUNFLAGS) -readiness -docs -out results

bench-tls: build deps ## what TLS and HTTP/2 cost each server beside nginx over TLS: keep-alive (36 short blocks of its own, then blocks of the rows that kept fewer than 36 at the host's usual level, at most 120 in all: about half an hour), nethttp's and nginx's full and resumed handshakes (12 short blocks of their own, then blocks of the rows short of 24 kept, at most 80), then pipelined, resumed and full handshakes (ECDSA and RSA), TLS 1.2's keep-alive and full handshake, HTTP/2 over TLS and h2c at 1 and 16 streams (6 blocks, about 40 minutes); results/, bench/COSTS.md
	bin/report $(RUNFLAGS) -tls -docs -out results

bench-tls-keepalive: build deps ## make bench-tls's keep-alive blocks alone (about half an hour); results/, bench/COSTS.md
	bin/report $(RUNFLAGS) -tls-keepalive -docs -out results

bench-tls-handshakes: build deps ## make bench-tls's handshake blocks alone: nethttp's and nginx's full and resumed handshakes; results/, bench/COSTS.md
	bin/report $(RUNFLAGS) -tls-handshakes -docs -out results

bench-tls-handshakes-again: build deps ## make bench-tls's handshake blocks twice more, separately, into the directories of make bench-tls-again; results/tls-agreement.md
	bin/report $(RUNFLAGS) -tls-handshakes -out results/again/tls-2
	bin/report $(RUNFLAGS) -tls-handshakes -out results/again/tls-3
	bin/report -agree-tls results,results/again/tls-2,results/again/tls-3 | tee results/tls-agreement.md

bench-tls-again: build deps ## make bench-tls twice more, separately (over an hour each); results/tls-agreement.md
	bin/report $(RUNFLAGS) -tls -out results/again/tls-2
	bin/report $(RUNFLAGS) -tls -out results/again/tls-3
	bin/report -agree-tls results,results/again/tls-2,results/again/tls-3 | tee results/tls-agreement.md

bench-tls-keepalive-again: build deps ## make bench-tls's keep-alive blocks twice more, separately, into the directories of make bench-tls-again; results/tls-agreement.md
	bin/report $(RUNFLAGS) -tls-keepalive -out results/again/tls-2
	bin/report $(RUNFLAGS) -tls-keepalive -out results/again/tls-3
	bin/report -agree-tls results,results/again/tls-2,results/again/tls-3 | tee results/tls-agreement.md

bench-load-again: build deps ## make bench-load twice more, separately; results/load-agreement.md
	bin/report $(RUNFLAGS) -load -ceilings-from results/bench.txt -out results/again/load-2
	bin/report $(RUNFLAGS) -load -ceilings-from results/bench.txt -out results/again/load-3
	bin/report -agree-load results,results/again/load-2,results/again/load-3 | tee results/load-agreement.md

bench-capacity-again: build deps ## make bench-load's search for the rate within the p99 bound twice more, alone, on make bench's ceilings in results/, into the directories of make bench-load-again (capacity.txt replaces their load.txt's search); results/load-agreement.md
	bin/report $(RUNFLAGS) -capacity -ceilings-from results/bench.txt -out results/again/load-2
	bin/report $(RUNFLAGS) -capacity -ceilings-from results/bench.txt -out results/again/load-3
	bin/report -agree-load results,results/again/load-2,results/again/load-3 | tee results/load-agreement.md

bench-at-load-again: build deps ## make bench-load's blocks at a quarter of each ceiling twice more, separately, into the directories of make bench-load-again; results/load-agreement.md
	bin/report $(RUNFLAGS) -at-load -ceilings-from results/bench.txt -out results/again/load-2
	bin/report $(RUNFLAGS) -at-load -ceilings-from results/bench.txt -out results/again/load-3
	bin/report -agree-load results,results/again/load-2,results/again/load-3 | tee results/load-agreement.md

# loadgen keeps each server's core busy; wrk -t1, the reference client, does
# not keep gnet's or nginx's busy on a slow machine, and then measures itself.
compare-gnet: build deps ## gnet vs nginx vs fasthttp, -c50, server CPU per request side by side (loadgen, then wrk)
	bin/versus $(RUNFLAGS) -client loadgen -c 50 -d 5s -rounds 5 gnet nginx fasthttp
	bin/versus $(RUNFLAGS) -client wrk -c 50 -d 5s -rounds 3 gnet nginx fasthttp

compare-fcgi: build deps ## the FastCGI hop: lighttpd+fcgi vs nethttp vs lighttpd static, side by side
	bin/versus $(RUNFLAGS) -client wrk -c 50 -d 5s -rounds 3 fcgi nethttp lighttpd-static

# Three views of one cost, each side by side (bin/guards, on the servers
# of the table that take -bare): over the network, in memory
# (BenchmarkGuard, one process per run, on and off alternating) and the
# scanners alone; its test runs the quick variant.
compare-guards: build deps bin/benchstat ## what the framing guards cost on a plain GET: each server against itself -bare, side by side; results/guards.txt
	bin/guards $(RUNFLAGS) -out results

bin/benchstat:
	GOBIN=$(CURDIR)/bin $(GO) install $(BENCHSTAT)

bin/bombardier:
	GOBIN=$(CURDIR)/bin $(GO) install $(BOMBARDIER)

compare-clients: build deps bin/bombardier ## loadgen vs wrk, h2load, bombardier, hey against nginx: client CPU per request, 5 rounds; docs/loadgen.md section
	bin/clients $(RUNFLAGS) -server nginx -c 50 -d 3s -rounds 5 -out results/clients.json
	bin/report -docs -out results
