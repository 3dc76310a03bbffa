# hellobench: make help lists the targets.

GO      ?= go
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
# The servers, from the one target table (internal/targets).
SERVERS := $(shell $(GO) run ./bench/cmd/targets)
TOOLS   := loadgen floor versus comparewrk report serve targets
# How long make fuzz runs each fuzz target.
FUZZTIME ?= 30s
# staticcheck, run through the Go toolchain at a pinned version.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

.DEFAULT_GOAL := help
.PHONY: help build deps test vet fuzz robust soak bench bench-quick bench-sweep compare-gnet compare-fcgi compare-wrk FORCE

help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_%-]+:.*## / {printf "  %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST)
	@echo "  servers: $(SERVERS)"
	@echo "  variables: CPU=$(CPU) PROCS=$(PROCS) ADDR=$(ADDR)"

build: ## build every server and tool into bin/
	$(GO) build -o bin/ $(addprefix ./servers/,$(SERVERS)) $(addprefix ./bench/cmd/,$(TOOLS))

deps: ## install the Debian packages the tests and benchmarks use when root, or name them
	@./scripts/deps.sh

vet: ## go vet, gofmt and staticcheck
	$(GO) vet ./...
	@test -z "$$(gofmt -l .)" || { echo "gofmt would change:"; gofmt -l .; exit 1; }
	$(GO) run $(STATICCHECK) ./...

test: deps vet ## run the whole test suite
	$(GO) test -count=1 ./...

serve-%: build ## build NAME and serve it in the foreground, pinned (serve-fasthttp, ...)
	@bin/serve -cpu "$(CPU)" -procs $(PROCS) $(if $(ADDR),-addr $(ADDR)) $*

robust: build deps ## every server against hostile clients and faults, full size; writes results/ROBUSTNESS.md
	$(GO) test -count=1 -timeout 0 ./robust -args -full -report ../results/ROBUSTNESS.md

soak: build deps ## 10 minutes of churning keep-alive load per server: RSS and goroutines/fds must stay flat (not in CI)
	$(GO) test -count=1 -timeout 0 -run '^TestSoak$$' ./robust -args -soak 10m

fuzz: ## run the gnet parser fuzzer for FUZZTIME (make test replays its seed corpus)
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./servers/gnet

bench: build deps ## every ceiling on one core, in-memory costs, report in results/
	bin/report -run -out results

bench-sweep: build deps ## concurrency sweep (1 to 1000 connections): req/s and p99 per server
	bin/report -sweep -out results

bench-quick: build ## a smoke run of the benchmarks, about a minute, report in a temporary directory
	bin/report -run -quick -out "$$(mktemp -d)"

# loadgen keeps each server's core busy; wrk -t1, the reference client, does
# not keep gnet's or nginx's busy on a slow machine, and then measures itself.
compare-gnet: build deps ## gnet vs nginx vs fasthttp, -c50, server CPU per request side by side (loadgen, then wrk)
	bin/versus -client loadgen -c 50 -d 5s -rounds 5 gnet nginx fasthttp
	bin/versus -client wrk -c 50 -d 5s -rounds 3 gnet nginx fasthttp

compare-fcgi: build deps ## the FastCGI hop: lighttpd+fcgi vs nethttp vs lighttpd static, side by side
	bin/versus -client wrk -c 50 -d 5s -rounds 3 fcgi nethttp lighttpd-static

compare-wrk: build deps ## loadgen vs wrk -t1 against nginx: client CPU per request and req/s ratios
	bin/comparewrk -server nginx -c 50 -d 5s -rounds 3
	bin/comparewrk -server nginx -c 50 -d 5s -rounds 3 -mode pipeline
