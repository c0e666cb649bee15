# make check runs everything CI runs: formatting, vet, staticcheck, the tests
# of every module with the race detector and at its Go floor, every fuzz
# target for FUZZTIME, and every benchmark once, with a Redis and a
# PostgreSQL server of its own (.ci/services starts them, and stops them
# when check ends). make test runs the tests that need no server and no
# Node, for the edit-test loop.

GO          ?= go
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
FUZZTIME    ?= 10s
LONGFUZZ    ?= 10m
# Go minimizes every new interesting input for up to a minute by default,
# and a campaign makes no progress meanwhile: long campaigns bound it to
# FUZZMINTIME, the smoke run to SMOKEMINTIME.
FUZZMINTIME  ?= 10s
SMOKEMINTIME ?= 1s
FUZZFLAGS    ?= -fuzzminimizetime=$(FUZZMINTIME)
BENCHCOUNT  ?= 6
# Every module of the repository (the root, the SDK adapters and the stores,
# each its own module so that the root go.mod names no SDK or database
# client, the examples and the tools), from modules.txt: one line there
# adds a module to every target.
# ("\043" is awk's '#', which make would take for a comment.)
MODULES     := $(shell awk 'NF && substr($$1, 1, 1) != "\043" { print $$1 }' modules.txt)

# RELEASED are the modules that a release tags and users install.
RELEASED    := $(shell awk 'NF && substr($$1, 1, 1) != "\043" && $$2 == "release" { print $$1 }' modules.txt)

# The gateway's module (cmd/mcpid-gateway) requires the other released
# modules at the version the next release tags, with no replace, so that
# `go install github.com/mcpid/mcpid/cmd/mcpid-gateway@vX.Y.Z` takes it as
# committed: every target builds it through the workspace it commits
# (cmd/mcpid-gateway/go.work), which puts the checkout's modules in their
# place. go mod tidy ignores a workspace, and its go.sum cannot hold the
# checksums of modules not tagged yet, so tidy leaves it to the install
# check (installable), which tidies a copy of it against the modules
# packed at HEAD.
GATEWAY     := cmd/mcpid-gateway

# STORES are the modules of the stores on a database server.
STORES      := $(filter toolname/%store,$(MODULES))

# ADAPTERS are the modules on an MCP SDK: those of modules.txt with a
# newest.mod. Each one's go.mod requires the oldest SDK it supports, its
# floor, so that adopting it moves no server's SDK up, and every other
# target builds and tests it there; newest.mod and newest.sum beside it
# require the newest SDK, for sdk-floors.
ADAPTERS    := $(patsubst %/newest.mod,%,$(wildcard $(addsuffix /newest.mod,$(MODULES))))

.PHONY: check checks fmt vet staticcheck tidy docdensity test test-race test-modules go-floors test-stores sdk-floors ts-journeys conformance installable apicheck fuzz fuzz-smoke bench bench-smoke bench-relay release

check:
	@./.ci/services $(MAKE) --no-print-directory checks

# checks is check with the servers the environment names (MCPID_*; see
# .ci/services): without them, the store tests skip, saying so, unless
# CI=true, where they fail.
checks: fmt vet staticcheck tidy docdensity test-race go-floors sdk-floors ts-journeys conformance installable apicheck fuzz-smoke bench-smoke

# test-stores runs the tests of the stores' modules alone, with the
# servers up; `./.ci/services COMMAND` runs any command so.
test-stores:
	@./.ci/services $(MAKE) --no-print-directory test-modules MODULES="$(STORES)"

test-modules:
	@for m in $(MODULES); do (cd $$m && $(GO) test -race -count=1 ./...) || exit 1; done

# sdk-floors builds each adapter at the newest SDK as the other targets
# build it at its floor: a copy of the module, with newest.mod and
# newest.sum as its go.mod and go.sum, must be tidy, vet and staticcheck
# clean, and pass its tests, the stdio differential included. (The copy
# names the root by its absolute path, since go vet and staticcheck take
# no -modfile.) To move newest.mod on: go get -modfile=newest.mod
# <sdk>@latest, then go mod tidy -modfile=newest.mod, in the adapter.
sdk-floors:
	@root=$$(pwd) && dir=$$(mktemp -d) && trap 'rm -rf "$$dir"' EXIT && \
	for m in $(ADAPTERS); do \
		echo "$$m at $$(awk '$$1 ~ /^github.com\/(modelcontextprotocol\/go-sdk|mark3labs\/mcp-go)$$/ { print $$1 "@" $$2 }' $$m/newest.mod)"; \
		(cd $$m && $(GO) mod tidy -modfile=newest.mod -diff) || { echo "go mod tidy -modfile=newest.mod needed in $$m"; exit 1; }; \
		mkdir -p "$$dir/$$m" && cp -R $$m/. "$$dir/$$m" && cp $$m/newest.mod "$$dir/$$m/go.mod" && cp $$m/newest.sum "$$dir/$$m/go.sum" && \
		(cd "$$dir/$$m" && $(GO) mod edit -replace github.com/mcpid/mcpid="$$root" && \
			$(GO) vet ./... && $(GO) run $(STATICCHECK) ./... && $(GO) test -race -count=1 ./...) || exit 1; \
	done

