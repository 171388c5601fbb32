#!/usr/bin/env bash
# The agent frameworks over mcpstream (scripts/test.sh runs this beside its later steps), by
# mcpstream.sdk.install() and by their own hooks, each in a venv of its own (their dependency
# trees stay out of .venv): FastMCP, Pydantic AI, OpenAI Agents and llama-index on the SDK's
# 2.x line (requirements/frameworks.txt), pinned and at the newest releases; Google ADK on it
# too but apart (requirements/frameworks-adk.txt); LangChain's MCP adapters, smolagents,
# Strands and mcp-proxy on its 1.x line (requirements/frameworks-1x.txt).
#
#   scripts/frameworks-all.sh WHEEL
set -euo pipefail
cd "$(dirname "$0")/.."
wheel="$1"
fw_work="$(mktemp -d)"
trap 'rm -rf "$fw_work"' EXIT
MCPSTREAM_WHEEL="$wheel" bash scripts/framework-tests.sh "$fw_work/venv"
# The same four again at the newest releases on the index (no pins: what a new host's pip picks
# today), where a framework's new release or the SDK's may change the client the framework
# builds, and so whether mcpstream's transport serves it.
MCPSTREAM_FRAMEWORKS_AT=newest MCPSTREAM_WHEEL="$wheel" \
  bash scripts/framework-tests.sh "$fw_work/venv-newest"
MCPSTREAM_FRAMEWORKS=adk MCPSTREAM_WHEEL="$wheel" bash scripts/framework-tests.sh "$fw_work/venv-adk"
MCPSTREAM_FRAMEWORKS=1.x MCPSTREAM_WHEEL="$wheel" bash scripts/framework-tests.sh "$fw_work/venv-1x"
