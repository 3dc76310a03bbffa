# hellobench: make help lists the targets.

GO      ?= go
# The core a served process is pinned to, and its GOMAXPROCS.
CPU     ?= 0
PROCS   ?= 1
# The listen address; empty: the server's own default port.
ADDR    ?=
SERVERS := nethttp fasthttp fiber gin gnet fcgi
TOOLS   := loadgen

# taskset pins a served process to one core; without it, say so and run unpinned.
PIN := $(shell command -v taskset >/dev/null 2>&1 && echo "taskset -c $(CPU)")
ADDRFLAG := $(if $(ADDR),-addr $(ADDR))

.DEFAULT_GOAL := help
.PHONY: help build deps test vet $(addprefix serve-,$(SERVERS))

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
