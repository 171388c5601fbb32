#!/usr/bin/env bash
# Build the wheels a host installs and test them the way a host gets them.
#
#   bash scripts/wheels.sh [--pythons "3.11 3.13"]
#
# 1. Builds, with the pinned maturin and zig as the linker, a manylinux_2_17 (manylinux2014)
#    wheel for every CPython the pyproject.toml classifiers name (3.11, 3.12, 3.13; the script
#    checks requires-python covers exactly those), and the sdist, into dist/.
# 2. Fails unless `auditwheel show` finds each wheel consistent with manylinux_2_17_<arch>, and
#    unless each wheel holds exactly one extension module, the one for its own Python.
# 3. For each Python of --pythons (default: all of them; the words "oldest" and "newest" name the
#    ends of the list): a fresh venv of that Python, the wheel installed in it with the demo
#    extra, pytest and hypothesis at the versions of requirements/constraints.txt, then the codec,
#    transport and client suites run against the installed package, from a copy of tests/ in a
#    temporary directory, under `env -i` with a PATH of the venv and /usr/bin:/bin only (no
#    cargo or rustc: checked) and no PYTHONPATH. A check step (first alone, then as a pytest
#    plugin inside the run) asserts the native backend is the one loaded and that mcpstream and
#    mcpstream._native come from that venv's site-packages.
# 4. Installs the sdist with pip in a fresh venv of the oldest Python (this one builds the
#    extension, so the Rust toolchain is on the path) and runs the same check step.
# The build tools live in .venv-wheels (requirements/wheels.txt, every version exact).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
# Settings of a calling environment (scripts/test.sh exports these for cargo test and its .venv)
# must not reach maturin or the test venvs.
unset PYO3_PYTHON PYTHONPATH VIRTUAL_ENV PIP_REQUIRE_VIRTUALENV

usage() { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; }
requested=""
while [ $# -gt 0 ]; do
  case "$1" in
    --pythons) requested="${2:?--pythons needs a list, e.g. \"3.11 3.13\"}"; shift 2 ;;
    --pythons=*) requested="${1#--pythons=}"; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "wheels.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
  esac
done

now() { date +%s; }
started=$(now)
timings=()
note_time() { timings+=("$(printf '%-38s %4ss' "$1" "$(($(now) - $2))")"); }

# The interpreter of CPython X.Y: pythonX.Y on PATH, else a pyenv install of it.
python_for() {
  local candidate
  for candidate in "$(command -v "python$1" || true)" "$HOME"/.pyenv/versions/"$1".*/bin/"python$1"; do
    [ -n "$candidate" ] && [ -x "$candidate" ] || continue
    if [ "$("$candidate" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)" = "$1" ]; then
      echo "$candidate"
      return 0
    fi
  done
  return 1
}

echo "== wheels: build tools (.venv-wheels, requirements/wheels.txt)"
t=$(now)
tools=$repo/.venv-wheels
if [ ! -x "$tools/bin/python" ]; then
  python3 -m venv "$tools"
fi
"$tools/bin/python" -m pip install --quiet --disable-pip-version-check -r requirements/wheels.txt
note_time "build tools" "$t"

# The supported Pythons (from the classifiers, checked against requires-python and the list of
# classifiers a package index accepts) and the version, as "VERSION PY PY ...".
meta=$("$tools/bin/python" - <<'EOF'
import re
import sys
import tomllib

from packaging.specifiers import SpecifierSet
from trove_classifiers import classifiers as known

project = tomllib.load(open("pyproject.toml", "rb"))["project"]
unknown = sorted(set(project["classifiers"]) - known)
if unknown:
    sys.exit(f"pyproject.toml: classifiers no package index accepts: {unknown}")
minors = sorted(
    int(m.group(1))
    for c in project["classifiers"]
    if (m := re.fullmatch(r"Programming Language :: Python :: 3\.(\d+)", c))
)
spec = SpecifierSet(project["requires-python"])
covered = [n for n in range(minors[0] - 1, minors[-1] + 2) if spec.contains(f"3.{n}.0")]
if covered != list(range(minors[0], minors[-1] + 1)) or covered != minors:
    sys.exit(
        f"pyproject.toml: requires-python {spec} covers minors {covered} of Python 3 but the "
        f"classifiers name {minors}; they must agree and leave no gap"
    )
print(project["version"], *(f"3.{n}" for n in minors))
EOF
)
read -r version rest <<<"$meta"
read -r -a supported <<<"$rest"
oldest=${supported[0]}
newest=${supported[-1]}

