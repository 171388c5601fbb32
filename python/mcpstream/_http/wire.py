"""What both drivers translate between the core's descriptions and httpx: requests and their
timeouts, the head of an answer, bodies decoded within a byte budget (``bodies``, re-exported
here), and failures of the HTTP stack.

One layer serves httpx and httpx2 clients alike: what differs between them (the ``Timeout``,
``Request`` and ``URL`` types, the exceptions) is looked up on the client's ``HttpStack``
(``stack``); the annotations name httpx's classes, whose API httpx2's share."""

from __future__ import annotations

import contextlib
import functools
import logging
import time
import weakref
from collections.abc import Callable
from http.cookiejar import CookieJar
from typing import Any

import httpx

from .._httpbase.bodies import PIECE_BYTES, BodyDecoder, abody_chunks, body_chunks
from .._httpbase.stack import HttpStack, failure_groups, http_errors, stack_of
from . import receive_buffer
from .core.steps import Failed, FailureKind, Head, HttpRequest
from .h1 import arrived_whole, whole_reader
from .h1.aio import AsyncHttp1
from .h1.base import Http1Base
from .h1.pool import Http1Request, Prepared, prepare, real_request
from .h1.sync import Sent, SyncHttp1
from .host_settings import host_timeout
from .httpx_clients import direct_transport, fields_owner

__all__ = [
    "PIECE_BYTES",
    "Answer",
    "BodyDecoder",
    "Lane",
    "Snippet",
    "abody_chunks",
    "arrived_body",
    "asend",
    "asend_whole",
    "body_chunks",
    "build_request",
    "callback_failed",
    "failure",
    "head",
    "head_fields",
    "http_errors",
    "lane",
    "lift_read_timeout",
    "logger",
    "send",
    "send_whole",
    "whole_body",
]

logger = logging.getLogger("mcpstream.transport")

# ``http_errors()`` (the stack's module): what sending a request or reading a body may raise, on
# every stack in use, reported to a flow as ``Failed`` (``except wire.http_errors():`` is
# evaluated only when something was raised).


def build_request(
    client: httpx.Client | httpx.AsyncClient,
    request: HttpRequest,
    extensions: dict[str, Any] | None = None,
    *,
    host: bool = False,
) -> httpx.Request:
    """The request of ``client`` for ``request`` (its timeouts as the ``Timeout`` of the
    client's stack: httpx2 takes no ``httpx.Timeout``, nor httpx an ``httpx2.Timeout``). On a
    ``host``'s client the client's own timeouts apply, within the request's, and mcpstream's
    where it set none (``host_timeout``)."""
    timeout = stack_of(client).timeout(request.timeout_s, request.connect_s)
    if host:
        timeout = host_timeout(client.timeout, timeout, within_own=True)
    return client.build_request(
        request.method,
        request.url,
        headers=dict(request.headers),
        content=request.body,
        timeout=timeout,
        extensions=extensions,
    )


def _timeouts(timeout_s: float, connect_s: float | None) -> dict[str, float | None]:
    """The ``timeout`` extension of a request of ``HttpRequest``'s ``timeout_s`` and
    ``connect_s`` (what ``httpx.Timeout.as_dict`` gives)."""
    connect = timeout_s if connect_s is None else connect_s
    return {"connect": connect, "read": timeout_s, "write": timeout_s, "pool": timeout_s}


