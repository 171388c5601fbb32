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

# Each step's heading says how far into the run it starts (minutes:seconds).
section() { printf '== %s  [%d:%02d]\n' "$1" $((SECONDS / 60)) $((SECONDS % 60)); }

section "style and types"
cargo fmt --check
ruff check python tests benches scripts
ruff format --check python tests benches scripts
mypy
# The native module's stub must match what the built extension really exposes.
python -m mypy.stubtest mcpstream._native --allowlist tests/stubtest-allowlist.txt

# The documentation site, with --strict (a broken link or reference fails it) and every public
# name checked to be in the API reference; its tools are requirements/docs.txt, at the constraints.
section "docs"
bash scripts/docs.sh

section "rust"
cargo clippy --all-targets --quiet -- -D warnings
cargo test --quiet

if [ -f scripts/install-conformance-tools.sh ]; then
  section "conformance tools"
  bash scripts/install-conformance-tools.sh
fi

# The codec suites test both backends side by side, and the conformance suite runs its client
# under each backend itself. The transport, client, command and OAuth suites use the backend
# mcpstream.codec picked at import (as do the hostile-server suites): the native run has them
# all; the pure-Python run has the suites where the codec does the work (the transport, hostile
# servers, client and SDK suites), and of the OAuth and command suites the files whose MCP
# traffic goes through the transport (a 401 replays the encoded request; a command prints the
# decoded result). The rest of those two (discovery, tokens, DPoP proofs, the token store,
# redaction, argument parsing) never reach the codec.
# Each run is spread over both cores (pytest-xdist; every test starts or shares servers of its
# worker's own, on ports the system picks).
# The other SDKs' MCP servers (tests/peers): server-everything and servers of ours written with
# the TypeScript SDK v2, the Go SDK and rmcp, built into a cache outside the clone (keyed by their
# sources' hash, so a later run reuses them).
section "peer servers"
bash scripts/install-peers.sh
# A real server of the 2024-11-05 HTTP+SSE kind (the TypeScript SDK 1.0.4), outside the clone.
section "the 2024-11-05 test server"
bash scripts/install-legacy-server.sh
# nginx, the real reverse proxy of tests/transport/test_h1_nginx.py (its keep-alive race, its
# error pages), from the system's packages; the tests run it as their own process on loopback.
section "nginx"
bash scripts/install-nginx.sh

section "pytest (native backend, and every backend-parametrized suite)"
MCPSTREAM_BACKEND=native python -m pytest -n 2 tests -q
# As an application that called httpx2.alias_httpx() runs mcpstream (import httpx gives httpx2;
# tests/conftest.py calls it first): the transport and client suites, one stack (the own client),
# native backend; the httpx2 runs of every other suite are in the runs above (client_stack).
section "pytest under httpx2.alias_httpx() (transport, client; native backend)"
MCPSTREAM_TEST_ALIAS_HTTPX=1 MCPSTREAM_TEST_CLIENT_STACKS=own MCPSTREAM_BACKEND=native \
  python -m pytest -n 2 tests/transport tests/client --ignore=tests/client/test_typing_httpx2.py -q
# The runs above have mcpstream's own clients (and a host's stock async client under
# mcpstream.sdk) on its HTTP/1.1 transport, the default. The opt-out (MCPSTREAM_H1_TRANSPORT=0)
# puts them on httpx's own transport and pool, the path that also carries proxies, HTTP/2,
# mounts and custom transports: every hostile server, the client's deadlines and the transport
# suite over it (the tests of that pool, marked httpcore_client, ran above as well: they opt out
# for themselves).
section "pytest over httpx's transport (MCPSTREAM_H1_TRANSPORT=0: hostile servers, client deadlines, transport; native backend)"
MCPSTREAM_H1_TRANSPORT=0 MCPSTREAM_TEST_CLIENT_STACKS=own MCPSTREAM_BACKEND=native \
  python -m pytest -n 2 tests/hostile tests/client/test_client_deadlines.py tests/transport -q
