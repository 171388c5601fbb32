"""The official SDK's MCP server (the transport suite's, in SSE mode) behind a chain of redirects,
for the tests of what a host's client brings (``test_host_settings``, ``test_host_view``).

Run as ``python host_server.py plain`` (uvicorn, HTTP/1.1) or ``python host_server.py tls CERT
KEY`` (hypercorn over TLS with that certificate, offering HTTP/2 and HTTP/1.1 by ALPN): it binds
127.0.0.1 on a free port, prints ``READY <port>`` and serves until killed. The endpoint is
``/mcp``; ``/hop/<n>/mcp`` answers every request with a 307 to ``/hop/<n - 1>/mcp``, and
``/hop/0/mcp`` is the endpoint itself (a request reaches it after ``n`` redirects)."""

from __future__ import annotations

import asyncio
import re
import socket
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mcp_sdk_server import MemoryEventStore, build_server

_HOP = re.compile(r"/hop/(\d+)/mcp")


def hops(app: Any) -> Any:
    """``app`` behind the redirects of ``/hop/<n>/mcp`` (see the module)."""

    async def wrapper(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and (match := _HOP.fullmatch(scope["path"])):
            left = int(match.group(1))
            if left == 0:
                scope = {**scope, "path": "/mcp", "raw_path": b"/mcp"}
            else:
                # The request's body read first, as servers do before a redirect: an HTTP/1.1
                # connection with a body left unread is closed after the answer.
                while (await receive()).get("more_body", False):
                    pass
                location = f"/hop/{left - 1}/mcp".encode()
                headers = [(b"location", location), (b"content-length", b"0")]
                await send({"type": "http.response.start", "status": 307, "headers": headers})
                await send({"type": "http.response.body", "body": b""})
                return
        await app(scope, receive, send)

    return wrapper


def main() -> None:
    """Serve as the command line says until killed."""
    app = hops(build_server().streamable_http_app(event_store=MemoryEventStore()))
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    if sys.argv[1] == "plain":
        import uvicorn

        config = uvicorn.Config(app, log_level="warning", lifespan="on", loop="asyncio")
        print(f"READY {port}", flush=True)
        uvicorn.Server(config).run(sockets=[sock])
        return
    from hypercorn.asyncio import serve
    from hypercorn.config import Config

    hyper = Config()
    hyper.bind = [f"fd://{sock.fileno()}"]
    hyper.certfile, hyper.keyfile = sys.argv[2], sys.argv[3]
    hyper.alpn_protocols = ["h2", "http/1.1"]
    hyper.loglevel = "WARNING"
    print(f"READY {port}", flush=True)
    asyncio.run(serve(app, hyper))


if __name__ == "__main__":
    main()
