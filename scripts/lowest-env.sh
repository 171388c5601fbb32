#!/usr/bin/env bash
# The suites at the lowest versions pyproject.toml allows: a venv resolved by uv with
# `--resolution lowest-direct` (each of mcpstream's requirements, the extras cli, demo, sdk,
# httpx2 and otel included, at its lower bound; what those pull in at its newest), the test tools
# at the exact versions of requirements/constraints.txt, then pytest on the suites named.
#
#   scripts/lowest-env.sh [PYTEST ARGS...]     (default: the transport, client, OAuth and SDK
#                                               suites, -n 2)
#
# mcpstream itself: MCPSTREAM_WHEEL=dist/....whl installs that wheel (scripts/test.sh: the one
# scripts/wheels.sh built for this machine's python3); MCPSTREAM_SRC=python runs that source tree
# with its built extension instead (as scripts/dev.sh leaves it). VENV: default .venv-lowest.
#
# PyJWT's lower bound is below the official SDK's own (mcp 2.x needs PyJWT>=2.10.1, the tests'
# servers need mcp): it is forced in with uv's --override, so mcpstream's OAuth code is tested
# at the PyJWT a host without the sdk extra may have.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${VENV:-$ROOT/.venv-lowest}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# uv, at the version the constraints pin, from the venv scripts/setup.sh made (or PATH).
uv="$ROOT/.venv/bin/uv"
[ -x "$uv" ] || uv="$(command -v uv)"
[ -x "$VENV/bin/python" ] || "$uv" venv --quiet --python python3 "$VENV"

# The test tools, exact: requirements/test.txt's names at the constraints' versions, except the
# packages whose lowest allowed version is the point (mcpstream's own requirements) and the
# tools the suites do not run (ruff, uv; mypy stays: tests/client/test_typing_httpx2.py runs it).
"$VENV/bin/python" - "$ROOT" >"$work/tools.txt" <<'EOF'
import re
import sys
import tomllib
from pathlib import Path

root = Path(sys.argv[1])
def name(line: str) -> str:
    return re.split(r"[\[=<>!~ ;]", line.strip(), maxsplit=1)[0].lower().replace("_", "-")

meta = tomllib.loads((root / "pyproject.toml").read_text())["project"]
ours = {name(r) for r in meta["dependencies"]}
ours |= {name(r) for extra in meta["optional-dependencies"].values() for r in extra}
ours |= {"ruff", "uv"}
pins = {}
for line in (root / "requirements/constraints.txt").read_text().splitlines():
    if line.strip() and not line.startswith("#"):
        pins[name(line)] = line.strip()
for line in (root / "requirements/test.txt").read_text().splitlines():
    if line.strip() and not line.startswith("#") and name(line) not in ours:
        print(pins[name(line)])
EOF
# What mcpstream's floors are below the SDK's (see above).
sed -n 's/^\s*"\(PyJWT\)>=\([^,]*\),.*/\1==\2/p' "$ROOT/pyproject.toml" >"$work/overrides.txt"
# The OpenTelemetry SDK of the telemetry tests pins its API exactly: at the otel extra's floor.
sed -n 's/^\s*"opentelemetry-api>=\([^,]*\),.*/opentelemetry-sdk==\1/p' "$ROOT/pyproject.toml" \
  >>"$work/overrides.txt"

"$uv" pip compile --quiet --python "$VENV/bin/python" --resolution lowest-direct \
  "$ROOT/pyproject.toml" --extra cli --extra demo --extra sdk --extra httpx2 --extra otel \
  "$work/tools.txt" \
  --override "$work/overrides.txt" --no-emit-package mcpstream -o "$work/lowest.txt"
"$uv" pip sync --quiet --python "$VENV/bin/python" "$work/lowest.txt"
if [ -n "${MCPSTREAM_WHEEL:-}" ]; then
  wheel="$(cd "$(dirname "$MCPSTREAM_WHEEL")" && pwd)/$(basename "$MCPSTREAM_WHEEL")"
  "$uv" pip install --quiet --python "$VENV/bin/python" --no-deps --reinstall "$wheel"
  pythonpath=""
else
  pythonpath="$(cd "${MCPSTREAM_SRC:-$ROOT/python}" && pwd)"
fi
echo "lowest-direct environment ($VENV):"
grep -iE '^(httpx|sniffio|platformdirs|pyjwt|cryptography|pyyaml|rich|mcp|uvicorn|httpx2|httpcore2)==' \
  "$work/lowest.txt" | tr '\n' ' '
echo

[ $# -gt 0 ] || set -- -n 2 tests/transport tests/client tests/oauth tests/sdk -q
cd "$ROOT"
PYTHONPATH="$pythonpath" "$VENV/bin/python" -m pytest "$@"
