#!/usr/bin/env bash
# The whole test suite, from a fresh clone: README.md gives this command and .ci/run calls it.
# Lints and type checks first (cheap), then the Rust unit tests, then pytest against the
# installed wheel with both codec backends.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
export PATH="$PWD/.venv/bin:$PATH"
# cargo test links the crate against this interpreter (PyO3 without extension-module).
export PYO3_PYTHON="$PWD/.venv/bin/python"

echo "== style and types"
cargo fmt --check
ruff check python tests benches
ruff format --check python tests benches
mypy

echo "== rust"
cargo clippy --all-targets --quiet -- -D warnings
cargo test --quiet

if [ -f scripts/install-conformance-tools.sh ]; then
  echo "== conformance tools"
  bash scripts/install-conformance-tools.sh
fi

echo "== pytest"
python -m pytest tests -q
