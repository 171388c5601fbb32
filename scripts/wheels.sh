#!/usr/bin/env bash
# Build the wheels a host installs and test them the way a host gets them.
#
#   bash scripts/wheels.sh [--pythons "3.11 3.13"] [--smoke "3.12"] [--aarch64 "3.15"] [--all]
#                          [--no-build]
#
# 1. Builds, with the pinned maturin and zig as the linker, a manylinux_2_17 (manylinux2014)
#    wheel for every CPython the pyproject.toml classifiers name (3.11 to 3.15; the script checks
#    requires-python against them) on x86_64 and on aarch64 (ten wheels), and the sdist, into
#    dist/. maturin's own sysconfig of each version serves the build: no interpreter is needed.
# 2. Fails unless `auditwheel show` finds each wheel consistent with manylinux_2_17_<arch>, and
#    unless each wheel holds exactly one extension module, the one for its own Python.
# 3. For each Python of --pythons (x86_64; default: all of them) and of --aarch64 (default:
#    none; "oldest" and "newest" name the ends of the list in both): a fresh venv of that
#    Python, the wheel installed in it with the demo extra, pytest, hypothesis, the
#    OpenTelemetry SDK (the telemetry tests) and uvloop (the HTTP/1.1 transport's tests run on
#    its event loop too) at the versions of requirements/constraints.txt,
#    then the suites run against the installed
#    package, from a copy of tests/ in a temporary directory, under `env -i` with a PATH of the
#    venv and /usr/bin:/bin only (no cargo or rustc: checked) and no PYTHONPATH. A check step
#    (first alone, then as a pytest plugin inside the run) asserts the native backend is the
#    one loaded and that mcpstream and mcpstream._native come from that venv's site-packages.
#    x86_64 runs the codec, transport and client suites; aarch64 runs under qemu (user mode,
#    called by name: nothing is registered with the kernel), slowly, so the codec suite and the
#    client tests against the official SDK's server named in SMOKE_CLIENT_TESTS below.
#    --smoke names x86_64 Pythons whose wheel gets that short run instead (codec suite and
#    SMOKE_CLIENT_TESTS), natively, whether --pythons names them or not: for a Python whose
#    transport and client suites run elsewhere against the same source (scripts/test.sh: the
#    python3 of its own pytest runs); --smoke without --pythons tests no other x86_64 wheel.
#    --all tests every wheel on every interpreter there is (and names the one there is not);
#    --pythons none tests no x86_64 wheel; --no-build tests the wheels dist/ already holds.
# 4. Installs the sdist with pip in a fresh venv of the oldest Python (this one builds the
#    extension, so the Rust toolchain is on the path) and runs the same check step.
#
# The interpreters: CPython on PATH or in pyenv where this machine has it; else Debian's
# (x86_64 3.14 and 3.15 from sid; aarch64 3.11 from bookworm, 3.13 from trixie, 3.14 and 3.15
# from sid; Debian has no 3.12 any more), their .debs downloaded by apt under a private state
# and unpacked, never installed, and run by their own dynamic loader (x86_64) or by qemu (from
# Debian's qemu-user, unpacked the same way). All of it is set up on first use and kept in
# $MCPSTREAM_WHEELS_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/mcpstream-wheels), outside the
# clone; remove that folder to fetch newer ones. The build tools live in .venv-wheels
# (requirements/wheels.txt, every version exact), the release builds in target/wheels-ARCH.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
# Settings of a calling environment (scripts/test.sh exports these for cargo test and its .venv)
# must not reach maturin or the test venvs.
unset PYO3_PYTHON PYTHONPATH VIRTUAL_ENV PIP_REQUIRE_VIRTUALENV PYTHONDONTWRITEBYTECODE

