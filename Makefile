# poppy-browser: make demo, make test.
GO ?= go
CHROMIUM_CANDIDATES := chromium chromium-browser google-chrome google-chrome-stable

.PHONY: demo test chromium sarif-multitool build bench fuzz pool-test pool-bench fleet-test capacity-bench

# chromium installs Debian's Chromium when no browser is found: with apt-get
# when we are root, otherwise it prints the exact command to run.
chromium:
	@for c in $(CHROMIUM_CANDIDATES); do command -v $$c >/dev/null 2>&1 && exit 0; done; \
	if [ "$$(id -u)" = 0 ]; then \
		echo "installing Chromium (apt-get install -y chromium)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else \
		echo "Chromium is missing; install it with: sudo apt-get install -y chromium" >&2; exit 1; \
	fi

# -buildvcs=auto so that --version names the commit even where GOFLAGS
# turns VCS stamping off.
build:
	$(GO) build -buildvcs=auto -o bin/poppy-browser ./cmd/poppy-browser

# DEMO_FLAGS= (empty) lets you play the User yourself in the live view.
DEMO_FLAGS ?= --auto-user

demo: chromium build
	./bin/poppy-browser demo $(DEMO_FLAGS)

# A failing test's pages leave a screenshot and their console lines in
# ARTIFACTS (browsertest); without -artifacts they would go with the test.
ARTIFACTS ?= /tmp/poppy-test-artifacts

# sarif-multitool installs the SARIF Multitool from npm (a self-contained
# binary in @microsoft/sarif-multitool-linux) into .cache/, best effort:
# with it, check's tests validate their SARIF logs as GitHub Advanced
# Security does (rule kinds Sarif and Ghas); without it (no npm, no
# network), against the schema and the GHAS rules the tests encode.
SARIF_MULTITOOL_DIR := .cache/sarif-multitool
SARIF_MULTITOOL := $(CURDIR)/$(SARIF_MULTITOOL_DIR)/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool
sarif-multitool:
	@if [ ! -x "$(SARIF_MULTITOOL)" ] && command -v npm >/dev/null 2>&1 && [ "$$(uname -s)" = Linux ]; then \
		mkdir -p $(SARIF_MULTITOOL_DIR) && \
		npm install --silent --no-audit --no-fund --prefix $(SARIF_MULTITOOL_DIR) @microsoft/sarif-multitool@5.7.0 >/dev/null 2>&1 && \
		chmod u+x "$(SARIF_MULTITOOL)" || echo "SARIF Multitool not installed: check's tests validate SARIF without it"; \
	fi

test: chromium sarif-multitool
	$(GO) vet ./...
	mkdir -p $(ARTIFACTS)
	if [ -x "$(SARIF_MULTITOOL)" ]; then export POPPY_SARIF_MULTITOOL="$(SARIF_MULTITOOL)"; fi; \
	$(GO) test -race -count=1 -timeout 30m -artifacts -outputdir=$(ARTIFACTS) ./...

# pool-test runs poppy-browser through Browserless from npm (downloads a few
# hundred MB; not part of make test): deploy/browserless/README.md.
pool-test: chromium
	./deploy/browserless/pool-test.sh

# fleet-test runs two runtimes on that pool behind Caddy (Debian's, with
# TLS from its internal CA; installed when missing): 8 sessions through the
# proxy, a runtime killed, the pool restarted (not part of make test):
# docs/fleet.md.
fleet-test: chromium
	./deploy/browserless/pool-test.sh fleet

# capacity-bench measures sessions of one runtime on that pool with a live
# view viewer each: CPU and memory (BENCH_N, default 4,8,16): docs/SCALING.md.
capacity-bench: chromium
	./deploy/browserless/pool-test.sh viewers

# pool-bench measures memory per session through the same pool (BENCH_N,
# default 1,4,8,16; both modes): BENCHMARKS.md, docs/SCALING.md.
pool-bench: chromium
	./deploy/browserless/pool-test.sh bench

bench: chromium
	$(GO) test -run '^$$' -bench . -benchtime 20x ./...

# fuzz runs each fuzz target (package:Name) for FUZZTIME, one after the
# other (not part of make test). Add yours to FUZZ_TARGETS.
FUZZTIME ?= 60s
FUZZ_TARGETS := \
	./spec:FuzzParseExtensions ./spec:FuzzParseDocument ./spec:FuzzMatchesURL \
	./spec:FuzzMatchesDomain ./spec:FuzzNormalizeDomain \
	./session:FuzzParseCompany ./testsite:FuzzJoinCredential \
	./internal/pagetext:FuzzLine ./internal/pagetext:FuzzURL \
	./agent:FuzzParseReply ./gate:FuzzParseRef ./mcpserver:FuzzToolArguments ./mcpserver:FuzzArgumentProblem \
	./check:FuzzSourceLine ./check:FuzzParseConfig ./oauth:FuzzVerify

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		echo "fuzz $$t for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$${t#*:}\$$" -fuzztime $(FUZZTIME) "$${t%%:*}"; \
	done
