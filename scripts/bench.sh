#!/usr/bin/env bash
# The main job for now: set up .venv (building the Rust extension in release mode) and run the
# benchmarks side by side, printing the tables of docs/benchmarks.md (`--markdown
# docs/benchmarks.md` writes them into the page).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python benches/report.py "$@"