def _direct_request(
    client: httpx.Client | httpx.AsyncClient,
    stack: HttpStack,
    request: HttpRequest,
    extensions: dict[str, Any] | None,
) -> httpx.Request | Http1Request | None:
    """The request for ``request`` to hand to the client's transport directly, or None when it
    must go through ``client.send``: a client not made by ``httpx_clients`` without proxies (a
    host's client keeps all its settings), a closed one, one holding cookies, or a URL with
    credentials in it (httpx turns them into basic auth). On the HTTP/1.1 transport of this
    package a request with a body is an ``Http1Request`` (see ``_fields``), else the stack's
    ``Request``."""
    transport = direct_transport(client)
    if transport is None or client.is_closed or holds_cookies(client):
        return None
    url = request.url
    if "@" in url.partition("://")[2].partition("/")[0]:
        return None
    ext: dict[str, Any] = {"timeout": _timeouts(request.timeout_s, request.connect_s)}
    if extensions:
        ext.update(extensions)
    body = request.body
    method = request.method
    if isinstance(transport, Http1Base) and (body is not None or method == "DELETE"):
        fields = _fields(client, stack, request)
        if fields is not None:
            if body is None:  # the closing DELETE (its stack ``Request`` has an empty body)
                return Http1Request(stack, method, _url(stack, url), [*fields], b"", ext)
            length = (b"Content-Length", b"%d" % len(body))
            return Http1Request(stack, method, _url(stack, url), [*fields, length], body, ext)
    return _stack_request(client, stack, request, ext)


def _stack_request(
    client: httpx.Client | httpx.AsyncClient,
    stack: HttpStack,
    request: HttpRequest,
    extensions: dict[str, Any],
) -> httpx.Request:
    """The stack's ``Request`` for ``request``, with the client's default headers."""
    # The client's default headers under those of the request, as ``client.build_request``
    # merges them: names compare without case (the defaults' names are in lower case).
    given = {name.lower() for name in request.headers}
    headers = {name: value for name, value in client.headers.items() if name not in given}
    headers.update(request.headers)
    made: httpx.Request = stack.httpx.Request(
        request.method,
        _url(stack, request.url),
        headers=headers,
        content=request.body,
        extensions=extensions,
    )
    return made


_FieldsKey = tuple[str, str, tuple[tuple[str, str | None], ...]]
_Template = tuple[tuple[tuple[bytes, bytes], ...] | None, int]
_FIELDS: weakref.WeakKeyDictionary[Any, dict[_FieldsKey, _Template]]
_FIELDS = weakref.WeakKeyDictionary()
"""By client (or by the group of clients that send the same default headers:
``fields_owner``), the fields of its requests by method, URL and headers (without the body's
``Content-Length``), the session id's value left out (``_SESSION_FIELD``), with the place of
the session id's field in them (-1: none): a session sends the same header block with every
request, and sessions to one server differ in their session id only."""

_MAX_FIELD_SETS = 64
"""Field sets kept per client: beyond it, all are forgotten (a client of many sessions)."""

_SESSION_FIELD = "mcp-session-id"
_VISIBLE = frozenset(chr(code) for code in range(0x21, 0x7F))
"""The characters a session id taken into a cached header block may have (the core takes
no other from a server): encoded as they are, as httpx encodes them."""


def _fields(
    client: httpx.Client | httpx.AsyncClient, stack: HttpStack, request: HttpRequest
) -> tuple[tuple[bytes, bytes], ...] | None:
    """The fields the stack's ``Request`` for ``request`` holds before its ``Content-Length``
    (the client's default headers merged, ``Host`` added, names and values checked and
    encoded; all of them for a request without a body), taken the first time from one made
    the usual way (``_stack_request``: a header it refuses raises as it does without this
    cache); None when that request's fields do not end with the ``Content-Length`` of its body
    (then it is made each time). The default headers of a client made by ``httpx_clients`` do
    not change. The session id (of visible ASCII) is put in the cached block in its place: a
    session per call builds no block, but for the first session to a server."""
    owner = fields_owner(client)
    known = _FIELDS.get(owner)
    if known is None:
        known = _FIELDS[owner] = {}
    items: tuple[tuple[str, str | None], ...] = tuple(request.headers.items())
    session: str | None = None
    for position, (name, value) in enumerate(items):
        if name.lower() == _SESSION_FIELD and value and set(value) <= _VISIBLE:
            session = value
            items = (*items[:position], (name, None), *items[position + 1 :])
            break
    key = (request.method, request.url, items)
    template = known.get(key)
    if template is None:
        fields = _made_fields(client, stack, request)
        index = -1
        if fields is not None and session is not None:
            index = next(
                (i for i, (name, _) in enumerate(fields) if name.lower() == b"mcp-session-id"),
                -1,
            )
            if index < 0:  # (not where it was looked for: made each time)
                return fields
        if len(known) >= _MAX_FIELD_SETS:
            known.clear()
        known[key] = (fields, index)
        return fields
    fields, index = template
    if fields is None or session is None or index < 0:
        return fields
    field = (fields[index][0], session.encode("ascii"))
    return (*fields[:index], field, *fields[index + 1 :])


