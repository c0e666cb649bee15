# make check runs everything CI runs: formatting, vet, staticcheck, the tests
# of every module with the race detector, every fuzz target for FUZZTIME, and
# every benchmark once.

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
# The root module, the SDK adapters (each its own module, so that the root
# go.mod never names an SDK) and the examples.
MODULES     := . gosdk mcpgo examples

.PHONY: check fmt vet staticcheck test fuzz fuzz-smoke bench bench-smoke

check: fmt vet staticcheck test fuzz-smoke bench-smoke

fmt:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	@for m in $(MODULES); do (cd $$m && $(GO) vet ./...) || exit 1; done

staticcheck:
	@for m in $(MODULES); do (cd $$m && $(GO) run $(STATICCHECK) ./...) || exit 1; done

test:
	@for m in $(MODULES); do (cd $$m && $(GO) test -race -count=1 ./...) || exit 1; done

# fuzz-smoke runs every fuzz target for FUZZTIME; fuzz runs them for LONGFUZZ.
fuzz-smoke:
	@$(MAKE) --no-print-directory fuzz LONGFUZZ=$(FUZZTIME) FUZZMINTIME=$(SMOKEMINTIME)

fuzz:
	@targets=$$($(GO) test -list '^Fuzz' ./fuzz | grep '^Fuzz'); \
	[ -n "$$targets" ] || { echo "no fuzz targets found"; exit 1; }; \
	for t in $$targets; do \
		echo "fuzz $$t for $(LONGFUZZ)"; \
		$(GO) test ./fuzz -run='^$$' -fuzz="^$$t$$" -fuzztime=$(LONGFUZZ) $(FUZZFLAGS) || exit 1; \
	done

bench-smoke:
	@for m in $(MODULES); do (cd $$m && $(GO) test -run='^$$' -bench=. -benchtime=1x ./...) || exit 1; done

bench:
	@for m in $(MODULES); do (cd $$m && $(GO) test -run='^$$' -bench=. -benchmem -count=$(BENCHCOUNT) ./...) || exit 1; done
