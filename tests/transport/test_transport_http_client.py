"""The HTTP client ``AsyncMcpHttpTransport`` makes for itself: httpx's default client, whose
reads ask for ``ASYNC_READ_BYTES`` instead of httpcore's 64 KiB."""

from __future__ import annotations

import asyncio
import socket
import threading
from pathlib import Path

import pytest
from mcpstream._http.client import ASYNC_READ_BYTES, _LargeReadStream, make_async_client
from mcpstream.models import ResolvedMcpServer
from mcpstream.transport_http import AsyncMcpHttpTransport

from .fault_server import Conn, FaultServer, Request

BODY = bytes(range(256)) * 8192  # 2 MiB


class _RecordingStream:
    """A network stream that records what each read asked for."""

    def __init__(self) -> None:
        self.asked: list[int] = []

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        self.asked.append(max_bytes)
        return b""


def test_every_read_asks_for_at_least_the_large_read_size() -> None:
    inner = _RecordingStream()
    stream = _LargeReadStream(inner)  # type: ignore[arg-type]
    asyncio.run(stream.read(64 * 1024))
    asyncio.run(stream.read(4 * ASYNC_READ_BYTES))
    assert inner.asked == [ASYNC_READ_BYTES, 4 * ASYNC_READ_BYTES]


def test_a_large_body_arrives_whole_in_pieces_larger_than_64_kib(
    fault_server: FaultServer,
) -> None:
    async def handler(request: Request, conn: Conn) -> None:
        await conn.respond(200, BODY, content_type="application/octet-stream")

    url = fault_server.route(handler)

    async def fetch() -> list[bytes]:
        async with make_async_client() as client, client.stream("GET", url) as response:
            return [chunk async for chunk in response.aiter_raw()]

    chunks = asyncio.run(fetch())
    assert b"".join(chunks) == BODY
    assert max(len(chunk) for chunk in chunks) > 64 * 1024


def test_the_client_follows_no_redirects() -> None:
    assert make_async_client().follow_redirects is False


def test_the_async_transport_makes_this_client(tmp_path: Path) -> None:
    server = ResolvedMcpServer(id="client", url="http://127.0.0.1:9/mcp")
    transport = AsyncMcpHttpTransport(server=server, workspace_root=tmp_path)
    pool = transport._client._transport._pool  # type: ignore[attr-defined]
    assert type(pool._network_backend).__name__ == "_LargeReadBackend"


def test_proxies_from_the_environment_still_apply(monkeypatch: pytest.MonkeyPatch) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    request_lines: list[bytes] = []

    def proxy() -> None:
        conn, _ = listener.accept()
        with conn:
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            request_lines.append(data.split(b"\r\n", 1)[0])
            conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")

    thread = threading.Thread(target=proxy, daemon=True)
    thread.start()
    proxy_url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    for name in ("HTTP_PROXY", "http_proxy"):
        monkeypatch.setenv(name, proxy_url)
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)

    async def fetch() -> str:
        async with make_async_client() as client:
            return (await client.get("http://mcp.example.invalid/mcp")).text

    try:
        assert asyncio.run(fetch()) == "ok"
    finally:
        thread.join(5)
        listener.close()
    assert request_lines == [b"GET http://mcp.example.invalid/mcp HTTP/1.1"]