# The soak, two minutes (benches/soak.py; docs/benchmarks.md has a 30-minute run): every front
# end (the clients, the drop-in transports, mcp.Client over mcpstream.sdk, the pure-Python
# codec; both eras) calling a real SDK server that is killed and restarted on a schedule, at
# its handshake too, behind a proxy that resets answers mid-stream; it fails on a client that
# had to be thrown away (every call failing after the server is back), a hang, or fds, threads
# or tasks above their baseline.
section "soak, 2 minutes (a server killed and restarted under every front end)"
python benches/soak.py --minutes 2 --ci
# The bounded fuzz run (tests/fuzz; MCPSTREAM_FUZZ_EXAMPLES examples a test, 1000 by default):
# its codec half compares both backends and ran above, its transport half runs once per backend.
section "fuzz, bounded (transport core, pure-Python backend)"
MCPSTREAM_BACKEND=python python -m pytest tests/fuzz/test_transport_fuzz.py -q

# The wheels a host installs (scripts/wheels.sh): manylinux_2_17 wheels for every supported
# CPython on x86_64 and aarch64 and the sdist, built into dist/ and checked with auditwheel; the
# oldest and newest Python's x86_64 wheels installed in fresh venvs and the codec, transport and
# client suites run against them with no Rust toolchain and no source tree on the path; the
# newest aarch64 wheel the same way under qemu, with the codec suite and client tests against
# the SDK's server; the sdist built and installed by pip. The wheel of the Python that ran the
# suites above (python3, in .venv) gets that short run only (--smoke): its transport and client
# suites just ran in full against the same source (built by setup.sh), and its codec suite checks
# the wheel's own binary. `scripts/wheels.sh --all` tests them all.
section "wheels (built for every supported Python and both architectures, some tested installed)"
venv_py="$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
bash scripts/wheels.sh --pythons "oldest newest" --smoke "$venv_py" --aarch64 newest

py_tag="$(python3 -c 'import sys; print("cp%d%d" % sys.version_info[:2])')"
wheel="$(ls dist/mcpstream-*-"$py_tag"-"$py_tag"-*x86_64*.whl | head -n 1)"

# mcpstream resolves beside the host environments of requirements/host-envs.txt (pip's
# resolver, dry run): older and newer releases of each dependency, the agent frameworks. Its
# time is mostly pip waiting on the package index (a few seconds of CPU an environment), so it
# runs in the background beside the steps below and its report is printed after them; more
# resolutions at once than its own four only slowed it down (the index and pip's cache).
section "mcpstream beside host environments (pip's resolver): started, reported below"
resolve_log="$(mktemp)"
# Its own process group (setsid), so that a step below that fails, ending this script, ends
# every pip of it too.
setsid -w bash scripts/check-resolve.sh "$wheel" >"$resolve_log" 2>&1 &
resolve_pid=$!
# The agent frameworks (scripts/frameworks-all.sh: their tests in venvs of their own, pinned
# and at the newest releases) run beside the steps below too: their pytest runs one process
# and their installs wait on the index, so they fill the gaps of the steps below; their report
# is printed after them.
section "the agent frameworks over mcpstream: started, reported below"
frameworks_log="$(mktemp)"
setsid -w bash scripts/frameworks-all.sh "$wheel" >"$frameworks_log" 2>&1 &
frameworks_pid=$!
trap 'kill -- -"$resolve_pid" -"$frameworks_pid" 2>/dev/null || true' EXIT

