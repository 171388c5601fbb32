#!/usr/bin/env bash
# Install nginx, the real reverse proxy of the transport's keep-alive tests
# (tests/transport/test_h1_nginx.py: nginx on loopback, run by the tests as the user's own
# process, in front of the test servers), from the system's packages (Debian's nginx-light).
#
# Idempotent and quiet when nginx is there already (the tests find it on PATH, in /usr/sbin, or
# at MCPSTREAM_NGINX); else it installs with apt-get (as root, or through sudo) and fails when
# it cannot: the tests fail without nginx, they are not skipped.
set -euo pipefail

found="${MCPSTREAM_NGINX:-$(command -v nginx || true)}"
if [[ -z "${found}" && -x /usr/sbin/nginx ]]; then
    found=/usr/sbin/nginx
fi
if [[ -n "${found}" ]]; then
    exit 0
fi

as_root=()
if [[ "$(id -u)" != 0 ]]; then
    if ! command -v sudo >/dev/null 2>&1; then
        echo "install-nginx: nginx is missing; install it as root (apt-get install nginx-light)" >&2
        exit 1
    fi
    as_root=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
# (nginx-light: the proxy alone; the plain nginx package where that name is gone)
"${as_root[@]}" apt-get install -y -qq --no-install-recommends nginx-light >/dev/null \
    || "${as_root[@]}" apt-get install -y -qq --no-install-recommends nginx >/dev/null
# (the package may start a system nginx on port 80 where a service manager runs: the tests
# start their own, on ports the system picks, and need not stop it)
echo "nginx: $(/usr/sbin/nginx -v 2>&1)"
