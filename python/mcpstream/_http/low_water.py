"""Fewer wake-ups while a large body of a known length is read: the socket's receive low-water
mark (``SO_RCVLOWAT``, ``LowWater``).

A reader on the event loop is woken whenever any data is queued on its socket; a 16 MiB body
arriving over loopback wakes it a dozen times or more, and each wake-up costs a round of the
loop, a ``recv_into`` and the kernel's window updates. With the mark raised to what is sure to
come (at most ``MARK_BYTES``), ``epoll`` reports the socket readable only once that much is
queued (or at the end of the stream, or under memory pressure: the kernel wakes the reader then
whatever the mark), so the body is read in a few large reads. Measured on loopback, 16 MiB JSON
bodies: about half the CPU of reading them (6-8 ms to 3.8-4.5 ms a body on a busy 2-core
machine), with a mark of 0.5-2 MiB; 4 MiB was slower (see docs/benchmarks.md).

The mark is never more than the bytes sure to come (the body's rest, ``follow``), so a
well-behaved server always reaches it. A read timeout passing while data below the mark
trickled in is not a timeout (bytes did arrive within it): ``pending`` lowers the mark and
reports them, and the read goes on as without a mark. Linux only (other systems honour the
option differently for ``poll``); elsewhere ``lower_water`` gives None and nothing changes.
"""

from __future__ import annotations

import array
import fcntl
import socket
import sys
import termios
from typing import Any

__all__ = ["MARK_BYTES", "LowWater", "lower_water"]

MARK_BYTES = 1024 * 1024
"""The highest mark set: a read of a large body wakes for about this much at a time."""

_MIN_BYTES = 256 * 1024
"""Bodies with less than this to come are read as usual (a few wake-ups at most)."""


class LowWater:
    """The receive low-water mark of one socket while a body is read into a buffer; ``close``
    sets it back to one byte (the default) for the next answer on the connection."""

    __slots__ = ("_fd", "_mark", "_sock")

    def __init__(self, sock: Any, mark: int) -> None:
        self._sock = sock
        self._fd: int = sock.fileno()
        self._mark = 1
        self._set(mark)

    def _set(self, mark: int) -> None:
        if mark != self._mark:
            self._mark = mark
            self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVLOWAT, mark)

    def follow(self, ahead: int) -> None:
        """``ahead`` bytes are still sure to come: the mark is kept at no more than that."""
        if ahead < self._mark:
            self._set(max(ahead, 1))

    def pending(self) -> bool:
        """On a read timeout: whether bytes below the mark arrived (then the mark is dropped
        and the read goes on as without one)."""
        if self._mark == 1:
            return False
        self.close()
        queued = array.array("i", [0])
        try:
            fcntl.ioctl(self._fd, termios.FIONREAD, queued)
        except OSError:
            return False
        return queued[0] > 0

    def close(self) -> None:
        """Back to the default mark (errors ignored: a socket closed meanwhile)."""
        try:
            self._set(1)
        except OSError:
            self._mark = 1


def lower_water(transport: Any, ahead: int) -> LowWater | None:
    """A ``LowWater`` on the socket of ``transport`` (asyncio's plain TCP one), its mark at
    ``ahead`` bytes sure to come (at most ``MARK_BYTES``); None where it does not apply (not
    Linux, too little to come, no socket, the option refused)."""
    if sys.platform != "linux" or ahead < _MIN_BYTES:
        return None
    sock = transport.get_extra_info("socket")
    if sock is None or sock.family not in (socket.AF_INET, socket.AF_INET6):
        return None
    try:
        return LowWater(sock, min(ahead, MARK_BYTES))
    except OSError:
        return None
