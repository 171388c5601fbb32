#!/usr/bin/env bash
# The main job: set up .venv (building the Rust extension) and run `mcpstream demo`, which starts
# the official MCP SDK's server on a free loopback port inside the process and shows the client
# at work against it (handshake, tools, a large streamed result, a progress stream, timings).
set -euo pipefail
cd "$(dirname "$0")/.."
MCPSTREAM_EXTRAS=demo bash scripts/setup.sh
.venv/bin/mcpstream demo "$@"
