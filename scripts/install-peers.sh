#!/usr/bin/env bash
# Build or install the peer servers of tests/peers into a cache outside the clone.
#
# The peers: the TypeScript SDK's server-everything and our server on the TypeScript SDK v2
# (npm ci of tests/peers/servers/ts's lock file), our server on the Go SDK (go build, modules from
# the Go module proxy, go.sum) and our server on rmcp (cargo build --locked, debug profile: the
# cheaper end to end, see CONTRIBUTING.md). Each goes into
#   ${MCPSTREAM_PEERS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mcpstream-peers}/<peer>-<hash>
# where <hash> is the sha256 of that peer's sources (tests/peers/peer_cache.py computes the same
# name), so a second run, or CI's next one, reuses what is there. Prints what it did and how long
# each took, and last the line MCPSTREAM_PEERS_CACHE=<dir> (the tests read that variable, or find
# the same default).
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
servers="${repo_root}/tests/peers/servers"
cache="${MCPSTREAM_PEERS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mcpstream-peers}"
mkdir -p "${cache}"

# The sha256 of a peer's sources: of the lines "<sha256>  <path>" of its files (paths relative to
# tests/peers/servers, sorted bytewise), build outputs excluded. peer_cache.py mirrors this.
source_hash() {
    (cd "${servers}" && find "$1" -type f -not -path '*/node_modules/*' -not -path '*/target/*' \
        | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16)
}

# Run "$@" "$2" (the build of peer $1 into $2) unless $2/.done exists; time it, and keep no half-built
# directory on failure.
build() {
    local name="$1" dir="$2"
    shift 2
    if [[ -f "${dir}/.done" ]]; then
        echo "install-peers: ${name}: up to date in ${dir}"
        return
    fi
    rm -rf "${dir}"
    mkdir -p "${dir}"
    local start=${SECONDS}
    if ! "$@" "${dir}"; then
        rm -rf "${dir}"
        echo "install-peers: ${name}: build failed" >&2
        exit 1
    fi
    touch "${dir}/.done"
    echo "install-peers: ${name}: built in $((SECONDS - start)) s into ${dir}"
}

build_ts() {
    local dir="$1"
    cp "${servers}/ts/package.json" "${servers}/ts/package-lock.json" "${servers}/ts/server.mjs" "${dir}/"
    # No lifecycle scripts are needed by these packages.
    npm ci --prefix "${dir}" --ignore-scripts --no-audit --no-fund --loglevel=error
}

build_go() {
    local dir="$1"
    (cd "${servers}/go" && GOFLAGS=-mod=readonly nice go build -trimpath -o "${dir}/peer-go" .)
}

build_rust() {
    local dir="$1"
    # One target directory for every version of the sources: an edit rebuilds incrementally.
    CARGO_TARGET_DIR="${cache}/rust-target" nice cargo build --locked --quiet \
        --manifest-path "${servers}/rust/Cargo.toml"
    cp "${cache}/rust-target/debug/mcpstream-peer-rmcp" "${dir}/peer-rust"
}

for tool in npm node go cargo; do
    if ! command -v "${tool}" >/dev/null 2>&1; then
        echo "install-peers: ${tool} is required" >&2
        exit 1
    fi
done

build "npm peers (server-everything, TypeScript SDK v2)" "${cache}/ts-$(source_hash ts)" build_ts
build "Go SDK peer" "${cache}/go-$(source_hash go)" build_go
build "rmcp peer" "${cache}/rust-$(source_hash rust)" build_rust
echo "MCPSTREAM_PEERS_CACHE=${cache}"