fmt:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# tidy fails when a module's go.mod or go.sum is not what go mod tidy
# makes of it, so that a user's go get resolves what the tests ran with.
tidy:
	@for m in $(filter-out $(GATEWAY),$(MODULES)); do (cd $$m && $(GO) mod tidy -diff) || { echo "go mod tidy needed in $$m"; exit 1; }; done

# docdensity prints the lines of doc comment per exported declaration of
# the root package, searchfetch and toolname (about 3 is the aim: a doc
# says what an identifier is and what a caller must know; specifications
# go to docs/*.md). It prints and never fails.
docdensity:
	@$(GO) run -C internal/tools ./docdensity -repo ../..

vet:
	@for m in $(MODULES); do (cd $$m && $(GO) vet ./...) || exit 1; done

staticcheck:
	@for m in $(MODULES); do (cd $$m && $(GO) run $(STATICCHECK) ./...) || exit 1; done

# test runs every module's tests that need no server and no Node (-short:
# the store tests, the TypeScript client's and the slowest skip, CI=true or
# not), without the race detector: about a minute, for the edit-test loop.
test:
	@for m in $(MODULES); do (cd $$m && $(GO) test -short ./...) || exit 1; done

# test-race runs every module's tests with the race detector, and the root
# module's allocation budgets without it too (the race detector makes
# sync.Pool drop items, so it cannot hold a budget that rests on a pool).
test-race: test-modules
	@$(GO) test -count=1 -run 'Allocs' ./...

# go-floors builds and tests each released module with the Go of its go.mod's
# go line, the oldest Go it supports (GOTOOLCHAIN fetches that toolchain from
# the module proxy once), -short and without the race detector: the floors
# the README states are the go lines.
go-floors:
	@for m in $(RELEASED); do \
		v=$$(awk '$$1 == "go" { print $$2 }' $$m/go.mod); \
		echo "$$m at go$$v"; \
		(cd $$m && GOTOOLCHAIN=go$$v $(GO) test -short -count=1 ./...) || exit 1; \
	done

