"""An httpcore network backend on asyncio itself (``AsyncioBackend``), for the async clients
made here when they run under asyncio.

httpcore's own async backend goes through anyio: every read and write runs under a cancel scope
(``anyio.fail_after``, even with no timeout), and anyio's socket stream adds checkpoints (rounds
of the event loop) and guards around each receive and send. For small calls on a keep-alive
connection these rounds are a good part of a call's time. The streams here talk to asyncio's
transport through a protocol of their own (``_Protocol``): what the socket delivers is kept in a
buffer, a read waits on one future only when the buffer is empty, and a timeout costs one timer
of the event loop, only while a read (or a write waiting for the send buffer to drain) waits.

They read and write as the streams over httpcore's backends do (``large_reads``): every read asks
for at least ``READ_BYTES`` and for ``LARGE_READ_BYTES`` after a read that got all it asked for,
and over plain TCP the socket transport is set to receive that much at once (its ``max_size``);
the small writes of a request are held to leave in one send, before the next read. The buffer is
bounded: reading from the socket pauses while it holds more than ``BUFFER_BYTES``. A write waits
while the transport's send buffer is above its high-water mark.

Errors are httpcore's (httpcore2's for a pool of httpx2: the backend is told which core it
serves), as its backends raise them: ``ConnectError``/``ConnectTimeout`` for
connecting and the TLS handshake, ``ReadError``/``ReadTimeout`` and ``WriteError``/
``WriteTimeout`` for the I/O. A read at the end of the stream returns ``b""``. A connect or TLS
handshake that fails or is cancelled leaves no socket open; ``aclose`` aborts the connection at
once (as httpcore's sync backend closes its socket: no TLS close_notify, nothing left to flush).
The addresses of a host name are tried one after the other, as ``socket.create_connection``
does (httpcore's sync backend), not raced.
"""

from __future__ import annotations

import asyncio
import collections
import socket
import ssl
from collections.abc import Iterable
from typing import Any, NoReturn

import httpcore

from .aio_flow import BUFFER_BYTES, FlowProtocol, wake
from .large_reads import READ_BYTES, HeldWrites, next_ask

__all__ = ["BUFFER_BYTES", "AsyncioBackend", "AsyncioStream"]


class _Protocol(FlowProtocol):
    """What asyncio's transport delivers, kept for the stream's reads; the state of the
    connection (end of stream, its error, writing paused: ``FlowProtocol``) for its reads and
    writes."""

    def __init__(self, loop: asyncio.AbstractEventLoop, core: Any) -> None:
        super().__init__(loop)
        self.core = core
        """The httpcore module whose exceptions the streams raise (httpcore or httpcore2)."""
        self.chunks: collections.deque[bytes] = collections.deque()
        self.offset = 0
        """Bytes of ``chunks[0]`` already read."""
        self.size = 0
        """Bytes received and not read yet."""
        self.error: BaseException | None = None

    def data_received(self, data: bytes) -> None:
        self.chunks.append(data)
        self.size += len(data)
        self.pause_reading_at(self.size)
        wake(self.read_waiter)

    def eof_received(self) -> bool:
        self.eof = True
        wake(self.read_waiter)
        return super().eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self.error = exc
        super().connection_lost(exc)

    def take(self, limit: int) -> bytes:
        """Up to ``limit`` bytes of what was received (reading resumed when the buffer falls
        under ``BUFFER_BYTES``)."""
        chunks, parts, need = self.chunks, [], limit
        while chunks and need:
            first, start = chunks[0], self.offset
            available = len(first) - start
            if available <= need:
                chunks.popleft()
                self.offset = 0
                parts.append(first[start:] if start else first)
                need -= available
            else:
                parts.append(first[start : start + need])
                self.offset = start + need
                need = 0
        data = parts[0] if len(parts) == 1 else b"".join(parts)
        self.size -= len(data)
        if self.reading_paused and self.size < BUFFER_BYTES:
            self.resume_reading()
        return data


