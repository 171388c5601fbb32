"""``SseEvent`` and ``SseDecoder``: incremental Server-Sent Events decoding (WHATWG rules).

How the decoder stays fast in pure Python: it works on whole chunks, never on single lines, as
long as it can. In a chunk, everything up to the last line terminator is a run of complete
lines; that run is checked against the size cap with one comparison, decoded with one
``bytes.decode`` call (CR and LF are ASCII and never part of a multibyte character, so decoding
many lines at once equals decoding each) and split with one ``str.split``. Only the field
interpretation loops per line. The exact, line-by-line path is taken only when the run has
invalid UTF-8 (to find the offending line and offset) or might break the size cap.

Bytes are searched once, so time and memory stay linear in the stream: a partial line is kept
as a list of pieces and only each new chunk is searched for its end. When the line completes, a
short one joins the run of the chunk that completes it; a long one (longer than that chunk) is
joined and decoded on its own, a data line's value straight from the joined bytes.
"""

from __future__ import annotations

import re
from codecs import utf_8_decode
from typing import Any, Final, final

from ..errors import CodecError
from ._common import (
    Frozen,
    copy_error,
    event_too_large,
    incomplete_utf8,
    invalid_utf8,
    member_setters,
    new_object,
)
from .jsonrpc import JsonRpcEvent, jsonrpc_events

__all__ = ["DEFAULT_MAX_EVENT_BYTES", "SseDecoder", "SseEvent", "sole_sse_message"]

DEFAULT_MAX_EVENT_BYTES: Final = 64 * 1024 * 1024
"""64 MiB: the default cap on the size of one SSE event (the transports' documented default)."""

_BOM: Final = b"\xef\xbb\xbf"
_MAX_RETRY: Final = 2**63 - 1
# Compared with sizes when there is no cap; no event in memory gets near it.
_NO_LIMIT: Final = 1 << 64
_line_end = re.compile(rb"\r\n|\r|\n").finditer

# One dispatched event inside the decoder: (event, data, id, retry).
_Raw = tuple[str | None, str, str | None, int | None]


@final
class SseEvent(Frozen):
    """One dispatched Server-Sent Event.

    ``event``: the value of the last ``event`` field of this event, ``None`` if it had none.
    ``data``: the ``data`` lines joined with ``"\\n"``, ``""`` when there were none. ``id``: the
    value of the last valid ``id`` field of this event, ``None`` if it had none. ``retry``: the
    value of the last valid ``retry`` field of this event, or ``None``. Immutable and hashable;
    equal when all four fields are equal; ``repr`` is
    ``SseEvent(event=..., data=..., id=..., retry=...)``.
    """

    __slots__ = {
        "data": "The data lines joined with newlines.",
        "event": "The event type, None if the event had no event field.",
        "id": "The event's id, None if it had no valid id field.",
        "retry": "The event's retry delay in milliseconds, None if it had no valid retry field.",
    }
    event: str | None
    data: str
    id: str | None
    retry: int | None

    def __init__(
        self,
        *,
        event: str | None = None,
        data: str = "",
        id: str | None = None,
        retry: int | None = None,
    ) -> None:
        _set_event(self, event)
        _set_data(self, data)
        _set_id(self, id)
        _set_retry(self, retry)

    def __eq__(self, other: object) -> bool:
        if type(other) is not SseEvent:
            return NotImplemented
        return (
            self.data == other.data
            and self.event == other.event
            and self.id == other.id
            and self.retry == other.retry
        )

    def __hash__(self) -> int:
        return hash((self.event, self.data, self.id, self.retry))


_set_event, _set_data, _set_id, _set_retry = member_setters(SseEvent)


def _check_limit(max_event_bytes: Any) -> int:
    if max_event_bytes is None:
        return _NO_LIMIT
    if not isinstance(max_event_bytes, int):
        raise TypeError(
            f"max_event_bytes must be an int or None, not {type(max_event_bytes).__name__}"
        )
    if max_event_bytes <= 0:
        raise ValueError("max_event_bytes must be a positive integer or None")
    return int(max_event_bytes)