usage() { sed -n '2,41p' "$0" | sed 's/^# \{0,1\}//'; }
requested_x86=""
requested_smoke=""
requested_arm=""
all=0
build=1
while [ $# -gt 0 ]; do
  case "$1" in
    --pythons) requested_x86="${2:?--pythons needs a list, e.g. \"3.11 3.13\"}"; shift 2 ;;
    --pythons=*) requested_x86="${1#--pythons=}"; shift ;;
    --smoke) requested_smoke="${2:?--smoke needs a list, e.g. \"3.11\"}"; shift 2 ;;
    --smoke=*) requested_smoke="${1#--smoke=}"; shift ;;
    --aarch64) requested_arm="${2:?--aarch64 needs a list, e.g. \"3.15\"}"; shift 2 ;;
    --aarch64=*) requested_arm="${1#--aarch64=}"; shift ;;
    --all) all=1; shift ;;
    --no-build) build=0; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "wheels.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
  esac
done

# The short run (under qemu, and for --smoke): the client tests against the official SDK's
# server (both of its answer modes) that cover the handshake, a tool call with progress and a
# large multi-byte result.
SMOKE_CLIENT_TESTS=(
  "tests/client/test_client.py::test_the_handshake_agrees_on_2025_11_25_and_describes_the_server"
  "tests/client/test_client.py::test_call_tool_returns_typed_content_and_the_structured_result"
  "tests/client/test_client.py::test_a_large_result_arrives_whole_with_its_multibyte_text"
  "tests/client/test_client.py::test_progress_reaches_the_callback_while_the_tool_is_still_running"
)
# Where Debian has each CPython (for the interpreters this machine lacks).
declare -A DEBIAN_SUITE=([3.11]=bookworm [3.13]=trixie [3.14]=sid [3.15]=sid)

cache=${MCPSTREAM_WHEELS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mcpstream-wheels}
mkdir -p "$cache"
now() { date +%s; }
started=$(now)
timings=()
note_time() { timings+=("$(printf '%-44s %5ss' "$1" "$(($(now) - $2))")"); }

# The interpreter of CPython X.Y on this machine: pythonX.Y on PATH, else a pyenv install of it.
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

# --- Debian packages, downloaded by apt under a private state and unpacked (never installed) --
debian_arch() { case "$1" in x86_64) echo amd64 ;; aarch64) echo arm64 ;; esac; }

# The Debian mirror this machine's apt uses (so nothing here names one).
debian_mirror() {
  apt-get indextargets --format '$(REPO_URI)' 'Identifier: Packages' 2>/dev/null |
    grep -m1 -E '/debian/?$' || {
    echo "wheels.sh: apt has no Debian mirror configured" >&2
    return 1
  }
}

