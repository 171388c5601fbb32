"""Helpers for the HTTP/1.1 framing tests: reading a response from chunks, as an outcome."""

from __future__ import annotations

from collections.abc import Iterable
from types import ModuleType
from typing import Any

from mcpstream.errors import CodecError

from .helpers import every_chunking

Outcome = tuple[Any, ...]
"""``("ok", status, reason, headers, body, keep_alive, framing, trailing, fields)`` or
``("error", message)`` (``fields``: ``fields()`` as a list of items, in order)."""


def read_response(
    backend: ModuleType,
    chunks: Iterable[bytes],
    *,
    head_request: bool = False,
    eof: bool = True,
    skip: int | None = None,
    **limits: int,
) -> Outcome:
    """Feed ``chunks`` to a fresh ``Http1Response``, then the EOF when ``eof`` and the response
    is not complete; the outcome. With ``skip``, body data sure to come (``body_ahead``) is
    taken past ``feed`` (``skip_body``), at most ``skip`` bytes at a time, as a transport reading
    into a body's buffer takes it."""
    response = backend.Http1Response(head_request=head_request, **limits)
    body = []
    try:
        for chunk in chunks:
            while skip is not None and chunk and (ahead := response.body_ahead):
                taken = min(ahead, skip, len(chunk))
                response.skip_body(taken)
                body.append(chunk[:taken])
                chunk = chunk[taken:]
            body.extend(response.feed(chunk))
        if eof and not response.complete:
            response.feed_eof()
    except CodecError as exc:
        assert type(exc) is CodecError
        return ("error", str(exc))
    return (
        "ok" if response.complete else "incomplete",
        response.status,
        response.reason,
        response.headers,
        b"".join(body),
        response.keep_alive,
        response.framing,
        response.trailing,
        None if (fields := response.fields()) is None else list(fields.items()),
    )


def read_every_way(backend: ModuleType, data: bytes, **options: Any) -> Outcome:
    """The outcome of ``data``, checked to be the same for every way of cutting it."""
    first = read_response(backend, [data], **options)
    for chunks in every_chunking(data):
        assert read_response(backend, chunks, **options) == first, chunks
    return first
