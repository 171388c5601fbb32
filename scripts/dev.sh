#!/usr/bin/env bash
# The fast development loop: build the Rust extension in place (debug profile) and run pytest
# against the source tree. Not the CI route: scripts/test.sh (release wheel, fresh clone) is.
#
#   bash scripts/dev.sh [--backend native|python] [--no-build] [PYTEST ARGS...]
#
#   bash scripts/dev.sh tests/codec -q               # both codec backends side by side
#   bash scripts/dev.sh --backend python tests/transport -x   # pure-Python codec, no Rust build
#
# 1. .venv: created if missing; the pinned dependencies (pyproject.toml's dependencies, every
#    extra's, maturin and the tools of requirements/test.txt, under requirements/constraints.txt)
#    are installed again only when pyproject.toml or the requirements changed.
# 2. `maturin develop` (debug profile): cargo builds incrementally and maturin copies the
#    extension to python/mcpstream/; the first time it also installs mcpstream editable (later,
#    `--skip-install`: only the build). Skipped outright when nothing under rust/, nor
#    Cargo.*, rust-toolchain.toml or pyproject.toml, changed since the last build and the built
#    file is still the one it made (a stamp in target/), so a run with no change starts pytest
#    at once. --no-build (or --backend python) skips it whatever changed.
# 3. pytest with PYTHONPATH=python, so the source tree is what is tested. --backend NAME sets
#    MCPSTREAM_BACKEND (the codec the transport, client, command and OAuth suites use) and
#    MCPSTREAM_TEST_BACKENDS (the codec suites' backends) to NAME; without it, the codec
#    suites test both and the others use MCPSTREAM_BACKEND as set (default: native if built).
#
# MCPSTREAM_DEV_VENV names another virtualenv to use instead of .venv (it is modified: the
# dependencies and an editable mcpstream are installed into it).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

backend=""
build=1
while [ $# -gt 0 ]; do
  case "$1" in
    --backend) backend="${2:?--backend needs native or python}"; shift 2 ;;
    --backend=*) backend="${1#--backend=}"; shift ;;
    --no-build) build=0; shift ;;
    --) shift; break ;;
    *) break ;;
  esac
done
case "$backend" in
  "" | native) ;;
  python) build=0 ;;
  *) echo "dev.sh: --backend must be native or python, not '$backend'" >&2; exit 2 ;;
esac

venv="${MCPSTREAM_DEV_VENV:-$root/.venv}"
py="$venv/bin/python"
if [ ! -x "$py" ]; then
  echo "dev.sh: creating $venv"
  python3 -m venv "$venv"
fi

# -- 1. pinned dependencies and the editable install, when their inputs changed ---------------
deps_sum="$(cat pyproject.toml requirements/constraints.txt requirements/test.txt | sha256sum | cut -d' ' -f1)"
deps_stamp="$venv/.mcpstream-dev-deps"
if [ "$(cat "$deps_stamp" 2>/dev/null)" != "$deps_sum" ]; then
  echo "dev.sh: installing the pinned dependencies into $venv"
  mapfile -t deps < <("$py" - <<'EOF'
import tomllib

with open("pyproject.toml", "rb") as f:
    meta = tomllib.load(f)
for dep in [*meta["build-system"]["requires"], *meta["project"]["dependencies"]]:
    print(dep)
# FastMCP's tree stays out of the dev venv: its tests run in a venv of their own
# (scripts/framework-tests.sh).
for name, extra in meta["project"]["optional-dependencies"].items():
    for dep in extra if name != "fastmcp" else ():
        print(dep)
EOF
  )
  "$py" -m pip install --quiet --disable-pip-version-check \
    --constraint requirements/constraints.txt "${deps[@]}" --requirement requirements/test.txt
  echo "$deps_sum" >"$deps_stamp"
fi

# -- 2. the extension, debug profile, in place -------------------------------------------------
# What the build depends on: the crate's sources and manifests, and the interpreter (its ABI).
build_inputs() {
  find rust -type f -print0 | sort -z | xargs -0 sha256sum
  sha256sum Cargo.toml Cargo.lock rust-toolchain.toml pyproject.toml
  "$py" -c 'import sys; print(sys.version)'
}
built_file() {
  # The extension maturin put in place, by size and modification time (a copy of another
  # build dropped over it must not pass for ours).
  stat -c '%n %s %Y' python/mcpstream/_native.*.so 2>/dev/null || true
}
editable_stamp="$venv/.mcpstream-dev-editable"
editable_ok() {
  [ "$(cat "$editable_stamp" 2>/dev/null)" = "$deps_sum $root" ] &&
    grep -qxF "$root/python" "$venv"/lib/python3*/site-packages/mcpstream.pth 2>/dev/null
}
if [ "$build" = 1 ]; then
  mkdir -p target
  build_stamp="target/mcpstream-dev-build"
  inputs_sum="$(build_inputs | sha256sum | cut -d' ' -f1)"
  if ! editable_ok; then
    # The first build, and the one after pyproject.toml changed or scripts/setup.sh put its
    # release wheel in the venv, also installs mcpstream editable: its metadata, the
    # `mcpstream` command and maturin's mcpstream.pth naming python/.
    echo "dev.sh: building the extension (debug) and installing mcpstream editable"
    rm -f python/mcpstream/_native.*.so
    VIRTUAL_ENV="$venv" "$venv/bin/maturin" develop
    echo "$deps_sum $root" >"$editable_stamp"
    echo "$inputs_sum $(built_file)" >"$build_stamp"
  elif [ "$(cat "$build_stamp" 2>/dev/null)" != "$inputs_sum $(built_file)" ]; then
    echo "dev.sh: building the extension (debug) into python/mcpstream/"
    rm -f python/mcpstream/_native.*.so
    VIRTUAL_ENV="$venv" "$venv/bin/maturin" develop --skip-install
    echo "$inputs_sum $(built_file)" >"$build_stamp"
  fi
fi

# -- 3. pytest against the source tree ---------------------------------------------------------
export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
if [ -n "$backend" ]; then
  export MCPSTREAM_BACKEND="$backend" MCPSTREAM_TEST_BACKENDS="$backend"
fi
exec "$py" -m pytest "$@"