def _made_fields(
    client: httpx.Client | httpx.AsyncClient, stack: HttpStack, request: HttpRequest
) -> tuple[tuple[bytes, bytes], ...] | None:
    """The fields of ``_fields``, from the stack's ``Request`` made for ``request``."""
    raw = _stack_request(client, stack, request, {}).headers.raw
    body = request.body
    if body is None:
        return tuple(raw) if raw else None
    if raw and raw[-1] == (b"Content-Length", b"%d" % len(body)):
        return tuple(raw[:-1])
    return None


@functools.lru_cache(maxsize=64)
def _url(stack: HttpStack, url: str) -> httpx.URL:
    """``url`` parsed once into the stack's ``URL`` (immutable): a session sends every request
    to it."""
    parsed: httpx.URL = stack.httpx.URL(url)
    return parsed


def _sent(
    client: httpx.Client | httpx.AsyncClient,
    response: httpx.Response,
    request: httpx.Request | Http1Request,
) -> httpx.Response:
    response.request = request  # type: ignore[assignment]  # an Http1Request: see _fields
    receive_buffer.install(response)
    if "set-cookie" in response.headers:
        # What ``client.send`` does; the next requests then go through it, with the cookies.
        response.request = real_request(request)
        client.cookies.extract_cookies(response)
    return response


def send(
    client: httpx.Client,
    request: HttpRequest,
    extensions: dict[str, Any] | None = None,
    *,
    host: bool = False,
) -> httpx.Response:
    """Send ``request`` and return the streamed response.

    For a client of ``httpx_clients`` the httpx request is built here and handed to the
    client's transport (``BaseTransport.handle_request``, httpx's documented transport API),
    which is all that ``client.send`` does for such a client besides what it does not need:
    merging a base URL, parameters and cookies (it has none: see ``_direct_request``), an auth
    flow (it has no auth), following redirects (it follows none), event hooks (it has none) and
    timing the response. The client's default headers, the timeouts, its connection pool (and
    TLS context) are kept; clients with proxies go through ``client.send``. A ``host``'s client
    sends with its own timeouts (``build_request``)."""
    stack = stack_of(client)
    direct = _direct_request(client, stack, request, extensions)
    return _send(client, stack, request, direct, host, extensions)


def _send(
    client: httpx.Client,
    stack: HttpStack,
    request: HttpRequest,
    direct: httpx.Request | Http1Request | None,
    host: bool,
    extensions: dict[str, Any] | None,
) -> httpx.Response:
    """``send`` of ``request``, ``direct`` the request for the client's transport (None: it
    goes through ``client.send``)."""
    if direct is None:
        # The core follows the redirects it allows (``McpHttpProtocol.redirect_target``),
        # whatever the host's client says.
        return client.send(
            build_request(client, request, extensions, host=host),
            stream=True,
            follow_redirects=False,
        )
    try:
        response = direct_transport(client).handle_request(direct)
    except stack.httpx.RequestError as exc:
        exc.request = real_request(direct)
        raise
    return _sent(client, response, direct)


Answer = httpx.Response | tuple[int, dict[str, str], bytes]
"""What ``send_whole`` and a ``Lane`` give for a request: the answer's status, its header
fields (as ``Head`` has them) and its whole body when all of it arrived with the head (no
stack ``Response`` made; the connection is back in the pool), else the stack's streamed
response."""


