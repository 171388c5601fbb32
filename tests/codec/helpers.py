"""Helpers for the codec tests: feeding streams in pieces and comparing outcomes.

Events are compared as plain tuples ``(event, data, id, retry)`` and errors as
``(class, message)``, so that results of the two backends (whose classes differ) compare too.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

EventTuple = tuple[str | None, str, str | None, int | None]
ErrorTuple = tuple[type[BaseException], str]


def event_tuple(event: Any) -> EventTuple:
    """The four fields of an ``SseEvent`` of either backend."""
    return (event.event, event.data, event.id, event.retry)


def error_tuple(exc: BaseException) -> ErrorTuple:
    """An error as (class, message)."""
    return (type(exc), str(exc))


@dataclass
class Outcome:
    """What decoding a whole stream gave: the events, then the error (if any)."""

    events: list[EventTuple] = field(default_factory=list)
    error: ErrorTuple | None = None
    last_event_id: str | None = None
    retry_ms: int | None = None


def run_stream(
    backend: ModuleType,
    chunks: Iterable[bytes],
    max_event_bytes: int | None = 16 * 1024 * 1024,
    *,
    finish: bool = True,
) -> Outcome:
    """Feed ``chunks`` (then ``finish``) to a fresh ``SseDecoder``; stop at the first error."""
    decoder = backend.SseDecoder(max_event_bytes)
    outcome = Outcome()
    try:
        for chunk in chunks:
            outcome.events.extend(event_tuple(event) for event in decoder.feed(chunk))
        if finish:
            outcome.events.extend(event_tuple(event) for event in decoder.finish())
    except backend_errors() as exc:
        outcome.error = error_tuple(exc)
    outcome.last_event_id = decoder.last_event_id
    outcome.retry_ms = decoder.retry_ms
    return outcome


def backend_errors() -> tuple[type[BaseException], ...]:
    """The errors a decoder may raise on bad input."""
    from mcpstream.errors import CodecError

    return (CodecError,)


def cut(data: bytes, positions: Iterable[int]) -> list[bytes]:
    """``data`` cut at ``positions`` (in any order; duplicates make empty chunks)."""
    points = [0, *sorted(positions), len(data)]
    return [data[a:b] for a, b in itertools.pairwise(points)]


def every_chunking(data: bytes) -> list[list[bytes]]:
    """The whole stream, every single cut, and byte by byte."""
    ways = [[data], [data[i : i + 1] for i in range(len(data))]]
    ways.extend(cut(data, [i]) for i in range(1, len(data)))
    return ways


def decode_every_way(
    backend: ModuleType, data: bytes, max_event_bytes: int | None = 16 * 1024 * 1024
) -> Outcome:
    """Decode ``data`` cut every way of ``every_chunking``; all must agree; return the outcome."""
    first = run_stream(backend, [data], max_event_bytes)
    for chunks in every_chunking(data):
        assert run_stream(backend, chunks, max_event_bytes) == first, chunks
    return first


def events_of(backend: ModuleType, data: bytes | Sequence[bytes]) -> list[EventTuple]:
    """The events of a stream that must decode without error, checked for every chunking."""
    if isinstance(data, bytes):
        outcome = decode_every_way(backend, data)
    else:
        outcome = run_stream(backend, data)
    assert outcome.error is None, outcome.error
    return outcome.events
