#!/usr/bin/env bash
# The official SDK's own tests of its Streamable HTTP client, run with mcpstream's transport in
# its place (tests/sdk/peer/mcpstream_swap.py): the python-sdk test suite from the sdist of the
# pinned mcp on PyPI, in a venv of its own with the SDK's test dependencies. Never committed.
#
#   scripts/sdk-peer-tests.sh [VENV]     (default VENV: .venv-sdk-peer; WORK: a temp dir)
#
# MCPSTREAM_SRC=python (a source tree with its built extension, as scripts/dev.sh leaves it)
# runs that tree instead of installing this checkout into the venv (which builds the codec);
# MCPSTREAM_WHEEL=dist/....whl installs that wheel instead (scripts/test.sh: the one it built).
# The SDK's test dependencies are pinned in requirements/sdk-peer.txt. MCP_VERSION=2.0.0 runs the
# tests of that mcp release instead of the pinned one (scripts/test.sh: the lowest the sdk extra
# allows, and the pinned, highest).
#
# Every test passes but the ones listed in tests/sdk/peer/known.txt, each with why (they pin the
# SDK's own defaults or its own message text); those are run one by one and must fail.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${1:-$ROOT/.venv-sdk-peer}"
WORK="${WORK:-$(mktemp -d)}"
MCP_VERSION="${MCP_VERSION:-$(sed -n 's/^mcp==//p' "$ROOT/requirements/constraints.txt")}"
FILES=(
  tests/client/test_streamable_http.py
  tests/shared/test_streamable_http.py
  tests/interaction/transports/test_client_transport_http.py
)

if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
if [ -n "${MCPSTREAM_SRC:-}" ]; then
  MCPSTREAM_SRC="$(cd "$MCPSTREAM_SRC" && pwd)"
  mcpstream=(httpx sniffio platformdirs PyJWT cryptography PyYAML)
elif [ -n "${MCPSTREAM_WHEEL:-}" ]; then
  mcpstream=("$(cd "$(dirname "$MCPSTREAM_WHEEL")" && pwd)/$(basename "$MCPSTREAM_WHEEL")")
else
  mcpstream=("$ROOT")
fi
# The constraints but the SDK's own pins, which MCP_VERSION sets.
mkdir -p "$WORK"
grep -viE '^(mcp|mcp-types)==' "$ROOT/requirements/constraints.txt" >"$WORK/constraints.txt"
"$VENV/bin/pip" install -q --disable-pip-version-check -c "$WORK/constraints.txt" \
  -c "$ROOT/requirements/sdk-peer.txt" "${mcpstream[@]}" \
  "mcp==$MCP_VERSION" "mcp-types==$MCP_VERSION" pytest trio inline-snapshot dirty-equals logfire opentelemetry-sdk \
  blockbuster httpx2
# The sdist of the pinned mcp holds its test suite (its build tools may come as wheels).
"$VENV/bin/pip" download -q --no-deps --no-binary mcp "mcp==$MCP_VERSION" -d "$WORK"
tar xzf "$WORK/mcp-$MCP_VERSION.tar.gz" -C "$WORK"
cd "$WORK/mcp-$MCP_VERSION"

run() {
  PYTHONPATH="${MCPSTREAM_SRC:+$MCPSTREAM_SRC:}$ROOT/tests/sdk/peer" "$VENV/bin/python" -m pytest -p mcpstream_swap -p anyio \
    -o addopts="" -q "$@"
}
known=()
deselect=()
while read -r test _; do
  [ -n "$test" ] && [ "${test:0:1}" != "#" ] || continue
  known+=("$test")
  deselect+=(--deselect "$test")
done < "$ROOT/tests/sdk/peer/known.txt"

started=$SECONDS
run "${FILES[@]}" "${deselect[@]}"
# A known difference that starts passing must leave the list.
for test in "${known[@]}"; do
  if run "$test" > /dev/null 2>&1; then
    echo "now passes, remove it from tests/sdk/peer/known.txt: $test" >&2
    exit 1
  fi
done
echo "sdk peer tests: $((SECONDS - started)) s; ${#known[@]} known differences (tests/sdk/peer/known.txt)"