declare -A interpreter
for py in "${supported[@]}"; do
  interpreter[$py]=$(python_for "$py") || {
    echo "wheels.sh: CPython $py (supported by pyproject.toml) is not on this machine" >&2
    exit 1
  }
done

test_pythons=()
for py in ${requested:-${supported[*]}}; do
  case "$py" in oldest) py=$oldest ;; newest) py=$newest ;; esac
  if [ -z "${interpreter[$py]:-}" ]; then
    echo "wheels.sh: --pythons names $py; the supported ones are ${supported[*]}" >&2
    exit 2
  fi
  [[ " ${test_pythons[*]} " == *" $py "* ]] || test_pythons+=("$py")
done

echo "== wheels: maturin build (manylinux2014 via zig) for ${supported[*]}, and the sdist"
t=$(now)
mkdir -p dist
rm -f dist/mcpstream-*.whl dist/mcpstream-*.tar.gz
interpreters=()
for py in "${supported[@]}"; do interpreters+=("${interpreter[$py]}"); done
# maturin finds zig as `python -m ziglang` of the python on PATH: the tools venv's.
PATH="$tools/bin:$PATH" maturin build --release --zig --compatibility manylinux2014 \
  --interpreter "${interpreters[@]}" --out dist
note_time "build ${#supported[@]} wheels" "$t"
t=$(now)
PATH="$tools/bin:$PATH" maturin sdist --out dist
note_time "build sdist" "$t"

echo "== wheels: auditwheel show"
arch=$(uname -m)
platform=manylinux_2_17_$arch
declare -A wheel_of
for py in "${supported[@]}"; do
  abi=cp${py/./}
  wheels=(dist/mcpstream-"$version"-"$abi"-"$abi"-*.whl)
  if [ "${#wheels[@]}" -ne 1 ] || [ ! -f "${wheels[0]}" ]; then
    echo "wheels.sh: expected one $abi wheel in dist/, found: ${wheels[*]}" >&2
    exit 1
  fi
  wheel=${wheels[0]}
  wheel_of[$py]=$wheel
  report=$("$tools/bin/auditwheel" show "$wheel")
  echo "$report"
  # The verdict line wraps; compare it with the whitespace folded.
  verdict=$(tr -s ' \n' '  ' <<<"$report")
  if [[ "$verdict" != *"is consistent with the following platform tag: \"$platform\""* ]] ||
    [[ "$(basename "$wheel")" != *"$platform"* ]]; then
    echo "wheels.sh: $wheel is not a $platform wheel (see auditwheel show above)" >&2
    exit 1
  fi
  "$tools/bin/python" - "$wheel" "$abi" <<'EOF'
import sys
import zipfile

wheel, abi = sys.argv[1:]
modules = [n for n in zipfile.ZipFile(wheel).namelist() if n.startswith("mcpstream/_native.")]
expected = f"mcpstream/_native.{abi.replace('cp', 'cpython-')}-"
if not any(n.endswith(".so") and n.startswith(expected) for n in modules) or len(modules) != 2:
    sys.exit(f"{wheel}: expected its own extension module and the stub, found {modules}")
EOF
  echo "-> $(basename "$wheel"): $platform"
done

