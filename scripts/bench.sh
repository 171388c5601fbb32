#!/usr/bin/env bash
# The main job for now: set up .venv (building the Rust extension in release mode) and run the
# codec benchmarks side by side, printing the tables README.md shows.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python benches/report.py "$@"
