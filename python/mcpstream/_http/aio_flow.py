"""Flow control for the asyncio protocols of the async transports (``FlowProtocol``): reading
from the socket paused while too much waits unread, writes waiting for the send buffer to
drain, and the waits of a reader and a writer woken by what the transport reports.

Used by the httpcore backend on asyncio (``asyncio_backend``) and by the HTTP/1.1 transport's
connections (``h1.aio``); each adds what it keeps of the data received.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import cast

__all__ = ["BUFFER_BYTES", "FlowProtocol", "Wait", "wake"]

BUFFER_BYTES = 2 * 1024 * 1024
"""Reading from the socket pauses while this much or more waits unread."""

Wait = Callable[["asyncio.Future[bool]", "float | None"], Awaitable[bool]]
"""How a protocol waits on one of its futures: True when it was woken (``wake``), False when
the timeout (seconds, None for none) passed first."""


def wake(waiter: asyncio.Future[bool] | None) -> None:
    """Wake ``waiter`` (True), unless there is none or it is done."""
    if waiter is not None and not waiter.done():
        waiter.set_result(True)


def _expire(waiter: asyncio.Future[bool]) -> None:
    if not waiter.done():
        waiter.set_result(False)


class FlowProtocol(asyncio.Protocol):
    """An asyncio protocol's state for its reader and writer: the transport, the end of the
    stream (``eof``) and of the connection (``lost``), reading and writing paused, and the
    futures a read and a write wait on. Subclasses keep the data received, call
    ``pause_reading_at`` as it grows and ``resume_reading`` as it is taken, and call this
    class's ``connection_lost`` after their own."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.transport: asyncio.Transport | None = None
        """The transport reading is paused and resumed on (the TLS one after ``start_tls``)."""
        self.tls = False
        """Whether the transport is asyncio's TLS one."""
        self.eof = False
        self.lost = False
        self.reading_paused = False
        self.writing_paused = False
        self.read_waiter: asyncio.Future[bool] | None = None
        self.drain_waiter: asyncio.Future[bool] | None = None

    # -- asyncio.Protocol ------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Keep the transport (a stream's, other loops' too)."""
        self.transport = cast(asyncio.Transport, transport)

    def connection_lost(self, exc: Exception | None) -> None:
        """The end of the stream and of the connection: a waiting read and write wake."""
        self.eof = self.lost = True
        wake(self.read_waiter)
        wake(self.drain_waiter)

    def pause_writing(self) -> None:
        """The transport's send buffer went above its high-water mark."""
        self.writing_paused = True

    def resume_writing(self) -> None:
        """The send buffer drained below its low-water mark: a waiting write wakes."""
        self.writing_paused = False
        wake(self.drain_waiter)

    def eof_received(self) -> bool:
        """Whether the transport stays open for writing after the server's end of stream."""
        # Over plain TCP the sending half stays open (as with anyio's streams and sockets): the
        # rest of a request may still go to a server that half-closed before answering. Under
        # TLS asyncio closes the connection whatever the answer (and warns about a True one).
        return not self.tls

    # -- for the subclasses and the streams ------------------------------------------------

    def pause_reading_at(self, unread: int) -> None:
        """Pause reading from the socket when ``unread`` bytes reach ``BUFFER_BYTES``."""
        if unread >= BUFFER_BYTES and not self.reading_paused and self.transport is not None:
            self.reading_paused = True
            self.transport.pause_reading()

    def resume_reading(self) -> None:
        """Resume reading from the socket if it was paused."""
        if self.reading_paused and self.transport is not None:
            self.reading_paused = False
            self.transport.resume_reading()

    async def timed(self, waiter: asyncio.Future[bool], timeout: float | None) -> bool:
        """A ``Wait`` with a timer of the loop of its own while it waits (none without a
        timeout)."""
        if timeout is None:
            return await waiter
        timer = self.loop.call_later(timeout, _expire, waiter)
        try:
            return await waiter
        finally:
            timer.cancel()

    async def readable(self, wait: Wait, timeout: float | None) -> bool:
        """Wait (``wait``) for data or the end; False when ``timeout`` seconds passed first."""
        self.read_waiter = waiter = self.loop.create_future()
        try:
            return await wait(waiter, timeout)
        finally:
            self.read_waiter = None

    async def drained(self, wait: Wait, timeout: float | None) -> bool:
        """Wait (``wait``) while writing is paused and the connection is open; False when
        ``timeout`` seconds passed first."""
        while self.writing_paused and not self.lost:
            self.drain_waiter = waiter = self.loop.create_future()
            try:
                if not await wait(waiter, timeout):
                    return False
            finally:
                self.drain_waiter = None
        return True
