"""A receive buffer for h11 that hands a body's bytes on as they were received.

h11's ``ReceiveBuffer`` copies every received piece three times on its way out as body data
(appended to a ``bytearray``, then sliced out of it twice), and httpcore copies the slice once
more (``bytes(event.data)``): for a 16 MiB result, 64 MiB of copying before the SSE decoder
sees a byte (most of the client's instructions in callgrind). ``PassThroughBuffer`` keeps a
received ``bytes`` object as it is while nothing else is buffered, and when h11 asks for at most
as many body bytes as that object holds (the usual case: one read, one piece of a large chunk
or of a ``Content-Length`` body), returns that very object; httpcore's ``bytes()`` then copies
nothing. Everything else (head lines, chunk-size lines, a read that spans the end of a chunk)
goes through h11's own code on its ``bytearray``, exactly as before.

``install`` puts it into the HTTP/1.1 connection under a response of the clients made by
``httpx_clients`` (once per connection, before its body is read). httpx and httpcore offer no
way to choose h11's buffer, so it follows their objects' (private) attributes, checking each;
with other versions of httpx, httpcore or h11 it finds nothing and leaves the connection as it
is.
"""

from __future__ import annotations

from typing import Any

import httpx

try:
    from h11._receivebuffer import ReceiveBuffer

    _AVAILABLE = True
except ImportError:  # another h11: nothing to install into (the class below is never used)
    ReceiveBuffer = object  # type: ignore[assignment,misc]
    _AVAILABLE = False

__all__ = ["HOLD_BYTES", "PassThroughBuffer", "available", "install", "swap"]

_FIELDS = ("_data", "_next_line_search", "_multiple_lines_search")
"""The state of h11's buffer (0.16), taken over as it is by ``install``."""


HOLD_BYTES = 16 * 1024
"""Received pieces at least this large are held uncopied; smaller ones (the head and body of a
small answer, usually in one read) go into h11's ``bytearray`` at once, as without this buffer,
so that a small answer pays nothing but a few checks."""


class PassThroughBuffer(ReceiveBuffer):
    """h11's ``ReceiveBuffer`` that holds a large received ``bytes`` object uncopied
    (``_whole``) while its ``bytearray`` is empty, and gives it back whole as body data. The
    overrides call h11's functions directly (not through ``super()``: they run for every event
    of every answer)."""

    _whole: bytes

    def _settle(self) -> None:
        """Move the held object into h11's ``bytearray`` (before any other use of it)."""
        self._data += self._whole
        self._whole = b""

    def __iadd__(self, byteslike: bytes | bytearray) -> PassThroughBuffer:
        if self._whole:
            self._settle()
        elif len(byteslike) >= HOLD_BYTES and not self._data and type(byteslike) is bytes:
            self._whole = byteslike
            return self
        self._data += byteslike
        return self

    def __len__(self) -> int:
        return len(self._data) + len(self._whole)

    def __bool__(self) -> bool:
        return bool(self._whole) or bool(self._data)

    def __bytes__(self) -> bytes:
        if self._whole:
            self._settle()
        return bytes(self._data)

    # h11 declares a bytearray, but its readers put the result into a ``Data`` event, whose
    # ``data`` is declared as bytes: both kinds work all the way.
    def maybe_extract_at_most(self, count: int) -> bytes | bytearray | None:  # type: ignore[override]
        """At most ``count`` bytes: the held object itself when it fits (as ``_extract``
        would, the line searches start over)."""
        whole = self._whole
        if whole:
            if count >= len(whole):
                self._whole = b""
                self._next_line_search = self._multiple_lines_search = 0
                return whole
            self._settle()
        result: bytearray | None = _h11_at_most(self, count)
        return result

    def maybe_extract_next_line(self) -> bytearray | None:
        """h11's, on the settled buffer."""
        if self._whole:
            self._settle()
        line: bytearray | None = _h11_next_line(self)
        return line

    def maybe_extract_lines(self) -> list[bytearray] | None:
        """h11's, on the settled buffer."""
        if self._whole:
            self._settle()
        lines: list[bytearray] | None = _h11_lines(self)
        return lines

    def is_next_line_obviously_invalid_request_line(self) -> bool:
        """h11's, on the settled buffer."""
        if self._whole:
            self._settle()
        return bool(_h11_invalid_request_line(self))


# h11's own functions (None with another h11, where nothing is installed).
_h11_at_most: Any = getattr(ReceiveBuffer, "maybe_extract_at_most", None)
_h11_next_line: Any = getattr(ReceiveBuffer, "maybe_extract_next_line", None)
_h11_lines: Any = getattr(ReceiveBuffer, "maybe_extract_lines", None)
_h11_invalid_request_line: Any = getattr(
    ReceiveBuffer, "is_next_line_obviously_invalid_request_line", None
)


def _h11_connection(response: httpx.Response) -> Any:
    """The ``h11.Connection`` under ``response`` (httpx's response stream, httpcore's pool
    stream, its HTTP/1.1 connection stream), or None."""
    stream: Any = getattr(response.stream, "_httpcore_stream", None)
    stream = getattr(stream, "_stream", None)
    connection = getattr(stream, "_connection", None)
    return getattr(connection, "_h11_state", None)


def available() -> bool:
    """Whether this h11 has the ``ReceiveBuffer`` class and methods ``PassThroughBuffer``
    overrides (``capability`` probes it)."""
    return _AVAILABLE and _h11_invalid_request_line is not None


def swap(state: Any) -> bool:
    """Give the ``h11.Connection`` ``state`` a ``PassThroughBuffer`` holding what its buffer
    holds (nothing is read or copied); False where its buffer is not h11's own (a connection
    that has one keeps it)."""
    current = getattr(state, "_receive_buffer", None)
    if type(current) is not ReceiveBuffer or not all(hasattr(current, f) for f in _FIELDS):
        return False
    buffer = PassThroughBuffer.__new__(PassThroughBuffer)
    for field in _FIELDS:
        setattr(buffer, field, getattr(current, field))
    buffer._whole = b""
    state._receive_buffer = buffer
    return True


def install(response: httpx.Response) -> None:
    """Give the HTTP/1.1 connection under ``response`` a ``PassThroughBuffer`` (``swap``)."""
    if available():
        swap(_h11_connection(response))
