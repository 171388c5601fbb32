"""What both drivers translate between the core's descriptions and httpx: requests and their
timeouts, the head of an answer, bodies decoded within a byte budget, and failures of the HTTP
stack.

One layer serves httpx and httpx2 clients alike: what differs between them (the ``Timeout``,
``Request`` and ``URL`` types, the exceptions) is looked up on the client's ``HttpStack``
(``stack``); the annotations name httpx's classes, whose API httpx2's share."""

from __future__ import annotations

import functools
import logging
import time
import zlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx

from . import receive_buffer
from .core.steps import Failed, FailureKind, Head, HttpRequest
from .httpx_clients import direct_transport
from .stack import HttpStack, failure_groups, http_errors, loaded_stacks, stack_of

__all__ = [
    "PIECE_BYTES",
    "BodyDecoder",
    "Snippet",
    "abody_chunks",
    "asend",
    "body_chunks",
    "build_request",
    "callback_failed",
    "failure",
    "head",
    "http_errors",
    "lift_read_timeout",
    "logger",
    "send",
]

logger = logging.getLogger("mcpstream.transport")

# ``http_errors()`` (the stack's module): what sending a request or reading a body may raise, on
# every stack in use, reported to a flow as ``Failed`` (``except wire.http_errors():`` is
# evaluated only when something was raised).


def build_request(
    client: httpx.Client | httpx.AsyncClient,
    request: HttpRequest,
    extensions: dict[str, Any] | None = None,
) -> httpx.Request:
    """The request of ``client`` for ``request`` (its timeouts as the ``Timeout`` of the
    client's stack: httpx2 takes no ``httpx.Timeout``, nor httpx an ``httpx2.Timeout``)."""
    timeout = stack_of(client).timeout(request.timeout_s, request.connect_s)
    return client.build_request(
        request.method,
        request.url,
        headers=dict(request.headers),
        content=request.body,
        timeout=timeout,
        extensions=extensions,
    )


def _timeouts(request: HttpRequest) -> dict[str, float | None]:
    """The ``timeout`` extension of ``request`` (what ``httpx.Timeout.as_dict`` gives)."""
    timeout_s = request.timeout_s
    connect_s = timeout_s if request.connect_s is None else request.connect_s
    return {"connect": connect_s, "read": timeout_s, "write": timeout_s, "pool": timeout_s}


def _direct_request(
    client: httpx.Client | httpx.AsyncClient,
    stack: HttpStack,
    request: HttpRequest,
    extensions: dict[str, Any] | None,
) -> httpx.Request | None:
    """The httpx request for ``request`` to hand to the client's transport directly, or None
    when it must go through ``client.send``: a client not made by ``httpx_clients`` without
    proxies (a host's client keeps all its settings), a closed one, one holding cookies, or a
    URL with credentials in it (httpx turns them into basic auth)."""
    if direct_transport(client) is None or client.is_closed or client.cookies:
        return None
    url = request.url
    if "@" in url.partition("://")[2].partition("/")[0]:
        return None
    ext: dict[str, Any] = {"timeout": _timeouts(request)}
    if extensions:
        ext.update(extensions)
    # The client's default headers under those of the request, as ``client.build_request``
    # merges them: names compare without case (the defaults' names are in lower case).
    given = {name.lower() for name in request.headers}
    headers = {name: value for name, value in client.headers.items() if name not in given}
    headers.update(request.headers)
    made: httpx.Request = stack.httpx.Request(
        request.method, _url(stack, url), headers=headers, content=request.body, extensions=ext
    )
    return made


@functools.lru_cache(maxsize=64)
def _url(stack: HttpStack, url: str) -> httpx.URL:
    """``url`` parsed once into the stack's ``URL`` (immutable): a session sends every request
    to it."""
    parsed: httpx.URL = stack.httpx.URL(url)
    return parsed


def _sent(
    client: httpx.Client | httpx.AsyncClient, response: httpx.Response, request: httpx.Request
) -> httpx.Response:
    response.request = request
    receive_buffer.install(response)
    if "set-cookie" in response.headers:
        # What ``client.send`` does; the next requests then go through it, with the cookies.
        client.cookies.extract_cookies(response)
    return response


