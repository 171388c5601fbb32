#!/usr/bin/env bash
# The newest release of a package on the index within a range, as pip would pick it today:
#
#   scripts/newest-release.sh NAME [SPECIFIER]     e.g. scripts/newest-release.sh mcp '<2'
#
# Asked of uv's resolver (the index as it is now, no cache), so that the CI steps that test "the
# newest release of a line" follow the index instead of a version written into a script.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
uv="$ROOT/.venv/bin/uv"
[ -x "$uv" ] || uv="$(command -v uv)"
name="${1:?usage: scripts/newest-release.sh NAME [SPECIFIER]}"
echo "$name${2:-}" | "$uv" pip compile --quiet --refresh --no-deps --no-header \
  --no-annotate - 2>/dev/null | sed -n "s/^$name==//Ip"
