"""``Http1Base``: the part of the sync and the async HTTP/1.1 transports that does no I/O.

A transport keeps its options and state here: the TLS context and the TLS sessions to resume,
the pool of idle connections and its limits, and the request heads already encoded. Each
failure of a connect, a write or a read becomes the stack's exception of that kind
(``HttpStack.raises``), worded as httpx's own transport words it. A response read to its end
hands its connection back to the pool when the exchange allows reuse (``_finish``), else the
connection is closed. The drivers (``sync``, ``aio``) do the waits, reads and writes; the
pool's rules are in ``pool``.
"""

from __future__ import annotations

import contextvars
import ssl
from typing import Any, Generic, Protocol, TypeVar, cast

import httpx

from ..._httpbase.stack import HTTPX, HttpStack
from ...errors import CodecError
from ..deadline import bounded
from .pool import (
    BodyBuffer,
    Heads,
    IdlePool,
    Limits,
    Prepared,
    idle_expiry,
    protocol_error,
    real_request,
    response_extensions,
    reusable,
)


class _DeadlinePassed(Exception):
    """The ``io_deadline`` of the operation under way passed (turned into the stack's timeout)."""


__all__ = [
    "DISCONNECTED",
    "FILL_BYTES",
    "NEXT_TLS_SESSION",
    "Http1Base",
    "fill_room",
    "renewed",
    "stream_type",
    "whole_capacity",
]

DISCONNECTED = "Server disconnected without sending a response."
"""The message of the ``RemoteProtocolError`` for a connection that ended before any byte of
the answer arrived (h11's words, as httpx raises them)."""


TLS_SESSIONS = 64
"""TLS sessions a transport keeps for resumption (one an origin, the latest; past it, all are
forgotten)."""

NEXT_TLS_SESSION: contextvars.ContextVar[ssl.SSLSession | None] = contextvars.ContextVar(
    "mcpstream_next_tls_session", default=None
)
"""The TLS session the async transport's next handshake is to resume, set around
``loop.start_tls`` (which takes no session): an SSL context that can (``LazySSLContext``,
that of mcpstream's own clients) sets it on the ``SSLObject`` it makes."""

FILL_BYTES = 64 * 1024
"""Body data of a known length at least this large is read straight into the body's buffer
(``read_whole``); less is read, framed and copied in as any read is."""

WHOLE_CAPACITY = 64 * 1024 * 1024
"""The most room a body's buffer starts with, whatever length the server announces: it grows as
more arrives."""


def whole_capacity(framing: Any, received: int, limit: int | None) -> int:
    """The room to make, at first, for a whole body of which ``received`` bytes are in already
    and ``framing.body_ahead`` more are sure to come: no more than ``limit`` (the most that will
    be read) nor ``WHOLE_CAPACITY``. Pages are used only as data arrives."""
    capacity: int = received + framing.body_ahead
    return min(capacity, WHOLE_CAPACITY if limit is None else min(limit, WHOLE_CAPACITY))


def fill_room(framing: Any, filled: int, limit: int | None) -> int:
    """How many bytes the next reads of a whole body take straight into its buffer (which holds
    ``filled``): the body data sure to come, short of ``limit`` in all, and no more than the
    buffer holds already or ``WHOLE_CAPACITY`` (so that it grows as data arrives, whatever
    length a server announces); 0 (a framed read) when that is under ``FILL_BYTES``."""
    room: int = min(framing.body_ahead, max(filled, WHOLE_CAPACITY))
    if limit is not None:
        room = min(room, limit - filled)
    return room if room >= FILL_BYTES else 0


def renewed(buffer: Any, capacity: int) -> Any:
    """A ``BodyBuffer`` for a whole body of ``capacity`` bytes: ``buffer``, a connection's own
    (None before its first), renewed. A connection keeps its buffer, so that one large body
    after another on it fills memory already faulted in, for as long as the connection lives
    (it is closed once idle for ``keepalive_expiry``)."""
    if buffer is None:
        return BodyBuffer(capacity)
    try:
        buffer.renew(capacity)
    except BufferError:  # a view of the last body still exported: that storage stays with it
        return BodyBuffer(capacity)
    return buffer


class _Closes(Protocol):
    """A driver's connection, as the base closes it."""

    def close(self) -> None: ...


C = TypeVar("C", bound=_Closes)
T = TypeVar("T")


