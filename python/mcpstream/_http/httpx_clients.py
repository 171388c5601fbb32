"""The httpx clients the transports make for themselves when the host gives none.

httpcore reads a response body 64 KiB at a time (``READ_NUM_BYTES`` of its HTTP/1.1
connection), and every read is a round of Python work before the bytes reach the SSE decoder:
h11's state machine and buffer copies, httpx's stream layers, and then either the hand-off from
the sync transport's reader thread to the calling thread, or, under asyncio, a round through
anyio (a cancel scope for the read timeout, the socket transport resumed and paused, a wait).
asyncio's socket transport receives up to 256 KiB at once, which anyio then hands out in 64 KiB
pieces, copying the remainder each time. For a large SSE event these rounds cost about as much
as decoding it. The clients made here have a network backend that asks for at least
``READ_BYTES`` on every read: a quarter of the rounds, and under asyncio none of the copies.
Everything else is httpx's default client (TLS, limits, HTTP/1.1, proxies from the environment,
which go through httpx's own proxy transports).

httpx has no parameter for the network backend, so the connection pool of the client's default
transport (``Client._transport._pool``, not used yet) is replaced by one with the backend. Where
httpx's client is not built that way (another httpx version), it is left as it is.
"""

from __future__ import annotations

import ssl
from typing import Any, TypeVar

import httpcore
import httpx

__all__ = ["READ_BYTES", "make_async_client", "make_client"]

READ_BYTES = 256 * 1024
"""Bytes asked for by every read: what asyncio's socket transport receives at most at once."""

_LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=20, keepalive_expiry=5.0)
"""The limits of httpx's default client (``httpx._config.DEFAULT_LIMITS``)."""


class _LargeReadStream(httpcore.NetworkStream):
    """A network stream whose reads ask for at least ``READ_BYTES``."""

    def __init__(self, stream: httpcore.NetworkStream) -> None:
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max(max_bytes, READ_BYTES), timeout)

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, timeout)

    def close(self) -> None:
        self._stream.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        return _LargeReadStream(self._stream.start_tls(ssl_context, server_hostname, timeout))

    def get_extra_info(self, info: str) -> object:
        return self._stream.get_extra_info(info)


class _LargeReadBackend(httpcore.NetworkBackend):
    """httpcore's sync backend, with streams that read in large pieces."""

    def __init__(self) -> None:
        self._backend = httpcore.SyncBackend()

    # The arguments are httpcore's, passed on as they are.
    def connect_tcp(self, *args: Any, **kwargs: Any) -> httpcore.NetworkStream:
        return _LargeReadStream(self._backend.connect_tcp(*args, **kwargs))

    def connect_unix_socket(self, *args: Any, **kwargs: Any) -> httpcore.NetworkStream:
        return _LargeReadStream(self._backend.connect_unix_socket(*args, **kwargs))

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


class _AsyncLargeReadStream(httpcore.AsyncNetworkStream):
    """An async network stream whose reads ask for at least ``READ_BYTES``."""

    def __init__(self, stream: httpcore.AsyncNetworkStream) -> None:
        self._stream = stream

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return await self._stream.read(max(max_bytes, READ_BYTES), timeout)

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
        stream = await self._stream.start_tls(ssl_context, server_hostname, timeout)
        return _AsyncLargeReadStream(stream)

    def get_extra_info(self, info: str) -> object:
        return self._stream.get_extra_info(info)


class _AsyncLargeReadBackend(httpcore.AsyncNetworkBackend):
    """httpcore's anyio backend, with streams that read in large pieces."""

    def __init__(self) -> None:
        self._backend = httpcore.AnyIOBackend()

    # The arguments are httpcore's, passed on as they are.
    async def connect_tcp(self, *args: Any, **kwargs: Any) -> httpcore.AsyncNetworkStream:
        return _AsyncLargeReadStream(await self._backend.connect_tcp(*args, **kwargs))

    async def connect_unix_socket(self, *args: Any, **kwargs: Any) -> httpcore.AsyncNetworkStream:
        return _AsyncLargeReadStream(await self._backend.connect_unix_socket(*args, **kwargs))

    async def sleep(self, seconds: float) -> None:
        await self._backend.sleep(seconds)


def _pool_settings(ssl_context: ssl.SSLContext) -> dict[str, Any]:
    """The settings of httpx's default connection pool, for the one replacing it."""
    return {
        "ssl_context": ssl_context,
        "max_connections": _LIMITS.max_connections,
        "max_keepalive_connections": _LIMITS.max_keepalive_connections,
        "keepalive_expiry": _LIMITS.keepalive_expiry,
    }


ClientT = TypeVar("ClientT", httpx.Client, httpx.AsyncClient)


def _reading_in_large_pieces(
    client_type: type[ClientT], transport_type: type[Any], pool_type: type[Any], backend: object
) -> ClientT:
    """A default client of ``client_type`` whose pool (of ``pool_type``, in its default
    transport of ``transport_type``) is replaced by one with ``backend``; left as httpx built it
    where httpx builds it another way."""
    ssl_context = httpx.create_ssl_context()
    client = client_type(follow_redirects=False, verify=ssl_context)
    transport: Any = getattr(client, "_transport", None)
    if type(transport) is transport_type and type(getattr(transport, "_pool", None)) is pool_type:
        transport._pool = pool_type(network_backend=backend, **_pool_settings(ssl_context))
    return client


def make_client() -> httpx.Client:
    """httpx's default ``Client`` (redirects not followed), reading in large pieces."""
    return _reading_in_large_pieces(
        httpx.Client, httpx.HTTPTransport, httpcore.ConnectionPool, _LargeReadBackend()
    )


def make_async_client() -> httpx.AsyncClient:
    """httpx's default ``AsyncClient`` (redirects not followed), reading in large pieces."""
    return _reading_in_large_pieces(
        httpx.AsyncClient,
        httpx.AsyncHTTPTransport,
        httpcore.AsyncConnectionPool,
        _AsyncLargeReadBackend(),
    )
