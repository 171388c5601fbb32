"""The HTTP clients the transports make for themselves: httpx's default clients, whose reads ask
for ``READ_BYTES`` instead of httpcore's 64 KiB."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpcore
import pytest
from mcpstream._http.asyncio_backend import AsyncioStream
from mcpstream._http.httpx_clients import (
    COALESCE_BYTES,
    LARGE_READ_BYTES,
    READ_BYTES,
    LargeReadStream,
    _AsyncLargeReadStream,
    make_async_client,
    make_client,
)
from mcpstream.models import ResolvedMcpServer
from mcpstream.transport_http import AsyncMcpHttpTransport, McpHttpTransport
from plain_http import forward_proxy

from .fault_server import Conn, FaultServer, Request

BODY = bytes(range(256)) * 8192  # 2 MiB


class _RecordingStream:
    """A network stream that records what each read asked for, and each write."""

    def __init__(self) -> None:
        self.asked: list[int] = []
        self.written: list[bytes] = []

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        self.asked.append(max_bytes)
        return b""

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self.written.append(buffer)


class _AsyncRecordingStream:
    """An async network stream that records what each read asked for."""

    def __init__(self) -> None:
        self.asked: list[int] = []

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        self.asked.append(max_bytes)
        return b""


def test_every_read_asks_for_at_least_the_large_read_size() -> None:
    inner = _RecordingStream()
    stream = LargeReadStream(inner)  # type: ignore[arg-type]
    stream.read(64 * 1024)
    stream.read(4 * READ_BYTES)
    assert inner.asked == [READ_BYTES, 4 * READ_BYTES]


def test_the_small_writes_of_a_request_leave_together_before_the_next_read() -> None:
    inner = _RecordingStream()
    stream = LargeReadStream(inner)  # type: ignore[arg-type]
    stream.write(b"POST / HTTP/1.1\r\n\r\n")
    stream.write(b"{}")
    assert inner.written == []
    stream.read(1)
    assert inner.written == [b"POST / HTTP/1.1\r\n\r\n{}"]
    large = bytes(COALESCE_BYTES)
    stream.write(b"head")
    stream.write(large)
    assert inner.written[1:] == [b"head" + large]


def test_every_async_read_asks_for_at_least_the_large_read_size() -> None:
    inner = _AsyncRecordingStream()
    stream = _AsyncLargeReadStream(inner)  # type: ignore[arg-type]
    asyncio.run(stream.read(64 * 1024))
    asyncio.run(stream.read(4 * READ_BYTES))
    assert inner.asked == [READ_BYTES, 4 * READ_BYTES]


@pytest.fixture
def large_body_url(fault_server: FaultServer) -> str:
    async def handler(request: Request, conn: Conn) -> None:
        await conn.respond(200, BODY, content_type="application/octet-stream")

    return fault_server.route(handler)


def test_a_large_body_arrives_whole_in_pieces_larger_than_64_kib(large_body_url: str) -> None:
    with make_client() as client, client.stream("GET", large_body_url) as response:
        chunks = list(response.iter_raw())
    assert b"".join(chunks) == BODY
    assert max(len(chunk) for chunk in chunks) > 64 * 1024


def test_a_large_body_arrives_whole_in_pieces_larger_than_64_kib_async(
    large_body_url: str,
) -> None:
    async def fetch() -> list[bytes]:
        async with make_async_client() as client, client.stream("GET", large_body_url) as response:
            return [chunk async for chunk in response.aiter_raw()]

    chunks = asyncio.run(fetch())
    assert b"".join(chunks) == BODY
    assert max(len(chunk) for chunk in chunks) > 64 * 1024


class _ReadLog:
    """Each read of a real network stream: what it asked for, what asyncio's transport was set
    to receive at once (None: no transport), and how much it got."""

    def __init__(self) -> None:
        self.reads: list[tuple[int, int | None, int]] = []

    def wrap_sync(self, stream: Any) -> Any:
        log = self

        class _Logged:
            def __getattr__(self, name: str) -> Any:
                return getattr(stream, name)

            def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
                data: bytes = stream.read(max_bytes, timeout)
                log.reads.append((max_bytes, None, len(data)))
                return data

        return _Logged()

    def log_async(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Log every read of the asyncio backend's streams."""
        log, read = self, AsyncioStream.read

        async def logged_read(stream: Any, max_bytes: int, timeout: float | None = None) -> bytes:
            asked = max(max_bytes, stream._ask)  # what the stream asks of its buffer
            data: bytes = await read(stream, max_bytes, timeout)
            receive = None if stream._sized is None else stream._sized.max_size
            log.reads.append((asked, receive, len(data)))
            return data

        monkeypatch.setattr(AsyncioStream, "read", logged_read)

    def assert_each_read_follows_the_one_before(self, asyncio_receives: bool) -> None:
        """After a full read the next asks for ``LARGE_READ_BYTES``, after a short one for
        ``READ_BYTES`` (the first for ``READ_BYTES``); under asyncio, each read's ask is what the
        transport receives at once."""
        assert len(self.reads) >= 2
        expected = READ_BYTES
        for asked, receive, got in self.reads:
            assert asked == expected
            assert receive == (asked if asyncio_receives else None)
            expected = LARGE_READ_BYTES if got >= asked else READ_BYTES


