"""Response bodies decoded within a byte budget: the content codings the clients here ask for
(:data:`ACCEPT_ENCODING`) are undone a bounded piece at a time (:class:`BodyDecoder`), so that
whoever counts the pieces (the transports' ``max_event_bytes``, the OAuth drivers'
``max_document_bytes``) stops before a gzip bomb is inflated. Shared by the transports' drivers
(through ``wire``) and the OAuth drivers (``oauth._flow``); it imports neither, so both can.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx

from .codings import ACCEPT_ENCODING
from .stack import loaded_stacks

__all__ = [
    "ACCEPT_ENCODING",
    "PIECE_BYTES",
    "BodyDecoder",
    "abody_chunks",
    "body_chunks",
]

PIECE_BYTES = 256 * 1024
"""The most bytes one network read may decompress into at once (``BodyDecoder``)."""


class _Inflate:
    """One gzip or deflate layer, decompressed ``PIECE_BYTES`` at a time. A deflate body may be
    zlib-wrapped (as RFC 9110 says) or raw (as some servers send it): the first bytes decide,
    as in httpx."""

    def __init__(self, gzip: bool) -> None:
        self._zlib = zlib.decompressobj(zlib.MAX_WBITS | 16 if gzip else zlib.MAX_WBITS)
        self._undecided = not gzip

    def decode(self, data: bytes) -> Iterator[bytes]:
        while True:
            try:
                piece = self._zlib.decompress(data, PIECE_BYTES)
            except zlib.error as exc:
                if not self._undecided:
                    raise httpx.DecodingError(f"the body cannot be decompressed: {exc}") from exc
                self._undecided = False
                self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)
                continue
            self._undecided = False
            if piece:
                yield piece
            data = self._zlib.unconsumed_tail
            if not data and len(piece) < PIECE_BYTES:
                return

    def flush(self) -> Iterator[bytes]:
        yield from self.decode(b"")
        if tail := self._zlib.flush():
            yield tail


class BodyDecoder:
    """The content codings of a body (``gzip``, ``deflate``, several in a row), undone piece by
    piece: every piece is ``PIECE_BYTES`` at most, whatever the ratio of a bomb, so that the
    byte budget of a body or an event is checked before the next piece is made. Codings the
    transport does not ask for (:data:`ACCEPT_ENCODING`) are left as they are, as
    httpx leaves those it does not know."""

    def __init__(self, codings: list[str]) -> None:
        # The last coding applied is the first undone.
        self._layers = [_Inflate(coding != "deflate") for coding in reversed(codings)]

    @classmethod
    def of(cls, response: httpx.Response) -> BodyDecoder | None:
        """The decoder of ``response``, or None when its body is not compressed."""
        header = response.headers.get("content-encoding")
        if not header:
            return None
        codings = [c.strip().lower() for c in header.split(",")]
        codings = [c for c in codings if c in ("gzip", "x-gzip", "deflate")]
        return cls(codings) if codings else None

    def _through(self, pieces: Iterator[bytes], index: int) -> Iterator[bytes]:
        for piece in pieces:
            yield from self._layers[index].decode(piece)

    def decode(self, data: bytes, *, final: bool = False) -> Iterator[bytes]:
        """The decoded pieces of the next raw ``data`` (``final``: the body ended after it)."""
        pieces: Iterator[bytes] = iter((data,))
        for index, layer in enumerate(self._layers):
            pieces = self._through(pieces, index)
            if final:
                pieces = _then(pieces, layer.flush)
        return pieces


def _then(pieces: Iterator[bytes], flush: Any) -> Iterator[bytes]:
    yield from pieces
    yield from flush()


def _read_already(response: httpx.Response) -> bytes | None:
    """The content of a response that was read before it reached the transport (a host's
    transport may answer with one, as ``httpx.MockTransport`` does), as httpx decoded it."""
    if not response.is_stream_consumed:
        return None
    try:
        return response.content
    except tuple(stack.httpx.ResponseNotRead for stack in loaded_stacks()):
        return None


def body_chunks(response: httpx.Response) -> Iterator[bytes]:
    """The body of ``response``, decompressed by ``BodyDecoder`` (raw when not compressed)."""
    if (content := _read_already(response)) is not None:
        return iter((content,))
    decoder = BodyDecoder.of(response)
    if decoder is None:
        return response.iter_raw()
    return _decoded(response.iter_raw(), decoder)


def _decoded(raw: Iterator[bytes], decoder: BodyDecoder) -> Iterator[bytes]:
    for data in raw:
        yield from decoder.decode(data)
    yield from decoder.decode(b"", final=True)


def abody_chunks(response: httpx.Response) -> AsyncIterator[bytes]:
    """``body_chunks`` of an async ``response``."""
    if (content := _read_already(response)) is not None:
        return _once(content)
    decoder = BodyDecoder.of(response)
    if decoder is None:
        return response.aiter_raw()
    return _adecoded(response.aiter_raw(), decoder)


async def _once(content: bytes) -> AsyncIterator[bytes]:
    yield content


async def _adecoded(raw: AsyncIterator[bytes], decoder: BodyDecoder) -> AsyncIterator[bytes]:
    async for data in raw:
        for piece in decoder.decode(data):
            yield piece
    for piece in decoder.decode(b"", final=True):
        yield piece
