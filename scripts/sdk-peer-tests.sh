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
# allows, the pinned, highest, and the newest of the 1.x line, 1.30.0).
#
# Every test passes but the ones listed in tests/sdk/peer/known.txt (known-1.x.txt on the 1.x
# line), each with why (they pin the SDK's own defaults, its own message text, or a 1.x behaviour
# its 2.x line changed); those are run one by one and must fail.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${1:-$ROOT/.venv-sdk-peer}"
WORK="${WORK:-$(mktemp -d)}"
MCP_VERSION="${MCP_VERSION:-$(sed -n 's/^mcp==//p' "$ROOT/requirements/constraints.txt")}"
if [ "${MCP_VERSION%%.*}" = 1 ]; then
  # The 1.x line (1.24-1.30): its tests of the Streamable HTTP client, no mcp-types
  # distribution, and its own known differences.
  FILES=(
    tests/shared/test_streamable_http.py
    tests/client/test_http_unicode.py
    tests/client/test_notification_response.py
    tests/client/test_session_group.py
  )
  sdk_pins=("mcp==$MCP_VERSION" requests)
  KNOWN="$ROOT/tests/sdk/peer/known-1.x.txt"
else
  FILES=(
    tests/client/test_streamable_http.py
    tests/shared/test_streamable_http.py
    tests/interaction/transports/test_client_transport_http.py
  )
  sdk_pins=("mcp==$MCP_VERSION" "mcp-types==$MCP_VERSION")
  KNOWN="$ROOT/tests/sdk/peer/known.txt"
fi

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
  "${sdk_pins[@]}" pytest trio inline-snapshot dirty-equals logfire opentelemetry-sdk \
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
done < "$KNOWN"

started=$SECONDS
run "${FILES[@]}" "${deselect[@]}"
# A known difference that starts passing must leave the list.
for test in "${known[@]}"; do
  if run "$test" > /dev/null 2>&1; then
    echo "now passes, remove it from $KNOWN: $test" >&2
    exit 1
  fi
done
echo "sdk peer tests (mcp $MCP_VERSION): $((SECONDS - started)) s; ${#known[@]} known differences ($KNOWN)"