# ts-journeys runs search and fetch journeys through the official
# TypeScript MCP client, which validates every structuredContent against
# the tool's outputSchema, error results included, against the example
# server on both SDKs and in both modes, and the client's OAuth discovery
# against both SDKs' HTTP handlers (examples/tsclient/discovery.mjs, run by
# the TestHTTPTSClientDiscovery of each module of modules.txt that has
# one), and the client's own calls through the gateway, stateful and
# -stateless (examples/tsclient/gateway.mjs, run by TestTSClientCalls).
# npm installs the client from the lock file.
ts-journeys:
	@dir=$$(mktemp -d) && trap 'rm -rf "$$dir"' EXIT && \
	(cd examples && $(GO) build -o "$$dir/searchfetch" ./searchfetch) && \
	(cd examples/tsclient && npm ci --no-audit --no-fund --loglevel=error && \
	node journey.mjs "$$dir/searchfetch") && \
	for m in $(MODULES); do \
		grep -qs '^func TestHTTPTSClientDiscovery(' $$m/*_test.go || continue; \
		(cd $$m && MCPID_TSCLIENT=1 $(GO) test -count=1 -run '^TestHTTPTSClientDiscovery$$' .) || exit 1; \
	done && \
	(cd $(GATEWAY) && MCPID_TSCLIENT=1 $(GO) test -count=1 -run '^TestTSClientCalls$$' ./internal/gateway)

# conformance runs the official MCP conformance suite's server scenarios
# (npm @modelcontextprotocol/conformance, pinned in examples/conformance)
# against the go-sdk's own conformance server, at the version the examples
# module requires, directly over HTTP (stateless and stateful) and through
# the gateway built from cmd/mcpid-gateway (the server as its stdio downstream, the gateway on
# HTTP), prints the table, and fails when a scenario that passes directly
# either way fails through the gateway; then against the example search and
# fetch server on both SDKs, which must pass each scenario that needs no
# tools, prompts or resources of the conformance server's.
# globsync.mjs lets the suite load on Node 20, which lacks fs.globSync.
conformance:
	@dir=$$(mktemp -d) && trap 'rm -rf "$$dir"' EXIT && \
	(cd examples && $(GO) build -o "$$dir/everything-server" github.com/modelcontextprotocol/go-sdk/conformance/everything-server) && \
	(cd $(GATEWAY) && $(GO) build -o "$$dir/gateway" .) && \
	cd examples/conformance && npm ci --no-audit --no-fund --loglevel=error && node globsync.mjs && \
	node run.mjs "$$dir/everything-server" "$$dir/gateway" && \
	$(GO) -C ../ build -o "$$dir/searchfetch" ./searchfetch && node run.mjs -example "$$dir/searchfetch"

# installable proves that every module installs with go get once tagged:
# the modules at HEAD, packed into a file-system module proxy at the
# version the nested modules require, build a consumer outside the
# repository made of the snippets of the README and docs/tools.md, the
# gateway installs with go install from that proxy, and a copy of the
# gateway's module is tidy against it (internal/tools/modproxy).
installable:
	@$(GO) run -C internal/tools ./modproxy -repo ../..

# apicheck compares each module's exported API with its last release tag.
apicheck:
	@./apicheck.sh

# release tags the modules at VERSION (see RELEASING.md); DRYRUN=1 prints
# the steps instead.
release:
	@./release.sh "$(VERSION)" $(if $(DRYRUN),--dry-run)

# fuzz-smoke runs every fuzz target of the root module for FUZZTIME; fuzz
# runs them for LONGFUZZ. A run that ends in the fuzzing engine's own
# "context deadline exceeded" (time ran out while it minimized an input),
# with no failing input written, is run once more; any other failure
# fails. The targets are found in every package of the
# root module that has any (./fuzz, ./searchfetch, ...), not in one list.
fuzz-smoke:
	@$(MAKE) --no-print-directory fuzz LONGFUZZ=$(FUZZTIME) FUZZMINTIME=$(SMOKEMINTIME)

fuzz:
	@pkgs=$$(grep -l '^func Fuzz' $$($(GO) list -f '{{$$d := .Dir}}{{range .TestGoFiles}}{{$$d}}/{{.}} {{end}}{{range .XTestGoFiles}}{{$$d}}/{{.}} {{end}}' ./...) | xargs -n1 dirname | sort -u); \
	[ -n "$$pkgs" ] || { echo "no fuzz targets found"; exit 1; }; \
	for p in $$pkgs; do \
		targets=$$($(GO) test -list '^Fuzz' $$p | grep '^Fuzz'); \
		for t in $$targets; do \
			echo "fuzz $$p $$t for $(LONGFUZZ)"; \
			out=$$($(GO) test $$p -run='^$$' -fuzz="^$$t$$" -fuzztime=$(LONGFUZZ) $(FUZZFLAGS) 2>&1); status=$$?; \
			echo "$$out" | tail -n 4; \
			if [ $$status -ne 0 ] && echo "$$out" | grep -q 'context deadline exceeded' && ! echo "$$out" | grep -q 'Failing input'; then \
				echo "fuzz $$p $$t: the fuzzing engine ran out of time while minimizing, with no failing input; once more"; \
				$(GO) test $$p -run='^$$' -fuzz="^$$t$$" -fuzztime=$(LONGFUZZ) $(FUZZFLAGS) || exit 1; \
			elif [ $$status -ne 0 ]; then echo "$$out"; exit 1; fi; \
		done; \
	done

bench-smoke:
	@for m in $(MODULES); do (cd $$m && $(GO) test -run='^$$' -bench=. -benchtime=1x ./...) || exit 1; done

bench:
	@for m in $(MODULES); do (cd $$m && $(GO) test -run='^$$' -bench=. -benchmem -count=$(BENCHCOUNT) ./...) || exit 1; done

# bench-relay measures what a relayed tool call costs: the same call made
# directly to a downstream, through a bare go-sdk relay and through the
# gateway (built once, here), each a process of its own on loopback HTTP,
# at c=1 and c=16, rounds interleaved; it prints the tables of
# docs/performance.md (a few minutes). BENCHRELAYFLAGS passes flags to
# cmd/mcpid-gateway/internal/benchrelay (-rounds, -calls, -c, -down,
# -cpuprofile). make check builds and vets it, and never runs it.
BENCHRELAYFLAGS ?=
bench-relay:
	@dir=$$(mktemp -d) && trap 'rm -rf "$$dir"' EXIT && \
	(cd $(GATEWAY) && $(GO) build -o "$$dir/mcpid-gateway" . && $(GO) build -o "$$dir/benchrelay" ./internal/benchrelay) && \
	"$$dir/benchrelay" -gateway "$$dir/mcpid-gateway" $(BENCHRELAYFLAGS)
