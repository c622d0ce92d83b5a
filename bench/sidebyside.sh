#!/usr/bin/env bash
# Side-by-side benchmark: poppy-browser's MCP server and Playwright MCP, the
# same pages, the same MCP client, one run. Not part of make test.
#   bench/sidebyside.sh [-runs N] [-task checkin|shop | -pages DIR [-pages-limit N]]
# -pages DIR measures saved real pages, DIR/NAME/source.html (e.g. Mozilla
# Readability's test/test-pages, Apache-2.0; never commit them), served from
# realpages.test with every other host unreachable in both browsers.
# Needs node and npm (installs @playwright/mcp into a temporary folder) and
# Chromium at /usr/bin/chromium (or CHROMIUM=path).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"
PLAYWRIGHT_MCP_VERSION="${PLAYWRIGHT_MCP_VERSION:-0.0.83}"
CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "installing @playwright/mcp@$PLAYWRIGHT_MCP_VERSION into $work" >&2
(cd "$work" && npm install --silent --no-audit --no-fund "@playwright/mcp@$PLAYWRIGHT_MCP_VERSION" >&2)
go build -o "$work/poppy-browser" ./cmd/poppy-browser
go run ./bench/sidebyside -poppy "$work/poppy-browser" \
	-playwright "$work/node_modules/@playwright/mcp/cli.js" -chromium "$CHROMIUM" "$@"
