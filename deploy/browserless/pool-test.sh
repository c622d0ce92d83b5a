#!/bin/sh
# make pool-test: Browserless from npm (into .pool/, git-ignored; no browser
# downloads, Debian's Chromium instead), then TestBrowserlessPool: 4
# sessions of one `mcp --http` process through it, the pool killed and
# started again, recovery checked; and TestBrowserlessPoolFull: a full pool's
# 429. Not part of make test.
#
# make fleet-test (pool-test.sh fleet): the same pool, Caddy from Debian
# (installed when missing), then TestFleet: two runtimes behind Caddy with
# TLS, 8 sessions through the proxy, one runtime killed, the pool
# restarted (docs/fleet.md).
#
# make pool-bench (pool-test.sh bench): the same pool, then bench/sessions
# -browserless: memory per session at N = 1, 4, 8, 16 (BENCH_N), one
# `mcp --http` process and one stdio process per session.
#
# make capacity-bench (pool-test.sh viewers): the same pool, then
# bench/sessions -viewers: N sessions of one `mcp --http` process, each
# with one viewer on its live view; CPU and memory without and with them
# (docs/SCALING.md, "Capacity").
set -eu
cd "$(dirname "$0")/../.."
VERSION=${BROWSERLESS_VERSION:-2.42.0}
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
DIR=.pool/browserless

need=$(npm view "@browserless.io/browserless@$VERSION" engines.node 2>/dev/null || echo '>=24')
major=$(node -p 'process.versions.node.split(".")[0]')
min=$(echo "$need" | sed 's/[^0-9.]//g' | cut -d. -f1)
if [ "$major" -lt "$min" ]; then
	# It ran here on Node.js 20 all the same; say so, do not stop.
	echo "pool-test: warning: Browserless $VERSION asks for Node.js $need; this machine has $(node --version)" >&2
fi
[ -x "$CHROMIUM" ] || { echo "pool-test: no Chromium at $CHROMIUM (make chromium)" >&2; exit 1; }

if [ ! -d "$DIR/node_modules/@browserless.io/browserless" ]; then
	mkdir -p "$DIR"
	PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 \
		npm install --prefix "$DIR" --no-audit --no-fund "@browserless.io/browserless@$VERSION"
fi

PKG=$(pwd)/$DIR/node_modules/@browserless.io/browserless
# Browserless finds Chromium where Playwright would have downloaded it, and
# its playwright-core beside itself (npm hoisted it): point both.
PW=$(pwd)/.pool/playwright-browsers
CHROME=$(cd "$DIR" && PLAYWRIGHT_BROWSERS_PATH=$PW node -e 'import("playwright-core").then(p => console.log(p.chromium.executablePath()))')
mkdir -p "$(dirname "$CHROME")" "$PKG/node_modules"
ln -sfn "$CHROMIUM" "$CHROME"
[ -e "$PKG/node_modules/playwright-core" ] || ln -sfn ../../../playwright-core "$PKG/node_modules/playwright-core"
cp deploy/browserless/start-pool.mjs "$DIR/start-pool.mjs"

PORT=${POOL_PORT:-39231}
TOKEN=${POOL_TOKEN:-pool-test-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')}
export POOL_PORT=$PORT POOL_TOKEN=$TOKEN
# The pool, as the test and the bench start (and restart) it: no timeout
# on a connection (one runtime process each), its URL logging off;
# CONCURRENT and QUEUED come from whoever starts it.
export POOL_START="cd $(pwd)/$DIR && PLAYWRIGHT_BROWSERS_PATH=$PW PORT=$PORT HOST=127.0.0.1 TOKEN=$TOKEN \
TIMEOUT=0 DEBUG=-* exec node start-pool.mjs"
if [ "${1:-}" = bench ]; then
	BIN=$(pwd)/.pool/poppy-browser
	go build -o "$BIN" ./cmd/poppy-browser
	for mode in http processes; do
		go run ./bench/sessions -browserless -poppy "$BIN" -mode "$mode" -n "${BENCH_N:-1,4,8,16}" -rounds "${BENCH_ROUNDS:-2}"
		echo
	done
	exit 0
fi
if [ "${1:-}" = viewers ]; then
	# make capacity-bench: one viewer per session on its live view, CPU and
	# memory without and with them, on a still page and on a ticking one.
	BIN=$(pwd)/.pool/poppy-browser
	go build -o "$BIN" ./cmd/poppy-browser
	for page in ${BENCH_PAGES:-static ticking}; do
		go run ./bench/sessions -browserless -poppy "$BIN" -mode http -viewers -page "$page" \
			-n "${BENCH_N:-4,8,16}" -rounds "${BENCH_ROUNDS:-1}" -window "${BENCH_WINDOW:-20s}"
		echo
	done
	exit 0
fi
if [ "${1:-}" = fleet ]; then
	# make fleet-test: two runtimes on this pool behind Caddy (Debian's).
	if ! command -v caddy >/dev/null 2>&1; then
		if [ "$(id -u)" = 0 ]; then
			echo "fleet-test: installing Caddy (apt-get install -y caddy)"
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq caddy >/dev/null
		else
			echo "fleet-test: Caddy is missing; install it with: sudo apt-get install -y caddy" >&2; exit 1
		fi
	fi
	exec go test -tags 'pooltest fleettest' -race -count=1 -v -run '^TestFleet$' -timeout 15m ./cmd/poppy-browser
fi
exec go test -tags pooltest -race -count=1 -v -run '^TestBrowserlessPool' -timeout 15m ./cmd/poppy-browser
