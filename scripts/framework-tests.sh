#!/usr/bin/env bash
# The agent frameworks as peers (tests/frameworks/): FastMCP, Pydantic AI and OpenAI Agents against
# the official SDK's server over mcpstream, by mcpstream.sdk.install() and by each framework's own
# hook, in a venv of their own (they pull large dependency trees the main venv does without).
# MCPSTREAM_FRAMEWORKS=1.x runs those of the SDK's 1.x line instead (tests/frameworks_1x/:
# langchain-mcp-adapters, smolagents through mcpadapt, Strands, mcp-proxy, on mcp 1.30), in
# another venv.
#
#   scripts/framework-tests.sh [VENV] [PYTEST ARGS...]   (default VENV: .venv-frameworks)
#
# MCPSTREAM_WHEEL=dist/....whl installs that wheel (scripts/test.sh: the one it built);
# MCPSTREAM_SRC=python runs that source tree with its built extension (as scripts/dev.sh leaves
# it) instead; without either, this checkout is installed into the venv (which builds the codec).
# The frameworks and everything they pull in beyond requirements/constraints.txt are pinned in
# requirements/frameworks.txt (requirements/frameworks-1x.txt for the 1.x line).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${1:-$ROOT/.venv-frameworks}"
shift || true
# The suite's own needs: pytest and hypothesis (tests/conftest.py), the SDK and uvicorn (its server),
# rich (the demo server the recipes of docs/frameworks.md run against).
TEST_TOOLS=(pytest hypothesis mcp uvicorn httpx2 httpcore2 rich)
CONSTRAINTS="$ROOT/requirements/constraints.txt"
if [ "${MCPSTREAM_FRAMEWORKS:-}" = 1.x ]; then
  # The frameworks of the SDK's 1.x line (tests/frameworks_1x/): the constraints but mcp-types
  # and every package requirements/frameworks-1x.txt pins itself (mcp 1.x, and the older
  # releases Strands requires), and that file.
  FRAMEWORKS=(langchain-mcp-adapters mcpadapt smolagents strands-agents mcp-proxy)
  PINS="$ROOT/requirements/frameworks-1x.txt"
  TESTS=tests/frameworks_1x
  work="$(mktemp -d)"
  own="$(grep -oE '^[A-Za-z0-9_.-]+' "$PINS" | paste -sd'|')"
  grep -viE "^(mcp-types|$own)==" "$CONSTRAINTS" >"$work/constraints.txt"
  CONSTRAINTS="$work/constraints.txt"
else
  FRAMEWORKS=(fastmcp "pydantic-ai-slim[mcp]" openai-agents)
  TEST_TOOLS+=(mcp-types)
  PINS="$ROOT/requirements/frameworks.txt"
  TESTS=tests/frameworks
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
started=$SECONDS
"$VENV/bin/pip" install -q --disable-pip-version-check -c "$CONSTRAINTS" \
  -c "$PINS" "${mcpstream[@]}" "${FRAMEWORKS[@]}" "${TEST_TOOLS[@]}"
installed=$((SECONDS - started))

cd "$ROOT"
PYTHONPATH="${MCPSTREAM_SRC:-}" "$VENV/bin/python" -m pytest -p no:cacheprovider "$TESTS" -q "$@"
echo "framework tests: $((SECONDS - started)) s ($installed s installing)"