def send_whole(
    client: httpx.Client,
    request: HttpRequest,
    extensions: dict[str, Any] | None = None,
    *,
    host: bool = False,
) -> Answer:
    """``send``, taking a small answer whole where it can: the answer's status, fields and
    whole body when ``request`` goes to the HTTP/1.1 transport of this package and all of the
    answer came in its first read, with no coding to undo and no cookie to keep (no stack
    ``Response`` is made: the connection is back in the pool); else the streamed response,
    as ``send`` returns it."""
    stack = stack_of(client)
    direct = _direct_request(client, stack, request, extensions)
    transport = direct_transport(client)
    if not isinstance(direct, Http1Request) or not isinstance(transport, SyncHttp1):
        return _send(client, stack, request, direct, host, extensions)
    try:
        framing, body, connection, whole = transport.receive_whole(transport.send(direct))
    except stack.httpx.RequestError as exc:
        exc.request = real_request(direct)
        raise
    return _answer(client, transport, direct, (framing, body, connection), whole)


async def asend(
    client: httpx.AsyncClient, request: HttpRequest, extensions: dict[str, Any] | None = None
) -> httpx.Response:
    """``send`` for an ``httpx.AsyncClient`` (``AsyncBaseTransport.handle_async_request``)."""
    stack = stack_of(client)
    direct = _direct_request(client, stack, request, extensions)
    return await _asend(client, stack, request, direct, extensions)


async def _asend(
    client: httpx.AsyncClient,
    stack: HttpStack,
    request: HttpRequest,
    direct: httpx.Request | Http1Request | None,
    extensions: dict[str, Any] | None,
) -> httpx.Response:
    """``asend`` of ``request``, ``direct`` the request for the client's transport (None: it
    goes through ``client.send``)."""
    if direct is None:
        return await client.send(
            build_request(client, request, extensions), stream=True, follow_redirects=False
        )
    try:
        response = await direct_transport(client).handle_async_request(direct)
    except stack.httpx.RequestError as exc:
        exc.request = real_request(direct)
        raise
    return _sent(client, response, direct)


async def asend_whole(
    client: httpx.AsyncClient, request: HttpRequest, extensions: dict[str, Any] | None = None
) -> Answer:
    """``send_whole`` for an ``httpx.AsyncClient``: the status, fields and whole body of a
    small answer that arrived with its head (the connection back in the pool), else the streamed
    response, as ``asend`` returns it."""
    stack = stack_of(client)
    direct = _direct_request(client, stack, request, extensions)
    transport = direct_transport(client)
    if not isinstance(direct, Http1Request) or not isinstance(transport, AsyncHttp1):
        return await _asend(client, stack, request, direct, extensions)
    try:
        received = await transport.exchange(direct)
    except stack.httpx.RequestError as exc:
        exc.request = real_request(direct)
        raise
    return await _aanswer(client, transport, direct, received)


async def _aanswer(
    client: httpx.Client | httpx.AsyncClient,
    transport: Any,
    request: Http1Request,
    received: tuple[Any, Any, Any],
) -> Answer:
    """``_answer`` of the async transport, whose body holds what arrived (``arrived_whole``)
    and is closed when taken whole (its connection goes back)."""
    body = received[1]
    whole = body.arrived_whole()  # (reads nothing)
    try:
        answer = _answer(client, transport, request, received, whole)
        if isinstance(answer, tuple):
            await body.aclose()
    except BaseException:
        body.drop()
        raise
    return answer


def head_fields(stack: HttpStack, framing: Any) -> dict[str, str]:
    """``dict(Headers(framing.headers).items())`` of ``stack`` for a response ``framing`` (the
    codec's ``Http1Response``) holding its head: names in lower case, the values of a repeated
    name joined with ", ". Made by the codec when every name and value is ASCII (then httpx
    decodes them all as ASCII), else by the stack's ``Headers`` (its fallback encodings)."""
    fields: dict[str, str] | None = framing.fields()
    if fields is None:
        return dict(stack.httpx.Headers(framing.headers).items())
    return fields