# unpack_debian DIR ARCH SUITE PACKAGE...: the packages and all they depend on, unpacked into
# DIR (once: a stamp names what DIR holds; a different list rebuilds it).
unpack_debian() {
  local dir=$1 arch=$2 suite=$3
  shift 3
  local want="$arch $suite $*"
  if [ -f "$dir/.unpacked" ] && [ "$(cat "$dir/.unpacked")" = "$want" ]; then
    return 0
  fi
  echo "-- unpacking Debian $suite ($arch): $* into $dir"
  local state=$cache/apt/$arch-$suite mirror
  mirror=$(debian_mirror)
  rm -rf "$state" "$dir"
  mkdir -p "$state/lists/partial" "$state/archives/partial" "$state/empty" "$dir"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main" \
    >"$state/sources.list"
  : >"$state/status"
  # An empty package database: apt fetches every dependency, for the architecture asked.
  local opts=(-q -o APT::Architecture="$arch" -o APT::Architectures="$arch"
    -o Dir::State="$state" -o Dir::State::Lists="$state/lists"
    -o Dir::State::status="$state/status" -o Dir::Etc::SourceList="$state/sources.list"
    -o Dir::Etc::SourceParts="$state/empty" -o Dir::Etc::Preferences="$state/empty/none"
    -o Dir::Etc::PreferencesParts="$state/empty" -o Dir::Cache="$state"
    -o Dir::Cache::archives="$state/archives" -o Debug::NoLocking=1
    -o APT::Install-Recommends=0 -o APT::Sandbox::User=root)
  apt-get "${opts[@]}" update >/dev/null
  apt-get "${opts[@]}" install -y --download-only "$@" >/dev/null
  local deb
  for deb in "$state"/archives/*.deb; do dpkg-deb -x "$deb" "$dir"; done
  # The merged /usr the package scripts would have linked (the loaders' paths go through it).
  for link in bin sbin lib lib64; do
    if [ ! -e "$dir/$link" ] && [ -d "$dir/usr/$link" ]; then ln -s "usr/$link" "$dir/$link"; fi
  done
  rm -rf "$state/archives"
  echo "$want" >"$dir/.unpacked"
}

# qemu's aarch64 user-mode emulator (a static binary from Debian sid's qemu-user), by path.
qemu_aarch64() {
  local dir=$cache/qemu
  unpack_debian "$dir" "$(dpkg --print-architecture)" sid qemu-user >&2
  echo "$dir/usr/bin/qemu-aarch64"
}

# The root holding Debian's CPython X.Y for ARCH (every Python of that suite, so one root serves
# them all), set up on first use.
debian_root() {
  local arch=$1 py=$2 suite=${DEBIAN_SUITE[$2]:-} pkgs=() v
  [ -n "$suite" ] || return 1
  for v in "${!DEBIAN_SUITE[@]}"; do
    [ "${DEBIAN_SUITE[$v]}" = "$suite" ] && pkgs+=("python$v" "python$v-venv")
  done
  local dir=$cache/roots/$arch-$suite
  unpack_debian "$dir" "$(debian_arch "$arch")" "$suite" $(printf '%s\n' "${pkgs[@]}" | sort) >&2
  echo "$dir"
}

# make_venv ARCH PY VENV: a fresh venv of CPython PY for ARCH, with pip. A Debian interpreter's
# bin/python* are scripts that run it by its loader or qemu, passing their own path as argv[0]:
# sys.executable is then the script (so `sys.executable -m ...` subprocesses work too) and
# sys.prefix the venv.
make_venv() {
  local arch=$1 py=$2 venv=$3 native root runner python name pip_wheel
  if [ "$arch" = "$(uname -m)" ] && native=$(python_for "$py"); then
    "$native" -m venv "$venv"
    return 0
  fi
  root=$(debian_root "$arch" "$py") || return 1
  python=$root/usr/bin/python$py
  if [ "$arch" = "$(uname -m)" ]; then
    local loader
    for loader in "$root"/usr/lib64/ld-linux-*.so.2 "$root"/lib64/ld-linux-*.so.2; do
      [ -e "$loader" ] && break
    done
    runner=("$loader" --library-path "$root/usr/lib/$arch-linux-gnu:$root/lib/$arch-linux-gnu")
    argv0=--argv0
  else
    runner=("$(qemu_aarch64)" -L "$root")
    argv0=-0
  fi
  env -i "${runner[@]}" "$python" -m venv --without-pip "$venv"
  for name in python python3 "python$py"; do
    rm -f "$venv/bin/$name"
    {
      echo '#!/bin/sh'
      echo "# Debian's CPython $py for $arch ($root), as this venv's interpreter."
      printf 'exec'
      printf ' %q' "${runner[@]}" "$argv0"
      printf ' "$0" %q "$@"\n' "$python"
    } >"$venv/bin/$name"
    chmod +x "$venv/bin/$name"
  done
  pip_wheel=$(echo "$root"/usr/share/python-wheels/pip-*.whl)
  env -i PATH=/usr/bin:/bin HOME="$work/home" "$venv/bin/python" "$pip_wheel/pip" install \
    --quiet --disable-pip-version-check --no-index "$pip_wheel"
}

echo "== wheels: build tools (.venv-wheels, requirements/wheels.txt)"
t=$(now)
tools=$repo/.venv-wheels
if [ ! -x "$tools/bin/python" ]; then
  python3 -m venv "$tools"
fi
"$tools/bin/python" -m pip install --quiet --disable-pip-version-check -r requirements/wheels.txt
rustup target add aarch64-unknown-linux-gnu >/dev/null 2>&1 ||
  rustup target add aarch64-unknown-linux-gnu
note_time "build tools, rustup target" "$t"

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
# The range starts at the oldest classifier and covers every one; it may stay open above (a
# newer CPython installs the sdist), but not cover a version older than the oldest.
covered = [n for n in range(minors[0] - 1, minors[-1] + 1) if spec.contains(f"3.{n}.0")]
if covered != list(range(minors[0], minors[-1] + 1)) or covered != minors:
    sys.exit(
        f"pyproject.toml: requires-python {spec} covers minors {covered} of Python 3 up to the "
        f"newest classifier, but the classifiers name {minors}; they must agree and leave no gap"
    )
print(project["version"], *(f"3.{n}" for n in minors))
EOF
)
read -r version rest <<<"$meta"
read -r -a supported <<<"$rest"
oldest=${supported[0]}
newest=${supported[-1]}
arches=(x86_64 aarch64)

# The targets to test, as ARCH:PY.
targets=()
pick() {
  local arch=$1 py
  shift
  for py in "$@"; do
    case "$py" in oldest) py=$oldest ;; newest) py=$newest ;; esac
    if [[ " ${supported[*]} " != *" $py "* ]]; then
      echo "wheels.sh: $arch $py is not supported; the supported ones are ${supported[*]}" >&2
      exit 2
    fi
    [[ " ${targets[*]} " == *" $arch:$py "* ]] || targets+=("$arch:$py")
    picked+=("$py")
  done
}
# The x86_64 Pythons whose wheel gets the short run (--smoke).
smoke=" "
if [ "$all" = 1 ]; then
  pick x86_64 "${supported[@]}"
  pick aarch64 "${supported[@]}"
else
  [ "$requested_x86" = none ] && requested_x86=" "
  [ -n "$requested_smoke" ] && [ -z "$requested_x86" ] && requested_x86=" "
  picked=()
  # shellcheck disable=SC2086  # the lists are words
  pick x86_64 ${requested_x86:-${supported[*]}}
  picked=()
  # shellcheck disable=SC2086
  pick x86_64 $requested_smoke
  smoke+="${picked[*]} "
  # shellcheck disable=SC2086
  pick aarch64 $requested_arm
fi

if [ "$build" = 1 ]; then
  echo "== wheels: maturin build (manylinux2014 via zig) for ${supported[*]} on ${arches[*]}, and the sdist"
  mkdir -p dist
  rm -f dist/mcpstream-*.whl dist/mcpstream-*.tar.gz
  pythons=()
  for py in "${supported[@]}"; do pythons+=("python$py"); done
  # One build per architecture, both at once: each compiles with one codegen unit and fat LTO,
  # so one core each. Release builds of their own, apart from the development build's target/.
  t=$(now)
  builds=()
  for arch in "${arches[@]}"; do
    # maturin finds zig as `python -m ziglang` of the python on PATH: the tools venv's. With an
    # explicit target it takes each version's configuration from its own sysconfig data.
    CARGO_TARGET_DIR=$repo/target/wheels-$arch PATH="$tools/bin:$PATH" maturin build --release \
      --zig --target "$arch-unknown-linux-gnu" --compatibility manylinux2014 \
      --interpreter "${pythons[@]}" --out dist >"dist/build-$arch.log" 2>&1 &
    builds+=($!)
  done
  failed=0
  for i in "${!arches[@]}"; do
    wait "${builds[$i]}" || failed=1
    cat "dist/build-${arches[$i]}.log"
    rm -f "dist/build-${arches[$i]}.log"
  done
  [ "$failed" = 0 ] || { echo "wheels.sh: a wheel build failed (its log is above)" >&2; exit 1; }
  note_time "build ${#supported[@]} wheels for each of ${#arches[@]} architectures" "$t"
  t=$(now)
  PATH="$tools/bin:$PATH" maturin sdist --out dist
  note_time "build sdist" "$t"
fi

echo "== wheels: auditwheel show"
declare -A wheel_of
for arch in "${arches[@]}"; do
  platform=manylinux_2_17_$arch
  for py in "${supported[@]}"; do
    abi=cp${py/./}
    wheels=(dist/mcpstream-"$version"-"$abi"-"$abi"-*"$arch".whl)
    if [ "${#wheels[@]}" -ne 1 ] || [ ! -f "${wheels[0]}" ]; then
      echo "wheels.sh: expected one $abi $arch wheel in dist/, found: ${wheels[*]}" >&2
      exit 1
    fi
    wheel=${wheels[0]}
    wheel_of[$arch:$py]=$wheel
    report=$("$tools/bin/auditwheel" show "$wheel")
    echo "$report"
    # The verdict line wraps; compare it with the whitespace folded.
    verdict=$(tr -s ' \n' '  ' <<<"$report")
    if [[ "$verdict" != *"is consistent with the following platform tag: \"$platform\""* ]] ||
      [[ "$(basename "$wheel")" != *"$platform"* ]]; then
      echo "wheels.sh: $wheel is not a $platform wheel (see auditwheel show above)" >&2
      exit 1
    fi
    "$tools/bin/python" - "$wheel" "$abi" "$arch" <<'EOF'
import sys
import zipfile

wheel, abi, arch = sys.argv[1:]
modules = [n for n in zipfile.ZipFile(wheel).namelist() if n.startswith("mcpstream/_native.")]
expected = f"mcpstream/_native.{abi.replace('cp', 'cpython-')}-{arch}-linux-gnu.so"
if expected not in modules or len(modules) != 2:
    sys.exit(f"{wheel}: expected its own extension module and the stub, found {modules}")
EOF
    echo "-> $(basename "$wheel"): $platform"
  done
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
# The test servers installed outside the clone (scripts/install-legacy-server.sh) are found where
# the real HOME keeps them, not under the private one.
legacy_server_dir="${MCPSTREAM_LEGACY_SERVER_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mcpstream/legacy-server}"
clean_env() {
  local venv=$1
  shift
  env -i HOME="$work/home" PATH="$venv/bin:/usr/bin:/bin" LANG=C.UTF-8 TMPDIR="${TMPDIR:-/tmp}" \
    MCPSTREAM_BACKEND=native MCPSTREAM_LEGACY_SERVER_DIR="$legacy_server_dir" "$@"
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
import platform
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
    assert platform.machine() == os.environ["WHEEL_ARCH"], platform.machine()
    assert codec.BACKEND == "native", f"codec backend is {codec.BACKEND!r}, not 'native'"
    for module in (mcpstream, native):
        where = Path(str(module.__file__)).resolve()
        assert site in where.parents, f"{module.__name__} is loaded from {where}, not {site}"
    return (
        f"installed and native: {native.__file__} (codec backend {codec.BACKEND}; "
        f"CPython {platform.python_version()} on {platform.machine()})"
    )


def pytest_sessionstart(session: Any) -> None:
    check()


def pytest_report_header() -> str:
    return check()


if __name__ == "__main__":
    print(check())
EOF

check_installed() {
  (cd "$work/suite" && clean_env "$1" WHEEL_VENV="$1" WHEEL_ARCH="$2" python installed_check.py)
}

summaries=()
untested=()
for target in "${targets[@]}"; do
  arch=${target%%:*}
  py=${target#*:}
  wheel=$repo/${wheel_of[$target]}
  venv=$work/venv-$arch-$py
  echo "== wheels: CPython $py on $arch: $(basename "$wheel") in a fresh venv"
  t=$(now)
  if ! make_venv "$arch" "$py" "$venv"; then
    if [ "$all" = 1 ]; then
      echo "-- no CPython $py for $arch on this machine or in Debian: $(basename "$wheel") untested"
      untested+=("$(basename "$wheel") (no CPython $py for $arch here or in Debian)")
      continue
    fi
    echo "wheels.sh: no CPython $py for $arch on this machine or in Debian" >&2
    exit 1
  fi
  # pip's cache is kept: under qemu, resolving and unpacking anew is what takes long. No
  # bytecode is compiled at install (half of pip's time here, 38 s against 19 s, and more under
  # qemu): the run compiles what it imports (a module that does not compile fails there; pip's
  # compile step only warns).
  PIP_CACHE_DIR=$cache/pip "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    --no-compile --constraint requirements/constraints.txt "$wheel[demo]" pytest pytest-xdist \
    hypothesis opentelemetry-sdk uvloop hypercorn opentelemetry-instrumentation-httpx
  note_time "$arch CPython $py: venv and install" "$t"
  if clean_env "$venv" sh -c 'command -v cargo || command -v rustc || command -v rustup'; then
    echo "wheels.sh: a Rust toolchain is reachable in the test environment" >&2
    exit 1
  fi
  check_installed "$venv" "$arch"
  # Native runs take both cores (pytest-xdist); under qemu one emulated process is enough.
  if [ "$arch" = "$(uname -m)" ] && [[ "$smoke" == *" $py "* ]]; then
    suites=(-n 2 tests/codec "${SMOKE_CLIENT_TESTS[@]}")
    what="codec+${#SMOKE_CLIENT_TESTS[@]} client tests (--smoke)"
  elif [ "$arch" = "$(uname -m)" ]; then
    # The typing test runs mypy over the source's annotations: a development tool's check, made
    # in the source-tree runs of scripts/test.sh and range-env.sh, not in the wheel's venvs.
    suites=(-n 2 tests/codec tests/transport tests/client
      --ignore=tests/client/test_typing_httpx2.py)
    what="codec+transport+client"
  else
    suites=(tests/codec "${SMOKE_CLIENT_TESTS[@]}")
    what="codec+${#SMOKE_CLIENT_TESTS[@]} client tests (qemu)"
  fi
  t=$(now)
  (cd "$work/suite" && clean_env "$venv" WHEEL_VENV="$venv" WHEEL_ARCH="$arch" python -m pytest \
    -p installed_check -p no:cacheprovider "${suites[@]}") | tee "$work/pytest-$arch-$py.log"
  note_time "$arch CPython $py: $what" "$t"
  summaries+=("$(printf '%-8s %-5s %-34s %s' "$arch" "$py" "$what" \
    "$(grep -E '(passed|failed).* in [0-9.]+s' "$work/pytest-$arch-$py.log" | tail -1 | tr -d '=' | xargs)")")
done

echo "== wheels: the sdist, installed with pip (builds the extension) on CPython $oldest"
t=$(now)
sdist=$repo/dist/mcpstream-$version.tar.gz
"$(python_for "$oldest")" -m venv "$work/venv-sdist"
"$work/venv-sdist/bin/python" -m pip install --quiet --disable-pip-version-check \
  --constraint requirements/constraints.txt "$sdist"
check_installed "$work/venv-sdist" "$(uname -m)"
note_time "sdist: build and install" "$t"

echo "== wheels: done"
ls -l dist/mcpstream-*
printf '%s\n' "${summaries[@]}"
if [ "${#untested[@]}" -gt 0 ]; then
  printf 'untested: %s\n' "${untested[@]}"
fi
printf '%s\n' "${timings[@]}"
printf '%-44s %5ss\n' "total" "$(($(now) - started))"
