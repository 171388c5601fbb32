"""The soak's server: the official SDK's ``MCPServer`` (stateful streamable HTTP, SSE answers,
both eras: the SDK picks by the request) under uvicorn on ``127.0.0.1:PORT``.

``python soak_server.py PORT [--trap] [--spare NAME,...]``: prints ``READY`` once it listens.
Tools: ``echo``, ``sleep`` (a stall) and ``big_text`` (a large answer, for the proxy to cut).

``--trap`` kills the server (SIGKILL, by itself) at the first ``notifications/initialized`` of
a client (its ``X-Soak-Client`` header) not in ``--spare``, after printing ``TRAPPED NAME``:
the restart between a client's ``initialize`` answer and its ``notifications/initialized``,
which a few milliseconds make too rare for a kill on a timer to hit.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import socket
from typing import Any

import anyio
import uvicorn
from mcp.server.mcpserver import MCPServer

UNIT = "soak \u2713 \u00e9t\u00e9 \U0001f600;"


def build_server() -> MCPServer:
    """The MCP server with the soak's tools."""
    server = MCPServer("mcpstream-soak")

    @server.tool()
    async def echo(text: str) -> str:
        """Return ``text``."""
        return text

    @server.tool()
    async def sleep(seconds: float) -> str:
        """Answer after ``seconds``."""
        await anyio.sleep(seconds)
        return "slept"

    @server.tool()
    async def big_text(size: int) -> str:
        """Return ``size`` characters of text with multi-byte characters."""
        return (UNIT * (size // len(UNIT) + 1))[:size]

    return server


def trapped(app: Any, spare: set[str]) -> Any:
    """``app`` dying at the ``notifications/initialized`` of a client not in ``spare``."""

    async def wrapper(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        name = headers.get(b"x-soak-client", b"").decode()
        if not name or name in spare:
            await app(scope, receive, send)
            return
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        if b'"notifications/initialized"' in body:
            print(f"TRAPPED {name}", flush=True)
            os.kill(os.getpid(), signal.SIGKILL)
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await app(scope, replay, send)

    return wrapper


def main() -> None:
    """Serve until killed."""
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("--trap", action="store_true")
    parser.add_argument("--spare", default="")
    args = parser.parse_args()
    # the SDK logs every session made and refused: thousands of lines in a soak
    logging.getLogger("mcp").setLevel(logging.WARNING)
    app = build_server().streamable_http_app()
    if args.trap:
        app = trapped(app, {name for name in args.spare.split(",") if name})
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    # the same port after a SIGKILL, whose connections linger in TIME_WAIT
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(128)
    config = uvicorn.Config(app, log_level="critical", lifespan="on", loop="asyncio")
    server = uvicorn.Server(config)
    print("READY", flush=True)
    server.run(sockets=[sock])


if __name__ == "__main__":
    main()
