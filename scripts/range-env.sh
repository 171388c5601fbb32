#!/usr/bin/env bash
# The suites at either end of the ranges pyproject.toml allows, in a venv uv resolves from
# mcpstream's requirements and every extra (cli, demo, sdk, httpx2, otel) with no constraints
# file for them:
#
#   scripts/range-env.sh lowest [PYTEST ARGS...]   each requirement at its lower bound
#                                                  (`--resolution lowest-direct`; what they pull
#                                                  in at its newest); the test tools at the exact
#                                                  versions of requirements/constraints.txt
#   scripts/range-env.sh newest [PYTEST ARGS...]   everything at the newest release the index
#                                                  has today, the test tools too: what
#                                                  `pip install mcpstream[...]` gives a new host
#
# Without PYTEST ARGS: the transport, client, OAuth and SDK suites, -n 2.
#
# mcpstream itself: MCPSTREAM_WHEEL=dist/....whl installs that wheel (scripts/test.sh: the one
# scripts/wheels.sh built for this machine's python3); MCPSTREAM_SRC=python runs that source tree
# with its built extension instead (as scripts/dev.sh leaves it). VENV: default .venv-lowest or
# .venv-newest. The versions of the HTTP stacks, the SDK and cryptography resolved are printed
# first, so that a log says what ran.
#
# At the lowest end, PyJWT's lower bound is below the official SDK's own (mcp 2.x needs
# PyJWT>=2.10.1, the tests' servers need mcp): it is forced in with uv's --override, so
# mcpstream's OAuth code is tested at the PyJWT a host without the sdk extra may have.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
end="${1:-}"
case "$end" in
  lowest | newest) shift ;;
  *) echo "usage: scripts/range-env.sh lowest|newest [PYTEST ARGS...]" >&2; exit 2 ;;
esac
VENV="${VENV:-$ROOT/.venv-$end}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# uv, at the version the constraints pin, from the venv scripts/setup.sh made (or PATH).
uv="$ROOT/.venv/bin/uv"
[ -x "$uv" ] || uv="$(command -v uv)"
[ -x "$VENV/bin/python" ] || "$uv" venv --quiet --python python3 "$VENV"

# The test tools: requirements/test.txt's names, except mcpstream's own requirements (their
# resolution is the point) and the tools the suites do not run (ruff, uv; mypy stays:
# tests/client/test_typing_httpx2.py runs it). At the lowest end each at the constraints'
# version; at the newest end unpinned, as a contributor's fresh venv would have them.
"$VENV/bin/python" - "$ROOT" "$end" >"$work/tools.txt" <<'EOF'
import re
import sys
import tomllib
from pathlib import Path

root, end = Path(sys.argv[1]), sys.argv[2]
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
# OpenTelemetry's httpx instrumentation pins its semantic conventions to its own release,
# which the OpenTelemetry SDK at the otel extra's floor (below) cannot share: at the lowest end
# it is left out, and so are the tests that use it (LOWEST_WITHOUT).
left_out = {"opentelemetry-instrumentation-httpx"} if end == "lowest" else set()
for line in (root / "requirements/test.txt").read_text().splitlines():
    if line.strip() and not line.startswith("#") and name(line) not in ours | left_out:
        print(pins[name(line)] if end == "lowest" else name(line))
EOF

resolve=(--extra cli --extra demo --extra sdk --extra httpx2 --extra otel "$work/tools.txt")
if [ "$end" = lowest ]; then
  # What mcpstream's floors are below the SDK's (see above).
  sed -n 's/^\s*"\(PyJWT\)>=\([^,]*\),.*/\1==\2/p' "$ROOT/pyproject.toml" >"$work/overrides.txt"
  # The OpenTelemetry SDK of the telemetry tests pins its API exactly: at the otel extra's floor.
  sed -n 's/^\s*"opentelemetry-api>=\([^,]*\),.*/opentelemetry-sdk==\1/p' "$ROOT/pyproject.toml" \
    >>"$work/overrides.txt"
  resolve+=(--resolution lowest-direct --override "$work/overrides.txt")
else
  # The index as it is now, not as uv's cache last saw it.
  resolve+=(--resolution highest --refresh)
fi
"$uv" pip compile --quiet --python "$VENV/bin/python" "$ROOT/pyproject.toml" "${resolve[@]}" \
  --no-emit-package mcpstream -o "$work/resolved.txt"
"$uv" pip sync --quiet --python "$VENV/bin/python" "$work/resolved.txt"
if [ -n "${MCPSTREAM_WHEEL:-}" ]; then
  wheel="$(cd "$(dirname "$MCPSTREAM_WHEEL")" && pwd)/$(basename "$MCPSTREAM_WHEEL")"
  "$uv" pip install --quiet --python "$VENV/bin/python" --no-deps --reinstall "$wheel"
  pythonpath=""
else
  pythonpath="$(cd "${MCPSTREAM_SRC:-$ROOT/python}" && pwd)"
fi
echo "$end environment ($VENV):"
grep -iE '^(httpx|httpcore|h11|sniffio|platformdirs|pyjwt|cryptography|pyyaml|rich|mcp|uvicorn|httpx2|httpcore2|anyio|opentelemetry-api)==' \
  "$work/resolved.txt" | tr '\n' ' '
echo

[ $# -gt 0 ] || set -- -n 2 tests/transport tests/client tests/oauth tests/sdk -q
if [ "$end" = lowest ]; then
  # The tests of hooks installed by OpenTelemetry's httpx instrumentation (not installed at
  # this end, see above); they run at the pins and at the newest releases.
  set -- "$@" --ignore=tests/sdk/test_host_interception.py \
    --deselect "tests/transport/test_host_view.py::test_an_http2_client_with_a_hook_on_its_way_keeps_its_transport_and_never_hangs"
  # The tests whose yardstick is a newer SDK's: the SDK transport's redirect rule the
  # host-settings tests compare with (mcp 2.0.0 stops elsewhere). They run at the pins and at
  # the newest releases.
  set -- "$@" --ignore=tests/transport/test_host_settings.py
  # The SDK server that forgets sessions on command reaches into mcp 2.3's session manager
  # (mcp 2.0.0's answers 500): it runs on the pinned SDK of scripts/setup.sh's venv, while the
  # clients under test run here.
  if [ -x "$ROOT/.venv/bin/python" ]; then
    export MCPSTREAM_TEST_SERVER_PYTHON="$ROOT/.venv/bin/python"
  else
    set -- "$@" --ignore=tests/client/test_core_recovery.py \
      --ignore=tests/transport/test_transport_http_session_loss.py \
      --ignore=tests/sdk/test_session_loss.py
  fi
fi
cd "$ROOT"
PYTHONPATH="$pythonpath" "$VENV/bin/python" -m pytest "$@"
