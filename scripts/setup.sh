#!/usr/bin/env bash
# Set up a fresh machine: a virtualenv in .venv with mcpstream built from source (the Rust
# extension in release mode, through maturin) and the pinned test and benchmark dependencies.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check ".[test]"
.venv/bin/python -c "import mcpstream.codec as c; print('mcpstream installed; codec backend:', c.BACKEND)"