def _answer(
    client: httpx.Client | httpx.AsyncClient,
    transport: Any,
    request: Http1Request,
    received: tuple[Any, Any, Any],
    whole: bytes | None,
) -> Answer:
    """The ``Answer`` of the HTTP/1.1 transport's ``received`` head (framing, body and
    connection) to ``request``, ``whole`` its whole body when it came with the head: taken as
    it is unless the stack must see it (a coding to undo, a cookie for the client's jar)."""
    framing, body, connection = received
    if whole is not None:
        fields = head_fields(transport._stack, framing)
        if "set-cookie" not in fields and "content-encoding" not in fields:
            return framing.status, fields, whole
        if body is None:  # (taken whole by the sync transport: a body of what was read)
            body = transport.read_body(framing, whole, request)
    return _sent(client, transport._response(framing, body, connection, request), request)


def holds_cookies(client: httpx.Client | httpx.AsyncClient) -> bool:
    """Whether the cookie jar of ``client`` holds a cookie.

    A jar of the standard library's kind is empty when its index is, so the index is looked at
    rather than the jar walked; an index emptied in part (a cookie cleared leaves its domain's
    entry) is walked."""
    # perf: the walk ``bool(client.cookies)`` makes costs four Python calls for no cookie.
    cookies = client.cookies
    jar = cookies.jar
    index = getattr(jar, "_cookies", None)
    if type(index) is dict and not index and type(jar).__iter__ is CookieJar.__iter__:
        return False
    return bool(cookies)


class Lane:
    """The one-shot POSTs of a session, sent as ``send`` sends them when its client's transport
    is the HTTP/1.1 transport of this package: what every one of them shares (the fields with
    the client's defaults merged, the URL, the origin, the encoded head short of its
    ``Content-Length``) made once (``lane``), from a request made the usual way, for as long as
    the session's headers stay the same; each POST then costs its body's framing and its
    timeouts only (``exchange``)."""

    __slots__ = ("_client", "_closes", "_fields", "_key", "_start", "_transport", "_url")

    def __init__(
        self, client: httpx.Client | httpx.AsyncClient, transport: Any, model: Http1Request
    ) -> None:
        prepared = prepare(transport._stack, model, transport._heads)
        fields = model.headers.raw[:-1]  # without the model's Content-Length
        start, chunked, closes = transport._heads.start(b"POST", model.url.raw_path, fields)
        if chunked:
            raise ValueError("a chunked request has no Content-Length to add")
        self._client, self._transport = client, transport
        self._fields, self._url, self._key = fields, model.url, prepared.key
        self._start, self._closes = start, closes

    def _made(
        self, body: bytes, timeout_s: float, connect_s: float | None
    ) -> tuple[Http1Request, Prepared] | None:
        """The ``Http1Request`` of a POST of ``body`` and its ``Prepared`` head; None when the
        client must send it (closed, or holding cookies since: see ``_direct_request``)."""
        client = self._client
        if client.is_closed or holds_cookies(client):
            return None
        length = b"%d" % len(body)
        extensions: dict[str, Any] = {"timeout": _timeouts(timeout_s, connect_s)}
        fields = [*self._fields, (b"Content-Length", length)]
        request = Http1Request(self._transport._stack, "POST", self._url, fields, body, extensions)
        head = b"%bContent-Length: %b\r\n\r\n" % (self._start, length)
        return request, Prepared(self._key, head, body, False, self._closes)

    def send(self, body: bytes, timeout_s: float, connect_s: float | None) -> Sent | None:
        """Write a POST of ``body`` (``HttpRequest``'s timeouts) as ``send`` does, on an
        ``httpx.Client``: the ``Sent`` request, whose answer ``receive`` reads (the caller may
        work meanwhile, while the server does; or give it up: ``Sent.abandon``). None when
        ``send`` is to send it (nothing was sent)."""
        made = self._made(body, timeout_s, connect_s)
        if made is None:
            return None
        request, prepared = made
        try:
            sent: Sent = self._transport.send(request, prepared)
        except self._transport._stack.httpx.RequestError as exc:
            _name_request(exc, request)
            raise
        return sent

    def receive(self, sent: Sent) -> Answer:
        """The ``Answer`` to the ``Sent`` request, once its head arrived."""
        transport = self._transport
        try:
            framing, body, connection, whole = transport.receive_whole(sent)
        except transport._stack.httpx.RequestError as exc:
            _name_request(exc, sent.request)
            raise
        return _answer(self._client, transport, sent.request, (framing, body, connection), whole)

    async def aexchange(
        self, body: bytes, timeout_s: float, connect_s: float | None
    ) -> Answer | None:
        """``send`` and ``receive`` for an ``httpx.AsyncClient``: the ``Answer`` to the POST of
        ``body``, once its head arrived. None when ``send`` is to send it (nothing was
        sent)."""
        made = self._made(body, timeout_s, connect_s)
        if made is None:
            return None
        request, prepared = made
        transport = self._transport
        try:
            received = await transport.exchange(request, prepared)
        except transport._stack.httpx.RequestError as exc:
            _name_request(exc, request)
            raise
        return await _aanswer(self._client, transport, request, received)


