# poppy-browser: make demo, make test.
GO ?= go
CHROMIUM_CANDIDATES := chromium chromium-browser google-chrome google-chrome-stable

.PHONY: demo test chromium build bench fuzz

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

build:
	$(GO) build -o bin/poppy-browser ./cmd/poppy-browser

# DEMO_FLAGS= (empty) lets you play the User yourself in the live view.
DEMO_FLAGS ?= --auto-user

demo: chromium build
	./bin/poppy-browser demo $(DEMO_FLAGS)

test: chromium
	$(GO) vet ./...
	$(GO) test -race -count=1 -timeout 30m ./...

# fuzz runs each fuzz target for FUZZTIME, one after the other (not part of
# make test). One line per target.
FUZZTIME ?= 60s

fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParseExtensions$$' -fuzztime $(FUZZTIME) ./spec
	$(GO) test -run '^$$' -fuzz '^FuzzParseDocument$$' -fuzztime $(FUZZTIME) ./spec
	$(GO) test -run '^$$' -fuzz '^FuzzMatchesURL$$' -fuzztime $(FUZZTIME) ./spec
	$(GO) test -run '^$$' -fuzz '^FuzzMatchesDomain$$' -fuzztime $(FUZZTIME) ./spec
	$(GO) test -run '^$$' -fuzz '^FuzzNormalizeDomain$$' -fuzztime $(FUZZTIME) ./spec
	$(GO) test -run '^$$' -fuzz '^FuzzParseCompany$$' -fuzztime $(FUZZTIME) ./session
	$(GO) test -run '^$$' -fuzz '^FuzzJoinCredential$$' -fuzztime $(FUZZTIME) ./testsite

bench: chromium
	$(GO) test -run '^$$' -bench . -benchtime 20x ./...

# fuzz runs every fuzz target for 60 s each (not part of make test). One
# line per target: add yours.
FUZZTIME ?= 60s
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzLine$$' -fuzztime $(FUZZTIME) ./internal/pagetext
	$(GO) test -run '^$$' -fuzz '^FuzzURL$$' -fuzztime $(FUZZTIME) ./internal/pagetext
	$(GO) test -run '^$$' -fuzz '^FuzzParseExtensions$$' -fuzztime $(FUZZTIME) ./spec
	$(GO) test -run '^$$' -fuzz '^FuzzParseDocument$$' -fuzztime $(FUZZTIME) ./spec
	$(GO) test -run '^$$' -fuzz '^FuzzMatchesURL$$' -fuzztime $(FUZZTIME) ./spec
	$(GO) test -run '^$$' -fuzz '^FuzzNormalizeDomain$$' -fuzztime $(FUZZTIME) ./spec
	$(GO) test -run '^$$' -fuzz '^FuzzParseReply$$' -fuzztime $(FUZZTIME) ./agent
