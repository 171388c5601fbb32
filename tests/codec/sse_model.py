"""A reference model of the SseDecoder contract, written for clarity, not speed.

It decodes a whole stream (or a prefix of one) in one go, line by line, straight from the rules
in ``mcpstream/_native.pyi``; it shares no code with either backend. The property tests check
every backend against it, chunk by chunk.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mcpstream.errors import InvalidUtf8Error, SseEventTooLargeError

from .helpers import ErrorTuple, EventTuple

BOM = b"\xef\xbb\xbf"
LINE_END = re.compile(rb"\r\n|\r|\n")
MAX_RETRY = 2**63 - 1


@dataclass
class ModelState:
    """The model's view after some bytes: the events so far and the decoder's properties."""

    events: list[EventTuple] = field(default_factory=list)
    error: ErrorTuple | None = None
    event_in_progress: bool = False
    last_event_id: str | None = None
    retry_ms: int | None = None


def _is_retry(value: str) -> bool:
    if not value or any(c not in "0123456789" for c in value):
        return False
    digits = value.lstrip("0") or "0"
    return len(digits) < 19 or (len(digits) == 19 and digits <= str(MAX_RETRY))


def model(stream: bytes, limit: int | None, *, at_end: bool) -> ModelState:
    """Decode ``stream``; ``at_end`` says whether it is the whole stream (then ``finish``).

    Without ``at_end`` the last, unterminated line is only counted against the cap.
    """
    state = ModelState()
    if not at_end and len(stream) < 3 and BOM.startswith(stream):
        state.event_in_progress = bool(stream)  # maybe a BOM: not decided yet
        return state
    pos = 3 if stream.startswith(BOM) else 0
    size = 0  # bytes of the non-comment lines since the last blank line
    data: list[str] = []
    event: str | None = None
    event_id: str | None = None
    retry: int | None = None

    def dispatch() -> None:
        nonlocal data, event, event_id, retry
        if data or event is not None or event_id is not None or retry is not None:
            state.events.append((event, "\n".join(data), event_id, retry))
            if event_id is not None:
                state.last_event_id = event_id
        data, event, event_id, retry = [], None, None, None

    while pos < len(stream):
        match = LINE_END.search(stream, pos)
        terminated = match is not None
        line = stream[pos : match.start()] if match else stream[pos:]
        if limit is not None and size + len(line) > limit:
            exc = SseEventTooLargeError(
                f"SSE event exceeds the limit of {limit} bytes (max_event_bytes)", limit
            )
            state.error = (type(exc), str(exc))
            return state
        if not terminated and not at_end:
            state.event_in_progress = True
            break
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            offset = pos + exc.start
            if not terminated and exc.reason == "unexpected end of data":
                message = f"incomplete UTF-8 sequence at end of stream (byte offset {offset})"
            else:
                message = f"invalid UTF-8 at byte offset {offset}"
            state.error = (InvalidUtf8Error, message)
            return state
        if text == "":
            dispatch()
            size = 0
        elif not text.startswith(":"):
            size += len(line)
            name, colon, value = text.partition(":")
            if colon and value.startswith(" "):
                value = value[1:]
            if name == "data":
                data.append(value)
            elif name == "event":
                event = value
            elif name == "id":
                if "\x00" not in value:
                    event_id = value
            elif name == "retry" and _is_retry(value):
                retry = int(value.lstrip("0") or "0")
                state.retry_ms = retry
        if match is None:
            break
        pos = match.end()
    if at_end:
        dispatch()
    else:
        state.event_in_progress = state.event_in_progress or size > 0
    return state