def _name_request(exc: Any, request: Http1Request) -> None:
    """Name in ``exc`` the stack's request, as ``send`` does, not the ``Http1Request``."""
    exc.request = request.materialize()


def lane(client: httpx.Client | httpx.AsyncClient, request: HttpRequest) -> Lane | None:
    """The ``Lane`` of POSTs like ``request`` (a POST with a body), or None when ``send`` is to
    send them: the client's transport is not the HTTP/1.1 transport of this package, or the
    request is not one it takes directly (see ``_direct_request``), or not one it can write
    (the error is then ``send``'s to raise)."""
    transport = direct_transport(client)
    if not isinstance(transport, Http1Base) or request.body is None:
        return None
    stack = stack_of(client)
    model = _direct_request(client, stack, request, None)
    if not isinstance(model, Http1Request):
        return None
    try:
        return Lane(client, transport, model)
    except (ValueError, stack.httpx.HTTPError):
        return None


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
    # A body read of an ``Http1Request``'s response: httpx names the response's request in the
    # error; the host sees the stack's own.
    with contextlib.suppress(AttributeError, RuntimeError):
        named = exc.request  # type: ignore[attr-defined]
        if isinstance(named, Http1Request):
            exc.request = named.materialize()  # type: ignore[attr-defined]
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


def whole_body(response: httpx.Response) -> Callable[[int | None], Any] | None:
    """How to read the body of ``response`` into one ``bytes`` object at once (a function of
    the most bytes to read, None for no bound; a coroutine function for an async response),
    where its stream is the body of mcpstream's HTTP/1.1 transport and needs no decoding: the
    reads then go straight into the body's buffer. None elsewhere (the body is read chunk by
    chunk: ``body_chunks``)."""
    if response.is_stream_consumed or BodyDecoder.of(response) is not None:
        return None
    return whole_reader(response.stream)


def arrived_body(response: httpx.Response) -> bytes | None:
    """The body of ``response``, of mcpstream's async HTTP/1.1 transport, when all of it
    arrived with the head and needs no decoding (reads nothing: the body is then closed as
    usual); None elsewhere (it is read as usual)."""
    if response.is_stream_consumed or BodyDecoder.of(response) is not None:
        return None
    return arrived_whole(response.stream)


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


def detached_failed(server_id: str, exc: BaseException) -> None:
    """Log a detached flow (a cancellation after a timeout) that raised: no call waits for
    it."""
    logger.warning(
        "a background step of server %r failed: %s", server_id, type(exc).__name__, exc_info=exc
    )
