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
ruff check python tests benches scripts
ruff format --check python tests benches scripts
mypy
# The native module's stub must match what the built extension really exposes.
python -m mypy.stubtest mcpstream._native --allowlist tests/stubtest-allowlist.txt

# The documentation site, with --strict (a broken link or reference fails it) and every public
# name checked to be in the API reference; its tools are requirements/docs.txt, at the constraints.
echo "== docs"
bash scripts/docs.sh

echo "== rust"
cargo clippy --all-targets --quiet -- -D warnings
cargo test --quiet

if [ -f scripts/install-conformance-tools.sh ]; then
  echo "== conformance tools"
  bash scripts/install-conformance-tools.sh
fi

# The codec suites test both backends side by side, and the conformance suite runs its client
# under each backend itself. The transport, client, command and OAuth suites use the backend
# mcpstream.codec picked at import (as do the hostile-server suites), so they run once per backend.
# Each run is spread over both cores (pytest-xdist; every test starts or shares servers of its
# worker's own, on ports the system picks).
# The other SDKs' MCP servers (tests/peers): server-everything and servers of ours written with
# the TypeScript SDK v2, the Go SDK and rmcp, built into a cache outside the clone (keyed by their
# sources' hash, so a later run reuses them).
echo "== peer servers"
bash scripts/install-peers.sh
# A real server of the 2024-11-05 HTTP+SSE kind (the TypeScript SDK 1.0.4), outside the clone.
echo "== the 2024-11-05 test server"
bash scripts/install-legacy-server.sh

echo "== pytest (native backend, and every backend-parametrized suite)"
MCPSTREAM_BACKEND=native python -m pytest -n 2 tests -q
echo "== pytest (pure-Python backend: transport, hostile servers, client, command, OAuth, SDK)"
MCPSTREAM_BACKEND=python python -m pytest -n 2 tests/transport tests/hostile tests/client tests/cli \
  tests/oauth tests/sdk -q
# As an application that called httpx2.alias_httpx() runs mcpstream (import httpx gives httpx2;
# tests/conftest.py calls it first): the transport and client suites, one stack (the own client),
# native backend; the httpx2 runs of every other suite are in the runs above (client_stack).
echo "== pytest under httpx2.alias_httpx() (transport, client; native backend)"
MCPSTREAM_TEST_ALIAS_HTTPX=1 MCPSTREAM_TEST_CLIENT_STACKS=own MCPSTREAM_BACKEND=native \
  python -m pytest -n 2 tests/transport tests/client -q
# The bounded fuzz run (tests/fuzz; MCPSTREAM_FUZZ_EXAMPLES examples a test, 1000 by default):
# its codec half compares both backends and ran above, its transport half runs once per backend.
echo "== fuzz, bounded (transport core, pure-Python backend)"
MCPSTREAM_BACKEND=python python -m pytest tests/fuzz/test_transport_fuzz.py -q

# The wheels a host installs (scripts/wheels.sh): manylinux_2_17 wheels for every supported
# CPython on x86_64 and aarch64 and the sdist, built into dist/ and checked with auditwheel; the
# oldest and newest Python's x86_64 wheels installed in fresh venvs and the codec, transport and
# client suites run against them with no Rust toolchain and no source tree on the path; the
# newest aarch64 wheel the same way under qemu, with the codec suite and client tests against
# the SDK's server; the sdist built and installed by pip. `scripts/wheels.sh --all` tests them all.
echo "== wheels (built for every supported Python and both architectures, some tested installed)"
bash scripts/wheels.sh --pythons "oldest newest" --aarch64 newest

py_tag="$(python3 -c 'import sys; print("cp%d%d" % sys.version_info[:2])')"
wheel="$(ls dist/mcpstream-*-"$py_tag"-"$py_tag"-*x86_64*.whl | head -n 1)"

# The install requirements are ranges: the suites again at their lower bounds, in a venv that
# uv resolves with --resolution lowest-direct (mcpstream's requirements and extras at their
# lowest, the test tools at the constraints), with the wheel just built for this python3.
echo "== pytest at the lowest allowed versions (transport, client, OAuth, SDK)"
MCPSTREAM_WHEEL="$wheel" bash scripts/lowest-env.sh
# And mcpstream resolves beside the host environments of requirements/host-envs.txt (pip's
# resolver, dry run): older and newer releases of each dependency, the agent frameworks.
echo "== mcpstream beside host environments (pip's resolver)"
bash scripts/check-resolve.sh "$wheel"

# The SDK's side (mcpstream.sdk under mcp.Client), with the wheel just built for this machine's
# python3 installed in a venv of the SDK's test dependencies: the SDK's own tests of its
# Streamable HTTP client with our transport in its place (from the sdist of the pinned mcp, the
# highest the sdk extra is tested with, then of the lowest it allows), then the SDK's
# conformance client over mcpstream.sdk in every client scenario of both wires.
echo "== the SDK's own transport tests (highest and lowest mcp 2.x, newest 1.x) and its conformance client"
sdk_work="$(mktemp -d)"
WORK="$sdk_work" MCPSTREAM_WHEEL="$wheel" bash scripts/sdk-peer-tests.sh
lowest_mcp="$(sed -n 's/^ *"mcp>=\([^,"]*\).*/\1/p' pyproject.toml | head -n 1)"
WORK="$sdk_work/lowest" MCP_VERSION="$lowest_mcp" MCPSTREAM_WHEEL="$wheel" \
  bash scripts/sdk-peer-tests.sh "$sdk_work/venv-lowest"
# The SDK's 1.x line (mcp 1.24-1.30, which LangChain's adapters, smolagents and mcp-proxy still
# require): its own transport tests at the newest 1.x release over mcpstream.sdk.
WORK="$sdk_work/v1" MCP_VERSION=1.30.0 MCPSTREAM_WHEEL="$wheel" \
  bash scripts/sdk-peer-tests.sh "$sdk_work/venv-1x"
WORK="$sdk_work" bash scripts/sdk-conformance.sh
rm -rf "$sdk_work"