# The install requirements are ranges: the suites again at both ends, each in a venv uv resolves
# with no constraints file for mcpstream's requirements and extras (scripts/range-env.sh), with
# the wheel just built for this python3. At the lower bounds (--resolution lowest-direct):
# the transport, client, OAuth and SDK suites, native backend.
section "pytest at the lowest allowed versions (transport, client, OAuth, SDK)"
MCPSTREAM_WHEEL="$wheel" bash scripts/range-env.sh lowest
# At the newest release of everything (what a new host's pip picks today: httpx, httpx2 and
# httpcore2, h11, mcp, cryptography, anyio, OpenTelemetry, the test tools), with the pure-Python
# backend: the suites where the codec does the work (the transport, hostile servers, client and
# SDK suites), and of the OAuth and command suites the files whose MCP traffic goes through the
# transport (a 401 replays the encoded request; a command prints the decoded result). The rest of
# those two (discovery, tokens, DPoP proofs, the token store, redaction, argument parsing) never
# reach the codec. The pinned versions have the native backend (above); the codec is the same
# whichever stack carries its bytes, and the transport suite holds the test that fails when a
# stock host client of either stack is no longer served by mcpstream's own transport
# (tests/transport/test_fast_path_serves_stock_clients.py).
section "pytest at the newest releases, pure-Python backend (transport, hostile servers, client, SDK; OAuth, command over it)"
# (The typing test runs mypy, which neither the backend nor the versions change: it runs in the
# native run, and at the lowest versions.)
MCPSTREAM_BACKEND=python MCPSTREAM_WHEEL="$wheel" bash scripts/range-env.sh newest \
  -n 2 tests/transport tests/hostile tests/client tests/sdk \
  tests/oauth/test_transport_oauth.py tests/oauth/test_transport_oauth_async.py \
  tests/oauth/test_client_oauth.py tests/oauth/test_sdk_transport_oauth.py \
  tests/cli/test_cli_client_commands.py --ignore=tests/client/test_typing_httpx2.py -q

# The SDK's side (mcpstream.sdk under mcp.Client), with the wheel just built for this machine's
# python3 installed in one venv of the SDK's test dependencies: the SDK's own tests of its
# Streamable HTTP client with our transport in its place (from the sdist of the pinned mcp), the
# SDK's conformance client over mcpstream.sdk in every client scenario of both wires, then the
# SDK's tests again at the newest 2.x release on the index (when it is not the pinned one), at
# the lowest mcp 2.x the extras allow, and at the newest of the 1.x line (LangChain's adapters,
# smolagents and mcp-proxy still require it), each release installed over the last in the same
# venv.
section "the SDK's own transport tests (pinned, newest and lowest mcp 2.x, newest 1.x) and its conformance client"
sdk_work="$(mktemp -d)"
sdk_venv="$sdk_work/venv"
WORK="$sdk_work" MCPSTREAM_WHEEL="$wheel" bash scripts/sdk-peer-tests.sh "$sdk_venv"
WORK="$sdk_work" bash scripts/sdk-conformance.sh "$sdk_venv"
pinned_mcp="$(sed -n 's/^mcp==//p' requirements/constraints.txt)"
newest_mcp="$(bash scripts/newest-release.sh mcp '<3')"
if [ "$newest_mcp" != "$pinned_mcp" ]; then
  WORK="$sdk_work/newest" MCP_VERSION="$newest_mcp" MCPSTREAM_WHEEL="$wheel" \
    bash scripts/sdk-peer-tests.sh "$sdk_venv"
else
  echo "the newest mcp 2.x is the pinned $pinned_mcp: tested above"
fi
lowest_mcp="$(sed -n 's/^ *"mcp>=\(2[^,"]*\).*/\1/p' pyproject.toml | head -n 1)"
WORK="$sdk_work/lowest" MCP_VERSION="$lowest_mcp" MCPSTREAM_WHEEL="$wheel" \
  bash scripts/sdk-peer-tests.sh "$sdk_venv"
WORK="$sdk_work/v1" MCP_VERSION="$(bash scripts/newest-release.sh mcp '<2')" \
  MCPSTREAM_WHEEL="$wheel" bash scripts/sdk-peer-tests.sh "$sdk_venv"
rm -rf "$sdk_work"

section "the agent frameworks over mcpstream (started beside the steps above)"
frameworks_status=0
wait "$frameworks_pid" || frameworks_status=$?
cat "$frameworks_log"
rm -f "$frameworks_log"
[ "$frameworks_status" -eq 0 ] || exit "$frameworks_status"

section "mcpstream beside host environments (pip's resolver)"
resolve_status=0
wait "$resolve_pid" || resolve_status=$?
trap - EXIT  # both have ended: their groups' numbers are free for others
cat "$resolve_log"
rm -f "$resolve_log"
exit "$resolve_status"
