#!/usr/bin/env bash
# Set up a fresh machine: a virtualenv in .venv with mcpstream built from source (the Rust
# extension in release mode, through maturin) and the pinned dependencies of the extras named in
# $MCPSTREAM_EXTRAS (default: test, which includes everything the demo and benchmarks need).
set -euo pipefail
cd "$(dirname "$0")/.."

extras="${MCPSTREAM_EXTRAS:-test}"
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check \
  --constraint requirements/constraints.txt ".[$extras]"
.venv/bin/python -c "import mcpstream.codec as c; print('mcpstream installed; codec backend:', c.BACKEND)"