@pytest.mark.httpcore_client
@pytest.mark.parametrize("kind", ["sync", "async"])
def test_after_a_full_read_the_next_asks_for_more(
    large_body_url: str, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over a real connection, whatever the timing: a read that got all it asked for is
    followed by one asking ``LARGE_READ_BYTES`` (received at once under asyncio too, over plain
    TCP); a short read goes back to ``READ_BYTES``. How many reads are full depends on how fast
    the kernel hands the body over, so the rule is checked read by read (and by itself below)."""
    log = _ReadLog()
    sync_connect = httpcore.SyncBackend.connect_tcp

    def logged_connect(self: Any, *args: Any, **kwargs: Any) -> Any:
        return log.wrap_sync(sync_connect(self, *args, **kwargs))

    monkeypatch.setattr(httpcore.SyncBackend, "connect_tcp", logged_connect)
    log.log_async(monkeypatch)

    async def fetch_async() -> list[bytes]:
        async with make_async_client() as client, client.stream("GET", large_body_url) as response:
            return [chunk async for chunk in response.aiter_raw()]

    if kind == "sync":
        with make_client() as client, client.stream("GET", large_body_url) as response:
            chunks = list(response.iter_raw())
    else:
        chunks = asyncio.run(fetch_async())
    assert b"".join(chunks) == BODY
    log.assert_each_read_follows_the_one_before(asyncio_receives=kind == "async")


def test_the_read_sizes_follow_full_and_short_reads() -> None:
    inner = _RecordingStream()
    stream = LargeReadStream(inner)  # type: ignore[arg-type]
    inner.read = lambda max_bytes, timeout=None: inner.asked.append(max_bytes) or bytes(max_bytes)  # type: ignore[method-assign]
    stream.read(1)
    stream.read(1)
    inner.read = lambda max_bytes, timeout=None: inner.asked.append(max_bytes) or b"x"  # type: ignore[method-assign]
    stream.read(1)
    stream.read(1)
    assert inner.asked == [READ_BYTES, LARGE_READ_BYTES, LARGE_READ_BYTES, READ_BYTES]


def test_the_clients_follow_no_redirects() -> None:
    assert make_client().follow_redirects is False
    assert make_async_client().follow_redirects is False


@pytest.mark.httpcore_client
def test_the_transports_make_these_clients(tmp_path: Path) -> None:
    server = ResolvedMcpServer(id="client", url="http://127.0.0.1:9/mcp")
    sync = McpHttpTransport(server=server, workspace_root=tmp_path, listen=False)
    pool = sync._client._transport._pool  # type: ignore[attr-defined]
    assert type(pool._network_backend).__name__ == "_LargeReadBackend"
    sync.close()
    transport = AsyncMcpHttpTransport(server=server, workspace_root=tmp_path)
    pool = transport._client._transport._pool  # type: ignore[attr-defined]
    assert type(pool._network_backend).__name__ == "_AsyncLargeReadBackend"


def test_a_client_the_host_gives_is_used_as_it_is(tmp_path: Path) -> None:
    server = ResolvedMcpServer(id="client", url="http://127.0.0.1:9/mcp")
    with (
        make_client() as own,
        McpHttpTransport(
            server=server, workspace_root=tmp_path, client=own, listen=False
        ) as transport,
    ):
        assert transport._client is own


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_proxies_from_the_environment_still_apply(
    monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    # Whatever MCPSTREAM_H1_TRANSPORT says: the HTTP/1.1 transport (the default) speaks to no
    # proxy, so with one in the environment the clients are httpx's, which honour it.
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    url = "http://mcp.example.invalid/mcp"

    async def fetch_async() -> str:
        async with make_async_client() as client:
            return (await client.get(url)).text

    with forward_proxy() as (proxy_url, request_lines):
        for name in ("HTTP_PROXY", "http_proxy"):
            monkeypatch.setenv(name, proxy_url)
        if kind == "sync":
            with make_client() as client:
                text = client.get(url).text
        else:
            text = asyncio.run(fetch_async())
    assert text == "ok"
    assert request_lines == ["GET http://mcp.example.invalid/mcp HTTP/1.1"]