# Everything below runs outside the source tree, and is removed at the end.
work=$(mktemp -d "${TMPDIR:-/tmp}/mcpstream-wheels.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/suite" "$work/home"
cp -r tests "$work/suite/tests"
find "$work/suite" -name __pycache__ -prune -exec rm -rf {} +
# The pytest settings (testpaths, strict markers, strict xfail); nothing else of the file is read.
cp pyproject.toml "$work/suite/pyproject.toml"
# The API parity test reads the reference transport from ../shared beside the checkout.
if [ -d "$repo/../shared" ]; then
  ln -s "$(cd "$repo/../shared" && pwd)" "$work/shared"
fi

# The environment the installed package is tested in: no Rust toolchain, no source tree, no
# PYTHONPATH, a private HOME; only the venv and the system's /usr/bin:/bin on PATH.
clean_env() {
  local venv=$1
  shift
  env -i HOME="$work/home" PATH="$venv/bin:/usr/bin:/bin" LANG=C.UTF-8 TMPDIR="${TMPDIR:-/tmp}" \
    MCPSTREAM_BACKEND=native "$@"
}

# The check that the package under test is the installed one: the native backend loaded, and
# mcpstream and mcpstream._native from the venv's site-packages (never the source tree). It runs
# as a script (`python installed_check.py`) and inside each pytest run, as a plugin (`-p
# installed_check`) that checks at session start, after the conftests imported mcpstream, the
# very modules every test of the run uses (a process has one of each) and names them in the
# report header.
cat >"$work/suite/installed_check.py" <<'EOF'
"""Fail unless mcpstream is the venv's installed package with the native codec backend."""

import os
import sys
import sysconfig
from pathlib import Path
from typing import Any


def check() -> str:
    """Assert the package is the installed one; return what was found."""
    import mcpstream
    import mcpstream._native as native
    import mcpstream.codec as codec

    venv = Path(os.environ["WHEEL_VENV"]).resolve()
    site = Path(sysconfig.get_path("platlib")).resolve()
    assert Path(sys.prefix).resolve() == venv, (sys.prefix, venv)
    assert codec.BACKEND == "native", f"codec backend is {codec.BACKEND!r}, not 'native'"
    for module in (mcpstream, native):
        where = Path(str(module.__file__)).resolve()
        assert site in where.parents, f"{module.__name__} is loaded from {where}, not {site}"
    return f"installed and native: {native.__file__} (codec backend {codec.BACKEND})"


def pytest_sessionstart(session: Any) -> None:
    check()


def pytest_report_header() -> str:
    return check()


if __name__ == "__main__":
    print(check())
EOF

check_installed() {
  (cd "$work/suite" && clean_env "$1" WHEEL_VENV="$1" python installed_check.py)
}

summaries=()
for py in "${test_pythons[@]}"; do
  wheel=$repo/${wheel_of[$py]}
  venv=$work/venv-$py
  echo "== wheels: CPython $py: $(basename "$wheel") in a fresh venv"
  t=$(now)
  "${interpreter[$py]}" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    --constraint requirements/constraints.txt "$wheel[demo]" pytest hypothesis
  note_time "CPython $py: venv and install" "$t"
  if clean_env "$venv" sh -c 'command -v cargo || command -v rustc || command -v rustup'; then
    echo "wheels.sh: a Rust toolchain is reachable in the test environment" >&2
    exit 1
  fi
  check_installed "$venv"
  t=$(now)
  (cd "$work/suite" && clean_env "$venv" WHEEL_VENV="$venv" python -m pytest -p installed_check \
    -p no:cacheprovider tests/codec tests/transport tests/client) | tee "$work/pytest-$py.log"
  note_time "CPython $py: codec+transport+client" "$t"
  summaries+=("CPython $py: $(grep -E '(passed|failed).* in [0-9.]+s' "$work/pytest-$py.log" | tail -1 | tr -d '=' | xargs)")
done

echo "== wheels: the sdist, installed with pip (builds the extension) on CPython $oldest"
t=$(now)
sdist=$repo/dist/mcpstream-$version.tar.gz
"${interpreter[$oldest]}" -m venv "$work/venv-sdist"
"$work/venv-sdist/bin/python" -m pip install --quiet --disable-pip-version-check \
  --constraint requirements/constraints.txt "$sdist"
check_installed "$work/venv-sdist"
note_time "sdist: build and install" "$t"

echo "== wheels: done"
ls -l dist/mcpstream-*
printf '%s\n' "${summaries[@]}" "${timings[@]}"
printf '%-38s %4ss\n' "total" "$(($(now) - started))"
