"""The ``httpx.AsyncClient`` that ``AsyncMcpHttpTransport`` makes when the host gives none.

httpcore reads a response body 64 KiB at a time (``READ_NUM_BYTES`` of its HTTP/1.1
connection), and under asyncio each read is a round through anyio: a cancel scope for the read
timeout, the socket transport's reading resumed and paused again, a wait for the data. asyncio's
socket transport itself receives up to 256 KiB at once, which anyio then hands out in 64 KiB
pieces (copying the remainder each time). For a large SSE event these rounds cost about as much
as decoding it. This client's network backend asks for at least ``ASYNC_READ_BYTES`` on every
read, so that each read takes what the socket transport received in one piece: a quarter of the
rounds, none of the copies. Everything else is httpx's default client (TLS, limits, HTTP/1.1,
proxies from the environment, which go through httpx's own proxy transports).

httpx has no parameter for the network backend, so the connection pool of the client's default
transport (``AsyncClient._transport._pool``, not used yet) is replaced by one with the backend.
Where httpx's client is not built that way (another httpx version), it is left as it is.
"""

from __future__ import annotations

import ssl
from collections.abc import Iterable

import httpcore
import httpx

__all__ = ["ASYNC_READ_BYTES", "make_async_client"]

ASYNC_READ_BYTES = 256 * 1024
"""Bytes asked for by every read: what asyncio's socket transport receives at most at once."""

_LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=20, keepalive_expiry=5.0)
"""The limits of httpx's default client (``httpx._config.DEFAULT_LIMITS``)."""

_SocketOptions = Iterable[
    tuple[int, int, int] | tuple[int, int, bytes | bytearray] | tuple[int, int, None, int]
]
"""httpcore's ``SOCKET_OPTION`` values."""


class _LargeReadStream(httpcore.AsyncNetworkStream):
    """A network stream whose reads ask for at least ``ASYNC_READ_BYTES``."""

    def __init__(self, stream: httpcore.AsyncNetworkStream) -> None:
        self._stream = stream

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return await self._stream.read(max(max_bytes, ASYNC_READ_BYTES), timeout)

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        await self._stream.write(buffer, timeout)

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.AsyncNetworkStream:
        return _LargeReadStream(await self._stream.start_tls(ssl_context, server_hostname, timeout))

    def get_extra_info(self, info: str) -> object:
        return self._stream.get_extra_info(info)


class _LargeReadBackend(httpcore.AsyncNetworkBackend):
    """httpcore's anyio backend, with streams that read in large pieces."""

    def __init__(self) -> None:
        self._backend = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: _SocketOptions | None = None,
    ) -> httpcore.AsyncNetworkStream:
        stream = await self._backend.connect_tcp(
            host, port, timeout=timeout, local_address=local_address, socket_options=socket_options
        )
        return _LargeReadStream(stream)

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: _SocketOptions | None = None
    ) -> httpcore.AsyncNetworkStream:
        stream = await self._backend.connect_unix_socket(
            path, timeout=timeout, socket_options=socket_options
        )
        return _LargeReadStream(stream)

    async def sleep(self, seconds: float) -> None:
        await self._backend.sleep(seconds)


def make_async_client() -> httpx.AsyncClient:
    """httpx's default ``AsyncClient`` (redirects not followed), reading in large pieces."""
    ssl_context = httpx.create_ssl_context()
    client = httpx.AsyncClient(follow_redirects=False, verify=ssl_context)
    transport = getattr(client, "_transport", None)
    if type(transport) is httpx.AsyncHTTPTransport and (
        type(getattr(transport, "_pool", None)) is httpcore.AsyncConnectionPool
    ):
        transport._pool = httpcore.AsyncConnectionPool(
            ssl_context=ssl_context,
            max_connections=_LIMITS.max_connections,
            max_keepalive_connections=_LIMITS.max_keepalive_connections,
            keepalive_expiry=_LIMITS.keepalive_expiry,
            network_backend=_LargeReadBackend(),
        )
    return client
