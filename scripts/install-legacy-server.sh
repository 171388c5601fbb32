#!/usr/bin/env bash
# Install the real MCP 2024-11-05 server of the tests (the TypeScript SDK 1.0.4, whose newest
# protocol is 2024-11-05, with its HTTP+SSE SSEServerTransport) into a cache outside the clone.
#
# The version lives in tests/legacy_server/npm/package.json and its package-lock.json
# (committed); this script copies both into the cache and runs `npm ci` there. The tests of
# tests/legacy_server/ find it at the same path (MCPSTREAM_LEGACY_SERVER_DIR, else
# ~/.cache/mcpstream/legacy-server) and fail when it is missing. Idempotent: does nothing when
# the installed tree was made from the same lock file. The machine's node runs the server.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
spec_dir="${repo_root}/tests/legacy_server/npm"
tools_dir="${MCPSTREAM_LEGACY_SERVER_DIR:-${XDG_CACHE_HOME:-${HOME}/.cache}/mcpstream/legacy-server}"
entry="${tools_dir}/node_modules/@modelcontextprotocol/sdk/dist/server/sse.js"
stamp="${tools_dir}/.installed-lock.sha256"

for tool in npm node; do
    if ! command -v "${tool}" >/dev/null 2>&1; then
        echo "install-legacy-server: ${tool} is required" >&2
        exit 1
    fi
done

lock_sum="$(cat "${spec_dir}/package.json" "${spec_dir}/package-lock.json" | sha256sum | cut -d' ' -f1)"
if [[ -f "${stamp}" && "$(cat "${stamp}")" == "${lock_sum}" && -f "${entry}" ]]; then
    echo "install-legacy-server: up to date in ${tools_dir}"
else
    mkdir -p "${tools_dir}"
    rm -f "${stamp}"
    cp "${spec_dir}/package.json" "${spec_dir}/package-lock.json" "${tools_dir}/"
    npm ci --prefix "${tools_dir}" --ignore-scripts --no-audit --no-fund --loglevel=error
    if [[ ! -f "${entry}" ]]; then
        echo "install-legacy-server: ${entry} missing after install" >&2
        exit 1
    fi
    echo "${lock_sum}" >"${stamp}"
fi
echo "legacy server: ${tools_dir} (node $(node --version))"
