"""The I/O pieces of the asyncio driver (``mcpstream._http.aio``).

A running flow keeps what it has open in an ``Exchange``: the response of its last request,
the body's iterator and, where the transport can, a reader of the whole body. Each read runs
under ``asyncio.timeout`` of what is left of its wait (``within``): a read that runs out of
time is cancelled and reported to the core as ``Idle``, the end of a body as ``BodyEnd`` and a
failure as ``Failed``. Error snippets are read within the request's deadline and never raise
(``read_limited``).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable

import httpx

from . import wire
from .core import steps as s

__all__ = ["Exchange", "collect", "read_limited", "wait_set", "within"]


class Exchange:
    """What one running flow has open: its response. ``answered`` is the GET stream's event
    for ``StreamAnswered``."""

    __slots__ = (
        "answered",
        "broken",
        "chunks",
        "client",
        "deadline",
        "preset",
        "response",
        "taken",
        "whole",
    )

    def __init__(self, client: httpx.AsyncClient, answered: asyncio.Event | None = None) -> None:
        self.client, self.answered = client, answered
        self.response: httpx.Response | None = None
        self.chunks: AsyncIterator[bytes] | None = None
        self.whole: Callable[[int | None], Awaitable[bytes]] | None = None
        """Reads the body into one ``bytes`` at once, where the transport can
        (``wire.whole_body``)."""
        self.broken = False
        """True once a read was cancelled by its wait, which ends the body iterator too."""
        self.deadline: float | None = None
        """The deadline of the request whose response is open (for its error body)."""
        self.taken: bytes | None = None
        """The whole body of the answer, when it came with its head (``wire.asend_whole``: no
        response is open then); ``b""`` once a read took it."""
        self.preset: s.Head | s.Failed | BaseException | None = None
        """The outcome of the flow's first ``Send`` (an exception: what sending it raised),
        when the driver sent it already (the one-shot path of a request:
        ``AsyncMcpHttpTransport._request``)."""

    def open(self, response: httpx.Response, deadline: float) -> None:
        """Take the response of a request whose operation ends at ``deadline``."""
        self.response, self.chunks = response, wire.abody_chunks(response)
        self.whole, self.taken = wire.whole_body(response), None
        self.broken, self.deadline = False, deadline

    def hold(self, answer: wire.Answer, deadline: float) -> s.Head:
        """Hold ``answer`` for the flow's reads (a whole one as ``taken``, else its response
        open); its head."""
        if isinstance(answer, tuple):
            status, fields, self.taken = answer
            self.deadline = deadline
            return s.Head(time.monotonic(), status, fields)
        self.open(answer, deadline)
        return wire.head(answer)

    def take(self) -> httpx.Response | None:
        """The open response, left to the caller to close (the exchange holds it no more)."""
        response, self.response, self.chunks, self.whole = self.response, None, None, None
        self.taken = None
        return response

    async def release(self) -> None:
        response = self.take()
        if response is not None:
            await response.aclose()


async def read_limited(chunks: AsyncIterator[bytes], limit: int, deadline: float | None) -> bytes:
    """Read at most about ``limit`` bytes of a body's ``chunks`` by ``deadline`` (for error
    snippets); never raises."""
    snippet = wire.Snippet(limit)
    wait_s = None if deadline is None else max(deadline - time.monotonic(), 0.0)
    with contextlib.suppress(*wire.http_errors()):  # the timeout's TimeoutError is an OSError
        async with asyncio.timeout(wait_s):
            await _fill(snippet, chunks)
    return snippet.data  # what arrived, also when the read failed or ran out of time


async def collect(chunks: AsyncIterator[bytes], limit: int | None) -> bytes:
    """A body's ``chunks`` to its end, or to the first ``limit`` bytes or more."""
    body = wire.Snippet(limit)
    await _fill(body, chunks)
    return body.data


async def _fill(body: wire.Snippet, chunks: AsyncIterator[bytes]) -> None:
    """Add ``chunks`` to ``body`` until they end or it is full."""
    async for chunk in chunks:
        if body.full_with(chunk):
            break


async def within(wait_s: float | None, read: Awaitable[bytes]) -> bytes | s.Outcome:
    """What ``read`` gives within ``wait_s`` (None: no bound): its bytes, or ``Idle`` (the wait
    ran out, and the read was cancelled), ``BodyEnd`` or ``Failed``."""
    try:
        async with asyncio.timeout(wait_s):
            return await read
    except TimeoutError:
        return s.Idle(time.monotonic())
    except StopAsyncIteration:
        return s.BodyEnd(time.monotonic())
    except wire.http_errors() as exc:
        return wire.failure(exc)


async def wait_set(event: asyncio.Event, wait_s: float) -> bool:
    """Wait for ``event`` to be set, ``wait_s`` at most; True when it is. Not with
    ``asyncio.wait_for``: on CPython 3.11 it loses a cancellation that comes as the event is set
    (the cancelled task then waits on, until its timeout), where ``asyncio.timeout`` keeps it."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(wait_s):
            await event.wait()
    return event.is_set()
