"""How the network streams of the clients made here read and write: every read asks for at
least ``READ_BYTES``, for ``LARGE_READ_BYTES`` right after a read that got all it asked for (more
is waiting: a large body), and the small writes of a request are held to leave in one ``send``
(``HeldWrites``). Shared by the streams over httpcore's backends (``httpx_clients``) and by the
asyncio backend (``asyncio_backend``)."""

from __future__ import annotations

__all__ = ["COALESCE_BYTES", "LARGE_READ_BYTES", "READ_BYTES", "HeldWrites", "next_ask"]

READ_BYTES = 256 * 1024
"""Bytes asked for by every read at least."""

LARGE_READ_BYTES = 1024 * 1024
"""Bytes asked for by a read after one that got all it asked for."""

COALESCE_BYTES = 64 * 1024
"""Writes smaller than this are held until the next read (or a write that makes them larger)."""


def next_ask(asked: int, data: bytes) -> int:
    """What the read after one that asked for ``asked`` and got ``data`` asks for."""
    return LARGE_READ_BYTES if len(data) >= asked else READ_BYTES


class HeldWrites:
    """The small writes of a request, held so that they leave in one ``send``: httpcore writes
    a request's head and its body separately, and each write on a loopback or LAN socket is a
    system call and a wake-up of the server (the second of which finds half a request). They
    are written before the next read, which waits for the answer to them."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.size = 0

    def hold(self, buffer: bytes) -> bytes | None:
        """Keep ``buffer``, or return what to write now (everything held, with it)."""
        if self.size + len(buffer) < COALESCE_BYTES:
            self.parts.append(buffer)
            self.size += len(buffer)
            return None
        return self.take(buffer)

    def take(self, last: bytes = b"") -> bytes:
        """Everything held (and ``last``), emptied out."""
        parts, self.parts, self.size = self.parts, [], 0
        parts.append(last)
        return b"".join(parts)
