"""``Utf8Decoder``: incremental, strict UTF-8 decoding of body chunks."""

from __future__ import annotations

from codecs import utf_8_decode
from typing import final

from ..errors import InvalidUtf8Error
from ._common import copy_error, incomplete_utf8, invalid_utf8

__all__ = ["Utf8Decoder"]  # the contract's name; mcpstream._pure re-exports it

# For each lead byte of a multibyte sequence: (sequence length, lowest and highest allowed second
# byte). The narrowed second-byte ranges exclude overlong forms (E0, F0), surrogates (ED) and code
# points above U+10FFFF (F4); every later byte is 80..BF.
_LEADS: dict[int, tuple[int, int, int]] = {}
for _lead in range(0xC2, 0xE0):
    _LEADS[_lead] = (2, 0x80, 0xBF)
for _lead in range(0xE0, 0xF0):
    _LEADS[_lead] = (3, 0x80, 0xBF)
for _lead in range(0xF0, 0xF5):
    _LEADS[_lead] = (4, 0x80, 0xBF)
_LEADS[0xE0] = (3, 0xA0, 0xBF)
_LEADS[0xED] = (3, 0x80, 0x9F)
_LEADS[0xF0] = (4, 0x90, 0xBF)
_LEADS[0xF4] = (4, 0x80, 0x8F)
del _lead


def is_utf8_prefix(tail: bytes) -> bool:
    """True when ``tail`` is the start, but not the whole, of a valid UTF-8 sequence.

    CPython's incremental decoder keeps some tails that can never complete (``ED A0``, the start
    of a surrogate) until the next byte arrives; the contract wants them refused at once, as
    Rust's ``Utf8Error`` does, so the tail is checked here.
    """
    lead = _LEADS.get(tail[0]) if tail else None
    if lead is None:
        return False
    length, low, high = lead
    n = len(tail)
    if n >= length:
        return False
    if n >= 2 and not low <= tail[1] <= high:
        return False
    return n < 3 or 0x80 <= tail[2] <= 0xBF


@final
class Utf8Decoder:
    """Incremental, strict UTF-8 decoder for body chunks.

    A code point split across chunks is returned once its last byte arrives. Invalid bytes raise
    ``InvalidUtf8Error`` with the stream offset. After an error the decoder is failed: every
    later call raises ``InvalidUtf8Error`` again with the same message and offset. A successful
    ``finish`` resets the decoder for a new stream (offsets count from 0 again).
    """

    __slots__ = ("_error", "_offset", "_pending")

    def __init__(self) -> None:
        self._pending = b""
        # Stream offset of the next byte to arrive.
        self._offset = 0
        self._error: InvalidUtf8Error | None = None

    def __init_subclass__(cls) -> None:
        raise TypeError("type 'Utf8Decoder' is not an acceptable base type")

    def decode(self, chunk: bytes) -> str:
        """Decode ``chunk``; return the text of every code point completed so far."""
        if self._error is not None:
            raise copy_error(self._error)
        if not isinstance(chunk, bytes):
            raise TypeError(f"chunk must be bytes, not {type(chunk).__name__}")
        pending = self._pending
        start = self._offset - len(pending)
        data = pending + chunk if pending else chunk
        self._offset += len(chunk)
        try:
            text, consumed = utf_8_decode(data, "strict", False)
        except UnicodeDecodeError as exc:
            self._error = invalid_utf8(start + exc.start)
            raise self._error from None
        if consumed != len(data):
            tail = data[consumed:]
            if not is_utf8_prefix(tail):
                self._error = invalid_utf8(start + consumed)
                raise self._error
            self._pending = tail
        elif pending:
            self._pending = b""
        return text

    def finish(self) -> str:
        """End of stream: return ``""``, or raise if an incomplete sequence is left over.

        After a successful ``finish`` the decoder starts a new stream.
        """
        if self._error is not None:
            raise copy_error(self._error)
        if self._pending:
            self._error = incomplete_utf8(self._offset - len(self._pending))
            raise self._error
        self._offset = 0
        return ""