@final
class SseDecoder:
    """Incremental Server-Sent Events decoder (WHATWG rules), one call per body chunk.

    Lines end at CRLF, LF or CR and nowhere else. One UTF-8 BOM at the very start of the stream
    is dropped. Every line is strictly UTF-8 decoded when it completes. Events are capped at
    ``max_event_bytes``. An error is raised at its position in the stream: events completed
    before it are returned first, and once failed the decoder raises the same error on every
    call. The full rules are in the contract, ``mcpstream/_native.pyi``.
    """

    __slots__ = (
        "_acc",
        "_at_start",
        "_data",
        "_error",
        "_event",
        "_head",
        "_id",
        "_last_id",
        "_limit",
        "_line_start",
        "_partial_size",
        "_parts",
        "_pos",
        "_retry",
        "_retry_ms",
        "_skip_lf",
    )

    def __init__(self, max_event_bytes: int | None = DEFAULT_MAX_EVENT_BYTES) -> None:
        """``max_event_bytes``: the cap on one event's size; ``None`` for no cap. Must be > 0."""
        self._limit = _check_limit(max_event_bytes)
        self._last_id: str | None = None
        self._retry_ms: int | None = None
        self._error: CodecError | None = None
        self._reset()

    def __init_subclass__(cls) -> None:
        raise TypeError("type 'SseDecoder' is not an acceptable base type")

    def _reset(self) -> None:
        """Back to the start of a stream; ``last_event_id`` and ``retry_ms`` are kept."""
        # True until the first bytes show whether the stream starts with a BOM; meanwhile the
        # bytes that may be a BOM wait in _head.
        self._at_start = True
        self._head = b""
        # The previous chunk ended with CR: a LF at the start of the next one belongs to it.
        self._skip_lf = False
        # The partly received line, as pieces, and the stream offset of its first byte.
        self._parts: list[bytes] = []
        self._partial_size = 0
        self._line_start = 0
        # Stream offset of the next byte to arrive.
        self._pos = 0
        # Byte size of the non-comment lines since the last blank line. Such a line is never
        # empty, so this is also "a non-comment line has been seen since the last blank line".
        self._acc = 0
        # The event being assembled.
        self._data: list[str] = []
        self._event: str | None = None
        self._id: str | None = None
        self._retry: int | None = None

    # -- public API --------------------------------------------------------------------------

    def feed(self, chunk: bytes) -> list[SseEvent]:
        """Take the next chunk of body bytes; return the events it completed, in order."""
        return _to_sse_events(self._feed(chunk))

    def finish(self) -> list[SseEvent]:
        """End of stream: process any partial line and dispatch a pending event.

        Raises ``InvalidUtf8Error`` (``incomplete ...`` message) if the stream ends inside a code
        point. Afterwards the decoder is reset to its initial state (BOM handling included) but
        keeps ``last_event_id`` and ``retry_ms``.
        """
        return _to_sse_events(self._finish())

    def feed_jsonrpc(self, chunk: bytes) -> list[JsonRpcEvent]:
        """Like ``feed``, but return the JSON-RPC content of the completed events.

        Events whose data is empty or only JSON whitespace are skipped, and so are events whose
        type is set and is neither ``""`` nor ``"message"``. The data of every other event goes
        through ``parse_jsonrpc_line``; a parse failure is reported in that event's ``error``.
        """
        return jsonrpc_events(self._feed(chunk))

    def finish_jsonrpc(self) -> list[JsonRpcEvent]:
        """``finish`` with the same JSON-RPC treatment as ``feed_jsonrpc``."""
        return jsonrpc_events(self._finish())

    @property
    def event_in_progress(self) -> bool:
        """True while a line is partly received (a pending CR does not count) or a non-comment
        line has been seen since the last dispatch or blank line; False once failed."""
        if self._error is not None:
            return False
        return self._acc > 0 or bool(self._parts) or bool(self._head)

    @property
    def last_event_id(self) -> str | None:
        """The id of the most recent dispatched event that set one; ``None`` until one does."""
        return self._last_id

    @property
    def retry_ms(self) -> int | None:
        """The last valid ``retry`` value seen (it takes effect when its line is read)."""
        return self._retry_ms

    # -- the error discipline ----------------------------------------------------------------

    def _feed(self, chunk: bytes) -> list[_Raw]:
        if self._error is not None:
            raise copy_error(self._error)
        if type(chunk) is not bytes:
            if not isinstance(chunk, bytes):
                raise TypeError(f"chunk must be bytes, not {type(chunk).__name__}")
            chunk = bytes(chunk)
        out: list[_Raw] = []
        try:
            self._take(chunk, out)
        except CodecError as exc:
            # The error sits after the events already completed: return those now and raise
            # on the next call. Either way the decoder stays failed.
            self._error = exc
            if not out:
                raise
        return out

    def _finish(self) -> list[_Raw]:
        if self._error is not None:
            raise copy_error(self._error)
        out: list[_Raw] = []
        try:
            self._end(out)
        except CodecError as exc:
            self._error = exc
            if not out:
                raise
            return out
        self._reset()
        return out

    # -- decoding ----------------------------------------------------------------------------

    def _take(self, chunk: bytes, out: list[_Raw]) -> None:
        """Decode one chunk, appending dispatched events to ``out``; raise at an error."""
        base = self._pos  # stream offset of data[0]
        self._pos = base + len(chunk)
        data = chunk
        if self._at_start:
            if self._head:
                data = self._head + chunk
                base -= len(self._head)
            if len(data) < 3 and _BOM.startswith(data):
                self._head = data  # maybe a BOM: wait for more bytes
                return
            self._at_start = False
            self._head = b""
            if data.startswith(_BOM):
                data = data[3:]
                base += 3
        size = len(data)
        if not size:
            return
        start = 0
        if self._skip_lf:
            self._skip_lf = False
            if data[0] == 10:
                start = 1
                if size == 1:
                    return
        # Only the new chunk is searched; a partial line never holds a line terminator.
        lf = data.rfind(b"\n", start)
        cr = data.rfind(b"\r", start)
        stop = (lf if lf > cr else cr) + 1  # the end of the last complete line, 0 if none
        if not stop:
            piece = data[start:] if start else data
            if self._parts:
                self._parts.append(piece)
                self._partial_size += len(piece)
            else:
                self._parts = [piece]
                self._partial_size = len(piece)
                self._line_start = base + start
            if self._acc + self._partial_size > self._limit:
                raise event_too_large(self._limit)
            return
        if self._parts:
            if self._partial_size <= size - start:
                # The chunk completes a short partial line: the line joins the chunk's lines
                # as one run (scanning it again costs at most what the chunk costs).
                self._parts.append(data[start:] if start else data)
                stop += self._partial_size - start
                data = b"".join(self._parts)
                base = self._line_start
                start = 0
                size = len(data)
                self._parts = []
                self._partial_size = 0
            else:
                # A long partial line is finished on its own, so that its bytes are not
                # searched again; the lines after it make the run.
                end = data.find(b"\n", start)
                first_cr = data.find(b"\r", start, end if end >= 0 else size)
                if first_cr >= 0:
                    end = first_cr
                self._parts.append(data[start:end])
                raw = b"".join(self._parts)
                self._parts = []
                self._partial_size = 0
                self._line(raw, self._line_start, out)
                if data[end] == 13:
                    if end + 1 == size:
                        self._skip_lf = True
                        return
                    start = end + 2 if data[end + 1] == 10 else end + 1
                else:
                    start = end + 1
        if start < stop:
            if cr >= start:
                run = data[start:stop].replace(b"\r\n", b"\n").replace(b"\r", b"\n")
                if stop == size and data[stop - 1] == 13:
                    self._skip_lf = True
            elif start or stop != size:
                run = data[start:stop]
            else:
                run = data
            # The complete lines, at once when they cannot break the cap and decode cleanly.
            if self._fits(run):
                try:
                    text = run.decode()
                except UnicodeDecodeError:
                    self._exact(data, start, stop, base, out)
                else:
                    lines = text.split("\n")
                    lines.pop()  # the "" after the run's last terminator is not a line
                    self._lines(lines, out)
                    self._account(run)
            else:
                self._exact(data, start, stop, base, out)
        if stop < size:
            self._parts = [data[stop:]]
            self._partial_size = size - stop
            self._line_start = base + stop
            if self._acc + self._partial_size > self._limit:
                raise event_too_large(self._limit)

    def _fits(self, run: bytes) -> bool:
        """True when no line of ``run`` (LF-terminated lines) can break the size cap.

        Conservative: a False answer sends the run through the exact path, which decides.
        """
        limit = self._limit
        if self._acc + len(run) <= limit:
            return True
        # Each event's lines lie within one blank-line-separated segment; the first segment
        # continues the event in progress.
        segments = run.split(b"\n\n")
        if self._acc + len(segments[0]) > limit:
            return False
        return max(map(len, segments), default=0) <= limit

    def _account(self, run: bytes) -> None:
        """Update the event size after the LF-terminated lines of ``run`` were processed."""
        blank = run.rfind(b"\n\n")
        if blank >= 0:
            begin = blank + 2
            acc = 0
        elif run[0] == 10:
            begin = 1
            acc = 0
        else:
            begin = 0
            acc = self._acc
        if begin < len(run):
            if run[begin] == 58 or run.find(b"\n:", begin) >= 0:
                # Comment lines do not count: add up the lines one by one.
                acc += sum(len(line) for line in run[begin:].split(b"\n") if line[:1] != b":")
            else:
                # Every line is counted: the bytes minus one terminator per line.
                acc += len(run) - begin - run.count(b"\n", begin)
        self._acc = acc

    def _exact(self, data: bytes, start: int, stop: int, base: int, out: list[_Raw]) -> None:
        """The line-by-line path over the complete lines in ``data[start:stop]``."""
        line = self._line
        for match in _line_end(data, start, stop):
            line(data[start : match.start()], base + start, out)
            start = match.end()

    def _line(self, raw: bytes, offset: int, out: list[_Raw], at_end: bool = False) -> None:
        """Process one complete line (terminator excluded) that starts at stream ``offset``.

        ``at_end``: the line is the unterminated last one, ended by ``finish``.
        """
        if not raw:
            self._acc = 0
            self._lines([""], out)
            return
        if self._acc + len(raw) > self._limit:
            raise event_too_large(self._limit)
        # A data line's value is decoded straight from the bytes: for a line of many megabytes
        # that saves copying all of its text once more just to cut off "data: ".
        skip = (6 if raw[5:6] == b" " else 5) if raw[:5] == b"data:" else 0
        try:
            text = utf_8_decode(memoryview(raw)[skip:], "strict", True)[0] if skip else raw.decode()
        except UnicodeDecodeError as exc:
            offset += skip + exc.start
            if at_end and exc.reason == "unexpected end of data":
                raise incomplete_utf8(offset) from None
            raise invalid_utf8(offset) from None
        if skip:
            self._acc += len(raw)
            self._data.append(text)
        elif raw[0] != 58:
            self._acc += len(raw)
            self._lines([text], out)

    def _end(self, out: list[_Raw]) -> None:
        """End of stream: the partial line, then the pending event."""
        if self._head:
            # Fewer than three bytes arrived and they began like a BOM: they are a line.
            self._parts = [self._head]
            self._line_start = 0
            self._head = b""
        if self._parts:
            raw = b"".join(self._parts)
            self._parts = []
            self._partial_size = 0
            self._line(raw, self._line_start, out, at_end=True)
        self._lines([""], out)

    def _lines(self, lines: list[str], out: list[_Raw]) -> None:
        """Interpret complete, decoded lines: fields, comments, and dispatch at blank lines.

        This is the only loop that runs per line, so it works on locals and tests the most
        common line shape (``data: ...``) first.
        """
        data = self._data
        event = self._event
        event_id = self._id
        retry = self._retry
        for line in lines:
            if line:
                # The shapes servers send almost always come first, as plain prefix compares.
                head = line[:6]
                if head == "data: ":
                    data.append(line[6:])
                    continue
                if head == "event:":
                    event = line[7:] if line[6:7] == " " else line[6:]
                    continue
                if head[:3] == "id:":
                    value = line[4:] if head[3:4] == " " else line[3:]
                    if "\x00" not in value:
                        event_id = value
                    continue
                name, _, value = line.partition(":")
                if not name:
                    continue  # a comment (a line without a colon has an empty value)
                if value[:1] == " ":
                    value = value[1:]
                if name == "data":
                    data.append(value)
                elif name == "event":
                    event = value
                elif name == "id":
                    if "\x00" not in value:
                        event_id = value
                elif name == "retry" and value.isascii() and value.isdigit():
                    digits = value.lstrip("0")
                    if len(digits) <= 19:
                        delay = int(digits) if digits else 0
                        if delay <= _MAX_RETRY:
                            retry = delay
                            self._retry_ms = delay
            elif data or event is not None or event_id is not None or retry is not None:
                out.append((event, "\n".join(data), event_id, retry))
                if event_id is not None:
                    self._last_id = event_id
                data = []
                event = event_id = None
                retry = None
        self._data = data
        self._event = event
        self._id = event_id
        self._retry = retry


def sole_sse_message(body: bytes, max_event_bytes: int | None = DEFAULT_MAX_EVENT_BYTES) -> Any:
    """The JSON-RPC message of a whole event stream that holds just that, else None (see
    ``mcpstream/_native.pyi``): written as the decoder's own use, as its definition reads."""
    decoder = SseDecoder(max_event_bytes)
    try:
        events = decoder.feed_jsonrpc(body)
        events.extend(decoder.finish_jsonrpc())
    except CodecError:
        return None
    if len(events) != 1 or decoder.last_event_id is not None or decoder.retry_ms is not None:
        return None
    event = events[0]
    if event.error is not None or len(event.messages) != 1:
        return None
    return event.messages[0]


def _to_sse_events(raw_events: list[_Raw]) -> list[SseEvent]:
    events = []
    for event, data, event_id, retry in raw_events:
        obj: SseEvent = new_object(SseEvent)
        _set_event(obj, event)
        _set_data(obj, data)
        _set_id(obj, event_id)
        _set_retry(obj, retry)
        events.append(obj)
    return events
