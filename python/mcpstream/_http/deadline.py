"""The deadline of the operation under way on a thread or task (``io_deadline``), which the
sync I/O of the clients made here obeys: every connect, TLS handshake, write and read is bounded
by what is left of it (``bounded``), so that a server trickling its head a byte at a time cannot
stretch a call past its timeout. A module of its own so that every stream and transport that
obeys it reads the one ``ContextVar``."""

from __future__ import annotations

import time
from contextvars import ContextVar

__all__ = ["DEADLINE", "bounded", "io_deadline"]

DEADLINE: ContextVar[float | None] = ContextVar("mcpstream_io_deadline", default=None)
"""The ``io_deadline`` in force (None: no bound). A hot path may set and reset it itself, as
``io_deadline`` does, without the object."""


class io_deadline:  # used as a function: ``with io_deadline(at):``
    """Bound every I/O of the streams made here, on this thread or task, by the
    ``time.monotonic`` instant ``at`` (None: no bound) while the block runs."""

    __slots__ = ("_at", "_token")

    def __init__(self, at: float | None) -> None:
        self._at = at

    def __enter__(self) -> None:
        self._token = DEADLINE.set(self._at)

    def __exit__(self, *exc_info: object) -> None:
        DEADLINE.reset(self._token)


def bounded(timeout: float | None, expired: type[Exception]) -> float | None:
    """``timeout`` cut to what is left of the ``io_deadline``; ``expired`` raised once none is."""
    deadline = DEADLINE.get()
    if deadline is None:
        return timeout
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise expired("the deadline of the operation passed")
    return remaining if timeout is None else min(timeout, remaining)
