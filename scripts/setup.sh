#!/usr/bin/env bash
# Set up a fresh machine: a virtualenv in .venv with mcpstream built from source (the Rust
# extension in release mode, through maturin), with the extras named in $MCPSTREAM_EXTRAS
# (comma-separated, e.g. `demo`; by default every extra and the development tools of
# requirements/test.txt, which the tests, lints and benchmarks need), all at the exact versions
# of requirements/constraints.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

extras="${MCPSTREAM_EXTRAS:-}"
tools=()
if [ -z "$extras" ] || [ "$extras" = test ]; then
  extras="cli,demo,sdk,httpx2,otel,plot"
  tools=(--requirement requirements/test.txt)
fi
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check \
  --constraint requirements/constraints.txt ".[$extras]" "${tools[@]}"
.venv/bin/python -c "import mcpstream.codec as c; print('mcpstream installed; codec backend:', c.BACKEND)"