def send(
    client: httpx.Client, request: HttpRequest, extensions: dict[str, Any] | None = None
) -> httpx.Response:
    """Send ``request`` and return the streamed response.

    For a client of ``httpx_clients`` the httpx request is built here and handed to the
    client's transport (``BaseTransport.handle_request``, httpx's documented transport API),
    which is all that ``client.send`` does for such a client besides what it does not need:
    merging a base URL, parameters and cookies (it has none: see ``_direct_request``), an auth
    flow (it has no auth), following redirects (it follows none), event hooks (it has none) and
    timing the response. The client's default headers, the timeouts, its connection pool (and
    TLS context) are kept; clients with proxies go through ``client.send``."""
    stack = stack_of(client)
    direct = _direct_request(client, stack, request, extensions)
    if direct is None:
        # The core follows the redirects it allows (``McpHttpProtocol.redirect_target``),
        # whatever the host's client says.
        return client.send(
            build_request(client, request, extensions), stream=True, follow_redirects=False
        )
    try:
        response = direct_transport(client).handle_request(direct)
    except stack.httpx.RequestError as exc:
        exc.request = direct
        raise
    return _sent(client, response, direct)


async def asend(
    client: httpx.AsyncClient, request: HttpRequest, extensions: dict[str, Any] | None = None
) -> httpx.Response:
    """``send`` for an ``httpx.AsyncClient`` (``AsyncBaseTransport.handle_async_request``)."""
    stack = stack_of(client)
    direct = _direct_request(client, stack, request, extensions)
    if direct is None:
        return await client.send(
            build_request(client, request, extensions), stream=True, follow_redirects=False
        )
    try:
        response = await direct_transport(client).handle_async_request(direct)
    except stack.httpx.RequestError as exc:
        exc.request = direct
        raise
    return _sent(client, response, direct)


def head(response: httpx.Response) -> Head:
    """The ``Head`` of ``response`` (header names in lower case, repeated ones joined)."""
    return Head(time.monotonic(), response.status_code, dict(response.headers.items()))


def lift_read_timeout(response: httpx.Response) -> None:
    """Let the body of ``response`` be idle for as long as the server likes (``ReadChunk(None)``).

    The request's read timeout bounded the wait for the head (and for an error body); httpcore
    reads the ``timeout`` request extension again at every read of the body, so clearing
    ``read`` lifts the bound from now on. A client whose transport ignores the extension keeps
    its read timeout, and the GET stream is then reconnected after an idle spell.
    """
    timeouts = response.request.extensions.get("timeout")
    if isinstance(timeouts, dict):
        timeouts["read"] = None


def failure(exc: BaseException) -> Failed:
    """``exc``, raised by the HTTP stack (or a reader thread), as the core's ``Failed``: sorted
    by the groups of whichever stack raised it (an httpx2 failure is sorted as its httpx twin,
    and so reaches the host as the same ``mcpstream.errors`` class)."""
    connect_timeout, timeout, transport = failure_groups(exc)
    if connect_timeout:
        kind = FailureKind.CONNECT_TIMEOUT
    elif timeout:
        kind = FailureKind.TIMEOUT
    elif transport:
        kind = FailureKind.NETWORK
    else:
        kind = FailureKind.OTHER
    return Failed(time.monotonic(), kind, exc)


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
    transport does not ask for (see ``ACCEPT_ENCODING`` of the core) are left as they are, as
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


class Snippet:
    """The first bytes of a body, at most about ``limit`` of them (None: all of them)."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self._parts: list[bytes] = []
        self._size = 0

    def full_with(self, chunk: bytes) -> bool:
        """Add ``chunk``; True once the limit is reached."""
        self._parts.append(chunk)
        self._size += len(chunk)
        return self.limit is not None and self._size >= self.limit

    @property
    def data(self) -> bytes:
        """The bytes so far."""
        return b"".join(self._parts)


def callback_failed(server_id: str) -> None:
    """Log the exception of a notification callback (the stream goes on)."""
    logger.warning("the notification callback of server %r raised", server_id, exc_info=True)