class AsyncioStream(httpcore.AsyncNetworkStream):
    """An httpcore network stream over an asyncio transport and its ``_Protocol``."""

    def __init__(self, protocol: _Protocol, transport: asyncio.Transport) -> None:
        self._protocol = protocol
        self._transport = transport
        self._held = HeldWrites()
        self._ask = READ_BYTES
        self._closed = False
        size = getattr(transport, "max_size", None)
        self._sized: Any = transport if isinstance(size, int) else None
        """The socket transport whose receive size (``max_size``, read on every receive)
        follows the reads: the selector transport of plain TCP (None under TLS, whose protocol
        receives into a buffer of its own, and for other transports)."""

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        if self._held.size:
            await self._write(self._held.take(), timeout)
        asked = max(max_bytes, self._ask)
        if self._sized is not None:
            self._sized.max_size = asked
        protocol = self._protocol
        if not protocol.size:
            if self._closed:
                raise protocol.core.ReadError("the stream is closed")
            if not protocol.eof and not await protocol.readable(protocol.timed, timeout):
                raise protocol.core.ReadTimeout("no data within the read timeout")
            if not protocol.size:
                if protocol.error is not None:
                    raise protocol.core.ReadError(protocol.error) from protocol.error
                return b""
        data = protocol.take(asked)
        self._ask = next_ask(asked, data)
        return data

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if buffer and (data := self._held.hold(buffer)) is not None:
            await self._write(data, timeout)

    async def _write(self, data: bytes, timeout: float | None) -> None:
        protocol = self._protocol
        if self._closed or protocol.lost or self._transport.is_closing():
            error = protocol.error
            raise protocol.core.WriteError(error or "the connection is closed") from error
        self._transport.write(data)
        if not await protocol.drained(protocol.timed, timeout):
            raise protocol.core.WriteTimeout("the send buffer did not drain within the timeout")
        if protocol.lost:  # while waiting for the send buffer to drain
            error = protocol.error
            raise protocol.core.WriteError(error or "the connection closed") from error

    async def aclose(self) -> None:
        self._closed = True
        self._transport.abort()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.AsyncNetworkStream:
        protocol = self._protocol
        try:
            if self._held.size:
                await self._write(self._held.take(), timeout)
            async with asyncio.timeout(timeout):
                transport = await protocol.loop.start_tls(
                    self._transport, protocol, ssl_context, server_hostname=server_hostname
                )
        except BaseException as exc:
            self._transport.abort()
            _raise_connect_error(exc, protocol.core)
        if transport is None:  # asyncio's annotation allows it; it never returns None
            raise protocol.core.ConnectError("the TLS handshake gave no transport")
        protocol.transport, protocol.tls = transport, True
        return AsyncioStream(protocol, protocol.transport)

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":
            # Anything received, or the end: for an idle connection, the server closed it.
            protocol = self._protocol
            return bool(protocol.size) or protocol.eof
        name = _EXTRA_INFO.get(info)
        return None if name is None else self._transport.get_extra_info(name)


_EXTRA_INFO = {
    "ssl_object": "ssl_object",
    "client_addr": "sockname",
    "server_addr": "peername",
    "socket": "socket",
}
"""httpcore's names of a stream's extra information, and asyncio's."""


def _raise_connect_error(exc: BaseException, core: Any) -> NoReturn:
    """Raise ``exc`` (of connecting or a TLS handshake) as the backends of ``core`` (the
    httpcore module) do."""
    if isinstance(exc, TimeoutError):  # before OSError, of which it is one
        raise core.ConnectTimeout(exc) from exc
    if isinstance(exc, OSError | ssl.SSLError):
        raise core.ConnectError(exc) from exc
    raise exc


class AsyncioBackend(httpcore.AsyncNetworkBackend):
    """httpcore's async network backend interface, on the running asyncio loop.

    ``core``: the httpcore module of the pool the backend serves (``httpcore``, the default, or
    ``httpcore2``), whose exceptions its streams raise (each pool maps only its own)."""

    def __init__(self, core: Any = httpcore) -> None:
        self._core = core

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        local_addr = None if local_address is None else (local_address, 0)
        loop = asyncio.get_running_loop()

        async def create(protocol: _Protocol) -> tuple[asyncio.BaseTransport, Any]:
            try:
                return await loop.create_connection(
                    lambda: protocol, host, port, local_addr=local_addr
                )
            except OSError as exc:
                if isinstance(exc, TimeoutError | socket.gaierror):
                    raise
                # anyio's words (httpcore's own backend) for a connection no address took,
                # whatever the attempts' errors were (the cause): a framework may show them.
                raise OSError("All connection attempts failed") from exc

        return await _connect(loop, create, timeout, socket_options, self._core)

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        return await _connect(
            loop,
            lambda protocol: loop.create_unix_connection(lambda: protocol, path),
            timeout,
            socket_options,
            self._core,
        )

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


async def _connect(
    loop: asyncio.AbstractEventLoop,
    create: Any,
    timeout: float | None,
    socket_options: Iterable[httpcore.SOCKET_OPTION] | None,
    core: Any,
) -> AsyncioStream:
    """A stream over the connection ``create(protocol)`` makes (asyncio closes the socket of
    one that fails or is cancelled), with ``socket_options`` set."""
    protocol = _Protocol(loop, core)
    try:
        async with asyncio.timeout(timeout):
            transport, _ = await create(protocol)
    except BaseException as exc:
        _raise_connect_error(exc, core)
    try:
        sock: socket.socket = transport.get_extra_info("socket")
        for option in socket_options or ():
            sock.setsockopt(*option)
    except BaseException as exc:
        transport.abort()
        _raise_connect_error(exc, core)
    return AsyncioStream(protocol, transport)
