"""The HTTP+SSE transport of MCP 2024-11-05 (deprecated, still deployed), as one more flow of
the core: the fallback the spec's backward-compatibility section describes.

A client POSTs its first message (``initialize``) to the server URL; a 400, 404 or 405 answer
without a recognised modern error means a server of the old transport, so the client GETs the
URL expecting ``text/event-stream`` and waits for the ``endpoint`` event: the URL to POST every
message to. Each POST is only acknowledged (202); every response, notification and server
request comes on the one stream, responses matched to their calls by id.

* ``SseStream``: the state of one such stream: its decoder, the endpoint, the calls waiting for
  their responses (by id), and how it ended.
* ``stream_flow``: the stream from its GET to its end (run in the background, ``OpenStream``):
  the endpoint event awaited within a bounded wait and checked (on the server's origin, printable,
  at most ``ENDPOINT_MAX_CHARS``), then every event read: responses handed to their waiting calls
  (``Notify``), notifications routed, server requests answered (POSTed to the endpoint).
* ``open_flow``: start the stream and wait for its endpoint; ``sse_call_flow``: one message
  POSTed to the endpoint and its response awaited (``Await``) within the call's deadline;
  ``initialize_flow``: ``initialize`` POSTed to the URL, falling back to the HTTP+SSE transport
  on 400/404/405.
* ``NegotiationCache`` (``NEGOTIATED``, one per process): what negotiation found per origin and
  path (``"modern"``, ``"legacy"`` or ``"http+sse"``), as the spec advises, so that a second
  client to the same server probes nothing.

Every limit is the rest's: ``max_event_bytes`` caps each event (the endpoint's too), a call's
deadline holds end to end, errors are the transport's (``mcpstream.errors``) with the server's
URL and the endpoint (its query names the session) redacted.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from dataclasses import replace
from typing import Any, TypeVar
from urllib.parse import urljoin, urlsplit

from ... import codec
from ..._text import sanitize
from ...errors import (
    CodecError,
    McpHttpTransportError,
    McpHttpTransportProtocolError,
    McpHttpTransportResponseTooLargeError,
    McpHttpTransportSessionExpiredError,
    McpHttpTransportTimeoutError,
)
from ...jsonrpc import (
    JsonRpcId,
    JsonRpcNotification,
    JsonRpcRequest,
    JsonRpcResponse,
    build_jsonrpc_notification,
)
from .advice import likely_endpoint
from .cancel import (
    ABANDONED_REASON,
    CANCEL_TIMEOUT_S,
    CANCELLED_NOTIFICATION,
    Abandoned,
    cancel_params,
    timeout_reason,
)
from .flows import _answer_in_background, _deliver, _expect, _sent, call_flow
from .protocol import (
    ERROR_BODY_READ_LIMIT,
    McpHttpProtocol,
    logger,
    normalized_content_type,
    same_origin,
)
from .steps import (
    Authorize,
    Authorized,
    Await,
    BodyEnd,
    Bytes,
    Detach,
    Done,
    Failed,
    Flow,
    Idle,
    Judged,
    Notify,
    OpenStream,
    ReadChunk,
    ReadSnippet,
    Renew,
    Sleep,
)

__all__ = [
    "ENDPOINT_MAX_CHARS",
    "ENDPOINT_WAIT_S",
    "FALLBACK_STATUSES",
    "HTTP_SSE",
    "NEGOTIATED",
    "NegotiationCache",
    "SseStream",
    "cached_route",
    "host_initialize_flow",
    "initialize_flow",
    "open_flow",
    "sse_call_flow",
    "stale_entry",
    "stream_flow",
]

R = TypeVar("R")

HTTP_SSE = "http+sse"
"""The name of the transport (``Negotiated.transport``, the pin ``protocol="http+sse"``)."""
FALLBACK_STATUSES = frozenset({400, 404, 405})
"""The answers to the ``initialize`` POST that send a client to the HTTP+SSE transport."""
ENDPOINT_WAIT_S = 30.0
"""The longest wait for the ``endpoint`` event after the GET (at most the call's timeout)."""
ENDPOINT_MAX_CHARS = 4096
"""The longest endpoint URL taken (a longer ``endpoint`` event fails the stream)."""


class SseStream:
    """One HTTP+SSE stream: its endpoint, the calls waiting for responses, how it ended.

    The stream's flow runs on a thread or task of its own and the calls on theirs: each call
    registers the id it waits for (``expect``) before it POSTs, the stream files the response
    under it (``responses``) and wakes the waiters (``Notify``), the call takes it (``take``).
    A response to no waiting call (one that timed out) is dropped, so nothing piles up."""

    METHOD = "HTTP+SSE stream"

    def __init__(self, protocol: McpHttpProtocol) -> None:
        self.protocol = protocol
        self.stopping = False
        """Set by the driver to end the stream (the flow stops at its next step)."""
        self.connected = False
        self.endpoint: str | None = None
        self.failure: McpHttpTransportError | None = None
        """Why the stream ended (set once): every waiting and later call fails with it."""
        self.notifications: list[JsonRpcNotification] = []
        self._waiting: dict[JsonRpcId, JsonRpcResponse | None] = {}
        self._lock = threading.Lock()
        self._decoder = codec.SseDecoder(protocol.max_event_bytes)

    @property
    def over(self) -> bool:
        """True once the stream ended (``failure`` says why)."""
        return self.failure is not None

    def expect(self, request_id: JsonRpcId) -> None:
        """A call waits for the response ``request_id`` (registered before its POST)."""
        with self._lock:
            self._waiting[request_id] = None

    def forget(self, request_id: JsonRpcId) -> None:
        """The call ``request_id`` is over (answered, failed or timed out)."""
        with self._lock:
            self._waiting.pop(request_id, None)

    def answered(self, request_id: JsonRpcId) -> bool:
        """True once the response ``request_id`` came (or the stream ended)."""
        with self._lock:
            return self._waiting.get(request_id) is not None or self.failure is not None

    def take(self, request_id: JsonRpcId) -> JsonRpcResponse | None:
        """The response ``request_id`` if it came."""
        with self._lock:
            return self._waiting.get(request_id)

    @property
    def waiting(self) -> int:
        """How many calls wait for their responses."""
        with self._lock:
            return len(self._waiting)

    def _file(self, response: JsonRpcResponse) -> bool:
        """File ``response`` for its call; False when no call waits for it."""
        with self._lock:
            if response.id not in self._waiting or self._waiting[response.id] is not None:
                return False
            self._waiting[response.id] = response
            return True

    def end(self, failure: McpHttpTransportError) -> None:
        """The stream ended: ``failure`` for every waiting and later call."""
        with self._lock:
            if self.failure is None:
                self.failure = failure
        self.connected = False

    def failed_call(self, method: str, *, delivered: bool) -> McpHttpTransportError:
        """The error of a call of ``method`` on a stream that ended (a new instance each
        time); ``delivered``: the call's message had reached the server."""
        assert self.failure is not None
        error = _plain(type(self.failure))(f"{self.failure} ('{method}' has no answer)")
        error.status_code = self.failure.status_code
        if isinstance(error, McpHttpTransportSessionExpiredError):
            error.request_delivered = delivered
        error.__cause__ = self.failure
        return error

    # -- events --------------------------------------------------------------------------------

    def feed(self, chunk: bytes | None) -> list[codec.SseEvent]:
        """The events ``chunk`` completed (None: the body ended)."""
        return self._decoder.feed(chunk) if chunk is not None else self._decoder.finish()

    def take_endpoint(self, data: str) -> str:
        """The endpoint an ``endpoint`` event names, resolved against the server's URL and
        checked; raises ``McpHttpTransportProtocolError``."""
        protocol = self.protocol
        text = data.strip()
        if not text or len(text) > ENDPOINT_MAX_CHARS or not text.isprintable():
            raise protocol.error(
                f"the HTTP+SSE stream's endpoint event is empty, longer than "
                f"{ENDPOINT_MAX_CHARS} characters or not printable: {protocol.quote(text, 80)}",
                McpHttpTransportProtocolError,
            )
        target = urljoin(protocol.url, text).partition("#")[0]
        parts = urlsplit(target)
        if not same_origin(protocol.url, target) or parts.username or parts.password:
            raise protocol.error(
                "the HTTP+SSE stream's endpoint is not on the server's origin "
                f"({protocol.quote(_origin_text(target), 120)}); refused",
                McpHttpTransportProtocolError,
            )
        self.endpoint = protocol.sse_endpoint = target
        return target

    def take_messages(self, data: str) -> tuple[list[Any], list[JsonRpcRequest]]:
        """The responses (filed) and server requests of one ``message`` event; notifications
        go to ``notifications``. A malformed event is logged and skipped, as on a GET stream."""
        try:
            messages = codec.parse_jsonrpc_line(data)
        except CodecError as exc:
            logger.warning(
                "server %r sent a malformed message on its HTTP+SSE stream: %s",
                self.protocol.server.id,
                sanitize(str(exc), 200),
            )
            return [], []
        filed: list[Any] = []
        requests: list[JsonRpcRequest] = []
        for message in messages:
            if isinstance(message, JsonRpcNotification):
                self.notifications.append(message)
            elif isinstance(message, JsonRpcRequest):
                requests.append(message)
            elif self._file(message):
                filed.append(message.id)
            else:
                logger.debug(
                    "server %r sent a response no call waits for (id %s); dropped",
                    self.protocol.server.id,
                    self.protocol.quote(message.id, 40),
                )
        return filed, requests


def _origin_text(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname or ''}"


# -- the stream -------------------------------------------------------------------------------


def stream_flow(stream: SseStream, *, endpoint_wait_s: float, call_timeout_s: float) -> Flow[None]:
    """The HTTP+SSE stream from its GET to its end (see the module docstring). It ends with
    ``stream.end`` (why) and a ``Notify``, so that no call waits past it."""
    protocol = stream.protocol
    failure: McpHttpTransportError
    try:
        yield from _connect(stream, endpoint_wait_s)
        yield from _read(stream, call_timeout_s)
        failure = protocol.error(
            "the server closed the HTTP+SSE stream (its session)",
            McpHttpTransportSessionExpiredError,
        )
    except McpHttpTransportError as exc:
        failure = exc
    except CodecError as exc:
        failure = protocol.error(
            f"the HTTP+SSE stream could not be decoded: {exc}", McpHttpTransportProtocolError
        )
    if stream.stopping or protocol.closed:
        failure = protocol.closed_error()
    logger.info("HTTP+SSE stream of server %r ended: %s", protocol.server.id, failure)
    stream.end(failure)
    yield from _expect(Notify(), Done)


def _connect(stream: SseStream, endpoint_wait_s: float) -> Flow[None]:
    """GET the stream (credentials renewed once on a 401/403) and read it up to its
    ``endpoint`` event, within ``endpoint_wait_s`` in all."""
    protocol = stream.protocol
    start = yield from _expect(Sleep(0.0), Done)
    deadline = start.now + endpoint_wait_s
    scope: Any = None
    for attempt in range(2):
        authorization: str | None = None
        if protocol.has_auth:
            authorized = yield from _expect(
                Authorize(SseStream.METHOD, replay_allowed=True, scope=scope), Authorized
            )
            authorization, scope = authorized.header, authorized.scope
        headers = protocol.get_headers(last_event_id=None, authorization=authorization)
        request = replace(
            protocol.request("GET", headers, remaining_s=endpoint_wait_s), quiet_body=True
        )
        head = yield from _sent(protocol, request)
        if isinstance(head, Failed):
            raise protocol.map_failure(
                head, method=SseStream.METHOD, timeout_s=endpoint_wait_s
            ) from head.error
        content_type = normalized_content_type(head.headers.get("content-type"))
        if 200 <= head.status_code < 300 and content_type == "text/event-stream":
            break
        body = yield from _expect(ReadSnippet(ERROR_BODY_READ_LIMIT), Bytes)
        if protocol.has_auth and attempt == 0 and head.status_code in (401, 403):
            renew = Renew(scope, head.status_code, head.headers, body.data)
            judged = yield from _expect(renew, Judged)
            if judged.retry:
                continue
        error = protocol.status_error(
            status_code=head.status_code,
            body=body.data,
            method="GET for the HTTP+SSE stream",
            session_id=None,
        )
        raise error or protocol.error(
            f"the GET for the HTTP+SSE stream was answered with {protocol.quote(content_type)}, "
            "not an event stream",
            McpHttpTransportProtocolError,
        )
    stream.connected = True
    now = start.now
    while stream.endpoint is None:
        if stream.stopping:
            return
        wait_s = deadline - now
        if wait_s <= 0:
            raise protocol.error(
                f"the HTTP+SSE stream sent no endpoint event within {endpoint_wait_s:.3f}s",
                McpHttpTransportTimeoutError,
            )
        outcome = yield from _expect(ReadChunk(wait_s), Bytes, BodyEnd, Idle, Failed)
        now = outcome.now
        if isinstance(outcome, Failed):
            raise protocol.map_failure(
                outcome, method=SseStream.METHOD, timeout_s=endpoint_wait_s
            ) from outcome.error
        if isinstance(outcome, BodyEnd):
            raise protocol.error(
                "the HTTP+SSE stream ended before its endpoint event",
                McpHttpTransportProtocolError,
            )
        if isinstance(outcome, Bytes):
            yield from _events(stream, stream.feed(outcome.data), call_timeout_s=endpoint_wait_s)
    yield from _expect(Notify(), Done)


def _read(stream: SseStream, call_timeout_s: float) -> Flow[None]:
    """Read the stream after its endpoint to its end (or ``stream.stopping``)."""
    while not stream.stopping:
        outcome = yield from _expect(ReadChunk(None), Bytes, BodyEnd, Failed)
        if isinstance(outcome, Failed):
            if stream.stopping:
                return
            raise stream.protocol.error(
                "the HTTP+SSE stream broke off (its session is lost): "
                f"{type(outcome.error).__name__}",
                McpHttpTransportSessionExpiredError,
            ) from outcome.error
        chunk = outcome.data if isinstance(outcome, Bytes) else None
        yield from _events(stream, stream.feed(chunk), call_timeout_s=call_timeout_s)
        if chunk is None:
            return


def _events(
    stream: SseStream, events: list[codec.SseEvent], *, call_timeout_s: float
) -> Flow[None]:
    """Take the events of one read, in order: notifications delivered before the responses
    that follow them are handed over (so a call's progress reaches the host before its
    result), server requests answered."""
    protocol = stream.protocol
    for event in events:
        kind = event.event or "message"
        if kind == "endpoint":
            if stream.endpoint is None:
                stream.take_endpoint(event.data)
            else:
                logger.info("server %r sent a second endpoint event; ignored", protocol.server.id)
            continue
        if kind != "message" or not event.data.strip():
            continue
        if stream.endpoint is None:
            logger.warning(
                "server %r sent a message before its HTTP+SSE endpoint; ignored",
                protocol.server.id,
            )
            continue
        filed, requests = stream.take_messages(event.data)
        yield from _deliver(protocol, stream.notifications)
        if filed:
            yield from _expect(Notify(), Done)
        for request in requests:
            now = (yield from _expect(Sleep(0.0), Done)).now
            yield from _answer_in_background(
                stream.protocol, SseStream.METHOD, request, call_timeout_s, now
            )


# -- calls ------------------------------------------------------------------------------------


def open_flow(
    protocol: McpHttpProtocol, *, timeout_s: float, call_timeout_s: float
) -> Flow[SseStream]:
    """Start the HTTP+SSE stream of the server and wait for its endpoint (``timeout_s`` at
    most, and ``ENDPOINT_WAIT_S``); raises why it could not be had."""
    if protocol.closed:
        raise protocol.closed_error()
    stream = SseStream(protocol)
    wait_s = min(timeout_s, ENDPOINT_WAIT_S)
    flow = stream_flow(stream, endpoint_wait_s=wait_s, call_timeout_s=call_timeout_s)
    yield from _expect(OpenStream(stream, flow), Done)

    def ready() -> bool:
        return stream.endpoint is not None or stream.over

    # The stream's own deadline ends it by then; the margin only covers a slow driver.
    outcome = yield from _expect(Await(ready, wait_s + 1.0), Done, Idle)
    if stream.failure is not None:
        raise stream.failure
    if isinstance(outcome, Idle) or protocol.sse_endpoint is None:
        raise protocol.error(
            f"the HTTP+SSE stream sent no endpoint event within {wait_s:.3f}s",
            McpHttpTransportTimeoutError,
        )
    return stream


def sse_call_flow(
    stream: SseStream,
    body: bytes,
    *,
    method: str,
    expected_id: JsonRpcId | None,
    timeout_s: float,
    now: float,
    cancel_at_server: bool = False,
) -> Flow[JsonRpcResponse | None]:
    """POST ``body`` to the endpoint (a request waiting for the response ``expected_id``, or a
    notification or answer with None) and return the response from the stream within
    ``timeout_s`` (None for the others). ``cancel_at_server``: a request the server accepted
    and then given up (its timeout, or ``Abandoned`` thrown in) is cancelled there with
    ``notifications/cancelled``, as in the handshake era of Streamable HTTP (``cancel``)."""
    protocol = stream.protocol
    if protocol.closed:
        raise protocol.closed_error()
    if stream.over:
        raise stream.failed_call(method, delivered=False)
    deadline = now + timeout_s
    if expected_id is not None:
        stream.expect(expected_id)  # before the POST: the response may come first
    accepted = False
    try:
        yield from call_flow(
            protocol, body, method=method, expected_id=None, timeout_s=timeout_s, now=now
        )
        accepted = True
        if expected_id is None:
            return None
        waited = yield from _expect(Sleep(0.0), Done)
        now = waited.now
        while True:
            response = stream.take(expected_id)
            if response is not None:
                return response
            if stream.over:
                raise stream.failed_call(method, delivered=True)
            if now >= deadline:
                raise protocol.timeout_error(method, timeout_s)

            def ready(request_id: JsonRpcId = expected_id) -> bool:
                return stream.answered(request_id)

            outcome = yield from _expect(Await(ready, deadline - now), Done, Idle)
            now = outcome.now
    except (McpHttpTransportTimeoutError, Abandoned) as exc:
        if cancel_at_server and accepted and expected_id is not None:
            abandoned = isinstance(exc, Abandoned)
            reason = ABANDONED_REASON if abandoned else timeout_reason(timeout_s)
            cancellation = _cancel_on_stream(stream, expected_id, method, reason)
            if abandoned:
                yield from cancellation
            else:  # beside the timeout error, not before it (see ``flows.call_flow``)
                yield from _expect(Detach(cancellation), Done)
        raise
    finally:
        if expected_id is not None:
            stream.forget(expected_id)


def _cancel_on_stream(
    stream: SseStream, request_id: JsonRpcId, method: str, reason: str
) -> Flow[None]:
    """POST ``notifications/cancelled`` for ``request_id`` to the endpoint, unless its response
    came meanwhile or the stream is over, within ``CANCEL_TIMEOUT_S``; a failure is logged (the
    host gets the error of the call)."""
    protocol = stream.protocol
    if protocol.closed or stream.over or stream.answered(request_id):
        return
    params = cancel_params(request_id, reason)
    body = protocol.encode(build_jsonrpc_notification(method=CANCELLED_NOTIFICATION, params=params))
    waited = yield from _expect(Sleep(0.0), Done)
    try:
        yield from call_flow(
            protocol,
            body,
            method=CANCELLED_NOTIFICATION,
            expected_id=None,
            timeout_s=CANCEL_TIMEOUT_S,
            now=waited.now,
        )
    except Exception as exc:
        logger.info(
            "MCP server %r: the cancellation of '%s' was not delivered: %s",
            protocol.server.id,
            method,
            type(exc).__name__,
        )


def initialize_flow(
    protocol: McpHttpProtocol,
    body: bytes,
    *,
    request_id: JsonRpcId,
    timeout_s: float,
    now: float,
    fallback: bool = True,
    direct: bool = False,
    call_timeout_s: float | None = None,
) -> Flow[tuple[JsonRpcResponse, SseStream | None]]:
    """``initialize`` (``body``, the request ``request_id``) and the stream it went over
    (None: Streamable HTTP). POSTed to the server's URL first; a 400, 404 or 405 (``fallback``)
    opens the HTTP+SSE transport and sends it there. ``direct``: open the HTTP+SSE transport at
    once (pinned, or known from ``NEGOTIATED``)."""
    deadline = now + timeout_s
    if not direct:
        try:
            response = yield from call_flow(
                protocol,
                body,
                method="initialize",
                expected_id=request_id,
                timeout_s=timeout_s,
                now=now,
            )
        except McpHttpTransportProtocolError as exc:
            if not fallback or exc.status_code not in FALLBACK_STATUSES or protocol.session_id:
                raise  # a server that gave a session speaks Streamable HTTP
            refusal: McpHttpTransportError | None = exc
            logger.info(
                "server %r refused the initialize POST (HTTP %s): trying the HTTP+SSE transport",
                protocol.server.id,
                exc.status_code,
            )
        else:
            assert response is not None
            return response, None
    else:
        refusal = None
    now = (yield from _expect(Sleep(0.0), Done)).now
    try:
        stream = yield from open_flow(
            protocol,
            timeout_s=max(deadline - now, 0.001),
            call_timeout_s=call_timeout_s or timeout_s,
        )
    except McpHttpTransportError as exc:
        if refusal is None:
            raise
        error = protocol.error(
            _neither_message(protocol.url, refusal, exc),
            # A GET refused outright: the POST's refusal is the answer (as the reference
            # transport raises it); a stream that failed later: its own failure.
            type(refusal) if exc.status_code else _plain(type(exc)),
        )
        error.status_code = refusal.status_code
        raise error from exc
    now = (yield from _expect(Sleep(0.0), Done)).now
    response = yield from sse_call_flow(
        stream,
        body,
        method="initialize",
        expected_id=request_id,
        timeout_s=max(deadline - now, 0.001),
        now=now,
    )
    assert response is not None
    return response, stream


def host_initialize_flow(
    protocol: McpHttpProtocol,
    body: bytes,
    *,
    request_id: JsonRpcId,
    timeout_s: float,
    now: float,
    call_timeout_s: float,
) -> Flow[JsonRpcResponse]:
    """The ``initialize`` a host sends itself (the reference transport's API): straight over
    the HTTP+SSE transport when ``NEGOTIATED`` knows the server speaks it (an entry that stopped
    working is dropped and the POST tried), else ``initialize_flow`` with its fallback; an
    HTTP+SSE outcome is cached. (Only that one: a server that took the POST may speak the
    modern era as well, which a host's own handshake does not ask.)"""

    def initialize(now: float, direct: bool) -> Flow[tuple[JsonRpcResponse, SseStream | None]]:
        return initialize_flow(
            protocol,
            body,
            request_id=request_id,
            timeout_s=timeout_s,
            now=now,
            direct=direct,
            call_timeout_s=call_timeout_s,
        )

    if NEGOTIATED.get(protocol.url) == HTTP_SSE and not protocol.session_id:
        cached = yield from cached_route(protocol.url, initialize(now, direct=True))
        if cached is not None:
            return cached[0]
        now = (yield from _expect(Sleep(0.0), Done)).now
    response, stream = yield from initialize(now, direct=False)
    if stream is not None:
        NEGOTIATED.put(protocol.url, HTTP_SSE)
    return response


def cached_route(url: str, flow: Flow[R]) -> Flow[R | None]:
    """Run ``flow``, sent by the route ``NEGOTIATED`` chose for ``url``: its outcome, or None
    when the route stopped working (the entry is dropped, and the caller negotiates again).

    Any failure drops the entry; one that would fail any route (``stale_entry``) is raised."""
    try:
        return (yield from flow)
    except McpHttpTransportError as exc:
        NEGOTIATED.drop(url)
        if not stale_entry(exc):
            raise
        return None


def stale_entry(error: McpHttpTransportError) -> bool:
    """True when ``error``, from the route a cached outcome chose, says the server changed
    (worth probing again); False for a timeout or a refused authorization, which would fail
    any route."""
    return error.status_code not in (401, 403) and not isinstance(
        error, McpHttpTransportTimeoutError
    )


def _plain(kind: type[McpHttpTransportError]) -> type[McpHttpTransportError]:
    """``kind``, or the protocol error for the one class whose constructor takes more."""
    return McpHttpTransportProtocolError if kind is McpHttpTransportResponseTooLargeError else kind


def _neither_message(
    url: str, refusal: McpHttpTransportError, failure: McpHttpTransportError
) -> str:
    """Why neither transport answered at ``url``: the initialize POST's ``refusal`` and the
    GET's ``failure``. Both 404 is the commonest mistake, a URL without the endpoint's path."""
    hint = likely_endpoint(url)
    check = f" (check the URL's path: MCP servers usually serve at {hint})" if hint else ""
    # The POST's answer last: it is the part a message may cut.
    answer = f"; the POST's answer: {refusal.body_excerpt}" if refusal.body_excerpt else ""
    if refusal.status_code == 404 and failure.status_code == 404:
        return (
            f"no MCP endpoint at this path{check}: HTTP 404 to the initialize POST and to the "
            f"GET of an HTTP+SSE stream{answer}"
        )
    status = failure.status_code
    got = f"HTTP {status}" if status else sanitize(_reason(failure), 300)
    return (
        f"no MCP transport answers at this URL{check}: the initialize POST was refused with "
        f"HTTP {refusal.status_code}, and the GET of an HTTP+SSE stream got {got}{answer}"
    )


def _reason(error: McpHttpTransportError) -> str:
    """An error's message without the server's name (the new message names it once)."""
    return str(error).partition(": ")[2] or str(error)


# -- the negotiation cache --------------------------------------------------------------------


class NegotiationCache:
    """What negotiation found per server (origin and path): ``"modern"``, ``"legacy"`` (the
    handshake era over Streamable HTTP) or ``"http+sse"``. Bounded (``max_entries``, the
    oldest dropped); safe to share between threads."""

    def __init__(self, max_entries: int = 256) -> None:
        self._entries: OrderedDict[tuple[str, str, int | None, str], str] = OrderedDict()
        self._lock = threading.Lock()
        self._max = max_entries

    @staticmethod
    @functools.lru_cache(maxsize=256)
    def _key(url: str) -> tuple[str, str, int | None, str]:
        # (cached: a session per call looks its server up and records it again, each time)
        parts = urlsplit(url)
        try:
            port = parts.port
        except ValueError:
            port = None
        return parts.scheme.lower(), (parts.hostname or "").lower(), port, parts.path or "/"

    def get(self, url: str) -> str | None:
        """What negotiation found for ``url`` in this process (None: nothing yet)."""
        with self._lock:
            return self._entries.get(self._key(url))

    def put(self, url: str, outcome: str) -> None:
        """Remember ``outcome`` for ``url``."""
        key = self._key(url)
        with self._lock:
            self._entries[key] = outcome
            self._entries.move_to_end(key)
            while len(self._entries) > self._max:
                self._entries.popitem(last=False)

    def drop(self, url: str) -> None:
        """Forget what was found for ``url`` (it stopped working)."""
        with self._lock:
            self._entries.pop(self._key(url), None)

    def clear(self) -> None:
        """Forget everything."""
        with self._lock:
            self._entries.clear()


NEGOTIATED = NegotiationCache()
"""The process's cache of negotiation outcomes (see ``NegotiationCache``)."""
