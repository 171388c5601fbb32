#!/usr/bin/env bash
# The agent frameworks as peers (tests/frameworks/): FastMCP, Pydantic AI, OpenAI Agents and
# llama-index against the official SDK's server over mcpstream, by mcpstream.sdk.install() and by
# each framework's own hook, in a venv of their own (they pull large dependency trees the main
# venv does without). MCPSTREAM_FRAMEWORKS=adk runs Google ADK instead (tests/frameworks_adk/),
# which cannot share that venv, in another; MCPSTREAM_FRAMEWORKS=1.x those of the SDK's 1.x line
# (tests/frameworks_1x/: langchain-mcp-adapters, smolagents through mcpadapt, Strands, mcp-proxy,
# on mcp 1.30).
#
#   scripts/framework-tests.sh [VENV] [PYTEST ARGS...]   (default VENV: .venv-frameworks)
#
# MCPSTREAM_WHEEL=dist/....whl installs that wheel (scripts/test.sh: the one it built);
# MCPSTREAM_SRC=python runs that source tree with its built extension (as scripts/dev.sh leaves
# it) instead; without either, this checkout is installed into the venv (which builds the codec).
# The frameworks and everything they pull in beyond requirements/constraints.txt are pinned in
# requirements/frameworks.txt (requirements/frameworks-adk.txt for ADK, requirements/frameworks-1x.txt
# for the 1.x line). MCPSTREAM_FRAMEWORKS_AT=newest installs with neither file: each framework,
# mcpstream's requirements and the test tools at the newest releases pip picks today, as a new
# host gets them (its versions are printed).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${1:-$ROOT/.venv-frameworks}"
shift || true
# The suite's own needs: pytest and hypothesis (tests/conftest.py), the SDK and uvicorn (its server),
# rich (the demo server the recipes of docs/frameworks.md run against).
TEST_TOOLS=(pytest hypothesis mcp uvicorn httpx2 httpcore2 rich)
CONSTRAINTS="$ROOT/requirements/constraints.txt"
if [ "${MCPSTREAM_FRAMEWORKS:-}" = 1.x ]; then
  # The frameworks of the SDK's 1.x line (tests/frameworks_1x/): requirements/frameworks-1x.txt
  # pins mcp 1.x and the older releases Strands requires; mcp-types is the 2.x line's.
  FRAMEWORKS=(langchain-mcp-adapters mcpadapt smolagents strands-agents mcp-proxy)
  PINS="$ROOT/requirements/frameworks-1x.txt"
  TESTS=tests/frameworks_1x
  DROPPED="mcp-types|"
elif [ "${MCPSTREAM_FRAMEWORKS:-}" = adk ]; then
  # Google ADK (tests/frameworks_adk/), on the SDK's 2.x line too, but in a venv of its own: it
  # caps OpenTelemetry at 1.44, where FastMCP 4.2 needs 1.45.2 (the constraints pin that), and
  # watchdog below 7 (the constraints: 7.1); requirements/frameworks-adk.txt pins its own.
  FRAMEWORKS=("google-adk[mcp]")
  TEST_TOOLS+=(mcp-types)
  PINS="$ROOT/requirements/frameworks-adk.txt"
  TESTS=tests/frameworks_adk
else
  FRAMEWORKS=(fastmcp "pydantic-ai-slim[mcp]" openai-agents llama-index-tools-mcp)
  TEST_TOOLS+=(mcp-types)
  PINS="$ROOT/requirements/frameworks.txt"
  TESTS=tests/frameworks
fi
# Each environment installs under the constraints but what its pins file pins itself (the
# releases its frameworks require where the constraints pin others), and under that file.
work="$(mktemp -d)"
own="$(grep -oE '^[A-Za-z0-9_.-]+' "$PINS" | paste -sd'|')"
grep -viE "^(${DROPPED:-}$own)==" "$CONSTRAINTS" >"$work/constraints.txt"
CONSTRAINTS="$work/constraints.txt"

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
pins=(-c "$CONSTRAINTS" -c "$PINS")
[ "${MCPSTREAM_FRAMEWORKS_AT:-pinned}" != newest ] || pins=()
started=$SECONDS
"$VENV/bin/pip" install -q --disable-pip-version-check "${pins[@]}" \
  "${mcpstream[@]}" "${FRAMEWORKS[@]}" "${TEST_TOOLS[@]}"
installed=$((SECONDS - started))
if [ ${#pins[@]} -eq 0 ]; then
  echo "newest releases: $("$VENV/bin/pip" list --format=freeze 2>/dev/null | grep -iE \
    '^(fastmcp|pydantic-ai-slim|openai-agents|llama-index-tools-mcp|google-adk|langchain-mcp-adapters|smolagents|strands-agents|mcp-proxy|mcp|httpx|httpx2|httpcore2)==' | tr '\n' ' ')"
fi

cd "$ROOT"
PYTHONPATH="${MCPSTREAM_SRC:-}" "$VENV/bin/python" -m pytest -p no:cacheprovider "$TESTS" -q "$@"
echo "framework tests: $((SECONDS - started)) s ($installed s installing)"
