# hellobench: make help lists the targets.

GO      ?= go
# gnet's optimised poller (its documented poll_opt tag): epoll events carry
# the connection instead of a map lookup by descriptor, and non-blocking
# epoll calls skip the scheduler's syscall bookkeeping. Exported, so the go
# builds the tests and benchmarks run get it too; other packages ignore it.
export GOFLAGS += -tags=poll_opt
# The core a served process is pinned to, and its GOMAXPROCS.
CPU     ?= 0
PROCS   ?= 1
# The listen address; empty: the server's own default port.
ADDR    ?=
SERVERS := nethttp fasthttp fiber gin gnet fcgi
TOOLS   := loadgen floor versus comparewrk report
# How long make fuzz runs each fuzz target.
FUZZTIME ?= 30s

# taskset pins a served process to one core; without it, say so and run unpinned.
PIN := $(shell command -v taskset >/dev/null 2>&1 && echo "taskset -c $(CPU)")
ADDRFLAG := $(if $(ADDR),-addr $(ADDR))

.DEFAULT_GOAL := help
.PHONY: help build deps test vet fuzz bench bench-quick bench-sweep bench-refs compare-gnet compare-fcgi compare-wrk $(addprefix serve-,$(SERVERS))

help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_%-]+:.*## / {printf "  %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST)
	@echo "  serve-NAME       build NAME ($(SERVERS)) and serve it in the foreground, pinned"
	@echo "  variables: CPU=$(CPU) PROCS=$(PROCS) ADDR=$(ADDR)"

build: ## build every server and tool into bin/
	$(GO) build -o bin/ $(addprefix ./servers/,$(SERVERS)) $(addprefix ./bench/cmd/,$(TOOLS))

bin/%: FORCE
	$(GO) build -o $@ ./servers/$*

FORCE:

deps: ## install the Debian packages the tests use (curl, ab, wrk, lighttpd, nginx) when root
	@./scripts/deps.sh

vet: ## go vet and gofmt
	$(GO) vet ./...
	@test -z "$$(gofmt -l .)" || { echo "gofmt would change:"; gofmt -l .; exit 1; }

test: deps vet ## run the whole test suite
	$(GO) test -count=1 ./...

define serve
serve-$(1): bin/$(1)
	@$(if $(PIN),,echo "taskset not found: $(1) runs unpinned";) echo "$(1) on CPU $(CPU), GOMAXPROCS=$(PROCS); Ctrl-C stops it"
	GOMAXPROCS=$(PROCS) $(PIN) bin/$(1) $(ADDRFLAG)
endef
$(foreach s,nethttp fasthttp fiber gin gnet,$(eval $(call serve,$(s))))

# lighttpd and the application share the core; serve.sh builds the application.
serve-fcgi:
	./servers/fcgi/serve.sh "$(if $(PIN),$(CPU))" "$(PROCS)" "$(or $(ADDR),:8085)"

fuzz: ## run the gnet parser fuzzer for FUZZTIME (make test replays its seed corpus)
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./servers/gnet

bench-refs: ## install the reference servers (nginx-light, lighttpd) when root, or say their rows are skipped
	@./scripts/deps.sh

bench: build bench-refs ## every ceiling on one core, in-memory costs, report in results/
	$(GO) run ./bench/cmd/report -run -out results

bench-sweep: build bench-refs ## concurrency sweep (1 to 1000 connections): req/s and p99 per server
	$(GO) run ./bench/cmd/report -sweep -out results

bench-quick: build ## a smoke run of the benchmarks, about a minute, report in a temporary directory
	$(GO) run ./bench/cmd/report -run -quick -out "$$(mktemp -d)"

# loadgen keeps each server's core busy; wrk -t1, the reference client, does
# not keep gnet's or nginx's busy on a slow machine, and then measures itself.
compare-gnet: build bench-refs ## gnet vs nginx vs fasthttp, -c50, server CPU per request side by side (loadgen, then wrk)
	$(GO) run ./bench/cmd/versus -client loadgen -c 50 -d 5s -rounds 5 gnet nginx fasthttp
	$(GO) run ./bench/cmd/versus -client wrk -c 50 -d 5s -rounds 3 gnet nginx fasthttp

compare-fcgi: build bench-refs ## the FastCGI hop: lighttpd+fcgi vs nethttp vs lighttpd static, side by side
	$(GO) run ./bench/cmd/versus -client wrk -c 50 -d 5s -rounds 3 fcgi nethttp lighttpd-static

compare-wrk: build bench-refs ## loadgen vs wrk -t1 against nginx: client CPU per request and req/s ratios
	bin/comparewrk -server nginx -c 50 -d 5s -rounds 3
	bin/comparewrk -server nginx -c 50 -d 5s -rounds 3 -mode pipeline