class Http1Base(Generic[C]):
    """What both transports share, on the HTTP stack of ``_stack`` (its exceptions and
    responses), over a pool of connections of type ``C`` (the driver's).

    ``verify`` and ``cert`` mean what they mean to ``httpx.Client`` (an ``ssl.SSLContext``
    given as ``verify`` is used as it is, and must allow HTTP/1.1 if it offers ALPN).
    ``max_connections``: the connections open at once (None: no bound; a request waits for one
    within its ``pool`` timeout); ``max_keepalive_connections``: the idle connections kept, in
    all; ``keepalive_expiry``: the seconds an idle connection is kept. ``max_head_bytes`` and
    ``max_headers`` bound each response head (and the trailers of a chunked body).

    The driver provides ``_release`` (a connection back to the pool) and ``_discard`` (the
    place of a closed connection freed).
    """

    _stack: HttpStack = HTTPX
    _TIMEOUT_WORDS = "timed out"
    """A timeout's message where its cause has none, as the stack's own transport of the
    driver's kind words it: a socket's timeout says "timed out" (sync); httpx's async transport
    says nothing (its backend's cancel scope has no message)."""

    def __init__(
        self,
        *,
        verify: ssl.SSLContext | str | bool = True,
        cert: Any = None,
        trust_env: bool = True,
        max_connections: int | None = 100,
        max_keepalive_connections: int = 20,
        keepalive_expiry: float = 5.0,
        max_head_bytes: int = 64 * 1024,
        max_headers: int = 100,
    ) -> None:
        if isinstance(verify, ssl.SSLContext):
            self._ssl_context = verify
        else:
            self._ssl_context = self._stack.httpx.create_ssl_context(
                verify=verify, cert=cert, trust_env=trust_env
            )
        self._limits = Limits(
            max_connections,
            max_keepalive_connections,
            keepalive_expiry,
            max_head_bytes,
            max_headers,
        )
        self._pool: IdlePool[C] = IdlePool(self._limits)
        self._heads = Heads()
        self._tls_sessions: dict[Any, ssl.SSLSession] = {}
        """The latest TLS session of each origin, for the next connection to resume."""
        self._init_driver()

    def _init_driver(self) -> None:
        """The driver's own state, made at the end of ``__init__`` (none here)."""

    # -- the stack's exceptions --------------------------------------------------------------

    def _error(self, kind: type[httpx.TransportError], message: object, request: Any) -> Exception:
        """The stack's exception ``kind`` (one of ``self._stack.raises``) for ``request`` (the
        stack's ``Request``, an ``Http1Request`` materialized)."""
        return kind(str(message), request=real_request(request))

    def _wait(self, request: Any, kind: str) -> float | None:
        """How long the next ``kind`` wait (``connect``, ``read``, ``write``, ``pool``) may
        take: that timeout of the request's ``timeout`` extension (read at each wait: the
        drivers lift ``read`` for a quiet stream), cut to what is left of the
        ``io_deadline``; the stack's timeout of that ``kind`` once nothing is left."""
        timeouts = request.extensions.get("timeout")
        value = timeouts.get(kind) if timeouts else None
        try:
            return bounded(None if value is None else float(value), _DeadlinePassed)
        except _DeadlinePassed as exc:
            raise self._error(self._stack.raises.timeout(kind), exc, request) from None

    def _timed_out(self, kind: str, exc: BaseException | None, request: Any) -> Exception:
        """The stack's timeout of a ``kind`` of wait (``connect``, ``write``, ...), with the
        message of ``exc`` when it has one (else ``_TIMEOUT_WORDS``)."""
        return self._error(
            self._stack.raises.timeout(kind), str(exc or "") or self._TIMEOUT_WORDS, request
        )

    def _connect_error(self, exc: OSError, request: Any) -> Exception:
        """The stack's exception for a connection (or its TLS handshake) that failed with
        ``exc``: ``ConnectTimeout`` for a timeout, else ``ConnectError``."""
        if isinstance(exc, TimeoutError):
            return self._timed_out("connect", exc, request)
        return self._error(self._stack.raises.ConnectError, exc, request)

    def _attempts_failed(self, request: Any) -> Exception:
        """The stack's ``ConnectError`` for an async connection no address of the host took
        (refused, unreachable): in the words of httpx's own async transport, whose backend
        (anyio's ``connect_tcp``) says so whatever the attempts' errors were (they are the
        cause), and which a framework may show its user."""
        return self._error(
            self._stack.raises.ConnectError, "All connection attempts failed", request
        )

    def _tls_context(self) -> ssl.SSLContext:
        """The SSL context of the next TLS connection, offering HTTP/1.1 alone by ALPN. Set on
        each connect, as httpcore does: a host's context may be shared with an HTTP/2 client
        (which offers ``h2`` on it), and a server would then choose HTTP/2."""
        context = self._ssl_context
        context.set_alpn_protocols(["http/1.1"])
        return context

    def _tls_session(self, key: Any) -> ssl.SSLSession | None:
        """The TLS session for a new connection to ``key`` to resume (None: a full handshake)."""
        return self._tls_sessions.get(key)

    def _keep_tls_session(self, key: Any, ssl_object: Any) -> bool:
        """Keep the TLS session of a connection to ``key`` whose answer was read (``ssl_object``
        its ``SSLSocket`` or ``SSLObject``; anything else is a plain connection): by then a
        TLS 1.3 server's session ticket has arrived. A connection made later to the origin
        resumes it (an abbreviated handshake: no certificate to send and verify). Whether
        the connection has no more to give (its session kept, or a plain one): the drivers
        ask once a connection, as reading ``session`` copies the session (a tenth of a
        millisecond and more: a good part of a small call)."""
        session = getattr(ssl_object, "session", None)
        if session is None:
            return not isinstance(ssl_object, ssl.SSLSocket | ssl.SSLObject)
        sessions = self._tls_sessions
        if len(sessions) >= TLS_SESSIONS and key not in sessions:
            sessions.clear()
        sessions[key] = session
        return True

    def _refused_protocol(self, chosen: str | None, request: Any) -> Exception | None:
        """The stack's ``ConnectError`` when ALPN chose ``chosen``, a protocol other than
        HTTP/1.1; None when the connection speaks HTTP/1.1 (or ALPN chose nothing)."""
        if chosen is None or chosen == "http/1.1":
            return None
        return self._error(
            self._stack.raises.ConnectError,
            "the server chose a protocol other than HTTP/1.1",
            request,
        )

    def _read_error(
        self,
        exc: BaseException | None,
        received: bool,
        framing: Any,
        first: bytes,
        request: Any,
    ) -> Exception:
        """The stack's exception for a response that broke: the connection ended or failed
        (``exc``, None for a plain end) before any byte of it was ``received``, the framing
        refused it (a ``CodecError``; ``first``: its first bytes), or the connection failed
        within it; a ``TimeoutError`` is the ``ReadTimeout`` (as httpcore maps it). As in
        httpcore, a connection that ended before the answer is h11's ``RemoteProtocolError``,
        and one that failed (reset, a TLS alert: a server that wants a client certificate) is
        a ``ReadError``."""
        if isinstance(exc, TimeoutError):
            return self._timed_out("read", exc, request)
        if not received:
            if isinstance(exc, OSError):
                return self._error(self._stack.raises.ReadError, exc, request)
            return self._error(self._stack.raises.RemoteProtocolError, DISCONNECTED, request)
        if isinstance(exc, CodecError):
            return self._error(
                self._stack.raises.RemoteProtocolError, protocol_error(exc, framing, first), request
            )
        return self._error(self._stack.raises.ReadError, exc or "connection lost", request)

    # -- the response ------------------------------------------------------------------------

    def _response(self, framing: Any, stream: Any, connection: C, request: Any) -> Any:
        """The stack's response to ``request`` once ``framing`` has its head; ``stream`` reads
        the body, ``connection`` is its ``network_stream`` extension."""
        return self._stack.httpx.Response(
            framing.status,
            headers=framing.headers,
            stream=stream,
            extensions=response_extensions(framing, connection),
            request=request,
        )

    def _finish(self, connection: C, keep: bool, framing: Any, prepared: Prepared) -> None:
        """A response read to its end: its connection back to the pool when ``keep`` (its
        request was written whole) and the exchange allows reuse (``reusable``), for as long
        as the answer lets it stay idle (``idle_expiry``), else closed."""
        if keep and reusable(framing, prepared):
            self._release(connection, idle_expiry(framing.headers, self._limits.keepalive_expiry))
        else:
            self._lost(connection)

    def _release(self, connection: C, expiry: float) -> None:
        """Put a connection whose response was read to its end back in the pool, to stay idle
        ``expiry`` seconds at most (the driver's)."""
        raise NotImplementedError

    def _lost(self, connection: C) -> None:
        """Close a connection that was in use (or taken idle), and free its place."""
        connection.close()
        self._discard()

    def _discard(self) -> None:
        """Free the place of a connection in use that was closed (the driver's: it wakes a
        request waiting for one)."""
        raise NotImplementedError


_STREAM_TYPES: dict[tuple[type[Any], str], type[Any]] = {}


def stream_type(body: type[T], stack: HttpStack, base: str) -> type[T]:
    """``body`` (a driver's response body) made a subclass of ``stack``'s ``base``
    (``SyncByteStream`` or ``AsyncByteStream``: httpx's client checks the type), one per
    stack."""
    made = _STREAM_TYPES.get((body, stack.name))
    if made is None:
        name = "AsyncHttp1Body" if base.startswith("Async") else "Http1Body"
        made = _STREAM_TYPES[body, stack.name] = type(name, (body, getattr(stack.httpx, base)), {})
    return cast("type[T]", made)
