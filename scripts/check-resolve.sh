#!/usr/bin/env bash
# Can a host install mcpstream beside what it already runs? For each host environment of
# requirements/host-envs.txt, pip's resolver (`pip install --dry-run`, nothing installed) must
# find one set of versions holding mcpstream (with the extras the line names) and the host's
# requirements; any conflict fails the run, naming the environments that failed.
#
#   scripts/check-resolve.sh [TARGET]   (TARGET: a built wheel, or the source directory; default
#                                        $MCPSTREAM_WHEEL, else this checkout, whose metadata
#                                        pip then has maturin write: that needs cargo)
#
# Resolved for the Python that runs pip ($PYTHON, default python3), four environments at a time;
# pip's cache (its default, outside the clone) keeps the metadata of later runs local.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
target="${1:-${MCPSTREAM_WHEEL:-$ROOT}}"
target="$(cd "$(dirname "$target")" && pwd)/$(basename "$target")"
python="${PYTHON:-python3}"
jobs="${JOBS:-4}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

resolve() {  # N EXTRAS REQUIREMENT...
  local n="$1" extras="$2"
  shift 2
  local spec="mcpstream @ file://$target"
  [ "$extras" = "-" ] || spec="mcpstream[$extras] @ file://$target"
  if "$python" -m pip install --dry-run --ignore-installed --quiet --disable-pip-version-check \
    --report "$work/$n.json" "$spec" "$@" >"$work/$n.log" 2>&1; then
    echo "ok" >"$work/$n.status"
  else
    echo "FAIL" >"$work/$n.status"
  fi
}

n=0
started=$SECONDS
while read -r extras requirements; do
  [ -n "$extras" ] && [ "${extras:0:1}" != "#" ] || continue
  n=$((n + 1))
  echo "$extras $requirements" >"$work/$n.env"
  # shellcheck disable=SC2086 (the requirements split into words)
  resolve "$n" "$extras" $requirements &
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 0.2; done
done <"$ROOT/requirements/host-envs.txt"
wait

failed=0
for i in $(seq 1 "$n"); do
  read -r extras requirements <"$work/$i.env"
  status="$(cat "$work/$i.status")"
  picked=""
  if [ "$status" = ok ]; then
    # What the host gets: mcpstream's requirements at the versions resolved.
    picked="$("$python" - "$work/$i.json" <<'PY'
import json
import sys

report = json.load(open(sys.argv[1]))
wanted = {"httpx", "mcp", "httpx2", "rich", "cryptography", "pyjwt", "pyyaml", "platformdirs"}
got = {i["metadata"]["name"].lower(): i["metadata"]["version"] for i in report["install"]}
print(" ".join(f"{name}=={got[name]}" for name in sorted(wanted & got.keys())))
PY
)"
  else
    failed=$((failed + 1))
  fi
  printf '%-4s mcpstream[%s] + %s: %s\n' "$status" "$extras" "$requirements" "$picked"
  if [ "$status" != ok ]; then
    # (a log with none of these words, e.g. a network error's, must not end the summary here)
    { grep -E "ERROR|conflict|requires|depends" "$work/$i.log" || tail -n 3 "$work/$i.log"; } |
      sed -n '1,8s/^/       /p'
  fi
done
echo "check-resolve: $((n - failed)) of $n host environments resolve ($((SECONDS - started)) s)"
[ "$failed" = 0 ]
