"""The I/O pieces of the asyncio driver (``mcpstream._http.aio``): what one running flow has
open (``Exchange``), reads bounded by a wait, and error snippets."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable

import httpx

from . import wire
from .core import steps as s

__all__ = ["Exchange", "read_limited", "within"]


class Exchange:
    """What one running flow has open: its response. ``answered`` is the GET stream's event
    for ``StreamAnswered``."""

    def __init__(self, client: httpx.AsyncClient, answered: asyncio.Event | None = None) -> None:
        self.client, self.answered = client, answered
        self.response: httpx.Response | None = None
        self.chunks: AsyncIterator[bytes] | None = None
        self.broken = False
        """True once a read was cancelled by its wait, which ends the body iterator too."""

    async def release(self) -> None:
        response, self.response, self.chunks = self.response, None, None
        if response is not None:
            await response.aclose()


async def read_limited(response: httpx.Response, limit: int) -> bytes:
    """Read at most about ``limit`` bytes of ``response`` (for error snippets); never raises."""
    snippet = wire.Snippet(limit)
    with contextlib.suppress(*wire.HTTP_ERRORS):
        async for chunk in response.aiter_bytes():
            if snippet.full_with(chunk):
                break
    return snippet.data


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
    except wire.HTTP_ERRORS as exc:
        return wire.failure(exc)
