"""What the sync and the async HTTP/1.1 transports share, none of it I/O: the origin a request
goes to, its head and body framing, the idle connections of a pool and the rules of reuse, the
request's timeouts, and the response's framing and extensions (the transports' common base,
their options, errors and responses, is ``base.Http1Base``).

The pool's rules (``IdlePool``, ``reusable``, ``idle_expiry`` and ``may_resend``):

* a connection goes back to the pool only when its response was read to its end, was HTTP/1.1
  without ``Connection: close`` (in the response or the request), and nothing followed it;
* an idle connection is dropped after ``keepalive_expiry`` seconds, or sooner when its last
  answer said the server keeps it for less (``Keep-Alive: timeout=N``: ``idle_expiry``), and
  before reuse the driver checks it for a close (or any byte) from the server while it was
  idle;
* at most ``max_keepalive_connections`` idle connections are kept (the oldest go first), and at
  most ``max_connections`` are open at once: a request waits for one within its ``pool``
  timeout (``PoolTimeout`` after it);
* a request is sent again (once more, on a new connection) only when a reused connection failed
  before a single byte of it was written, or when a reused connection ended before a single
  byte of its answer arrived (``may_resend``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from ... import codec
from ..._httpbase.stack import HttpStack
from ...codec import load_backend

__all__ = [
    "DEFAULT_PORTS",
    "KEEPALIVE_MARGIN",
    "LAST_CHUNK",
    "SMALL_BODY",
    "Ended",
    "Heads",
    "Http1Request",
    "IdlePool",
    "Key",
    "Limits",
    "Prepared",
    "connection_closes",
    "frame_chunk",
    "idle_expiry",
    "may_resend",
    "new_framing",
    "prepare",
    "protocol_error",
    "real_request",
    "response_extensions",
    "reusable",
]

_framing = load_backend(codec.BACKEND)
Http1Response = _framing.Http1Response
BodyBuffer = _framing.BodyBuffer
encode_request_head = _framing.encode_request_head

SMALL_BODY = 64 * 1024
"""A body smaller than this leaves with the head in one write."""

DEFAULT_PORTS = {b"http": 80, b"https": 443}

Key = tuple[bytes, bytes, int]
"""A connection's origin: (scheme, host, port)."""

C = TypeVar("C")


@dataclass(frozen=True)
class Limits:
    """The pool's limits (httpx's ``Limits``, with its defaults): ``max_connections`` open at
    once (None: no bound), ``max_keepalive_connections`` idle ones kept, ``keepalive_expiry``
    seconds an idle one is kept; ``max_head_bytes`` and ``max_headers`` bound each response
    head (and the trailers of a chunked body)."""

    max_connections: int | None = 100
    max_keepalive_connections: int = 20
    keepalive_expiry: float = 5.0
    max_head_bytes: int = 64 * 1024
    max_headers: int = 100

    def __post_init__(self) -> None:
        if self.max_connections is not None and self.max_connections < 1:
            raise ValueError("max_connections must be at least 1 (or None)")
        if self.max_keepalive_connections < 0 or self.keepalive_expiry < 0:
            raise ValueError("max_keepalive_connections and keepalive_expiry must be >= 0")


class Prepared:
    """A request made ready to write: its origin, its head, and its body when the whole of it
    is known (``body``, already framed; None: ``stream`` is iterated and framed as it goes);
    ``closes``: the request asked for ``Connection: close``, its connection is not reused.
    (A plain class: one is made for every request.)"""

    __slots__ = ("body", "chunked", "closes", "head", "key")

    def __init__(
        self, key: Key, head: bytes, body: bytes | None, chunked: bool, closes: bool
    ) -> None:
        self.key, self.head, self.body, self.chunked, self.closes = (
            key,
            head,
            body,
            chunked,
            closes,
        )

    def frame(self, chunk: bytes) -> bytes:
        """One piece of a streamed body as it goes on the wire (a chunk when ``chunked``)."""
        return frame_chunk(chunk) if self.chunked else chunk

    @property
    def tail(self) -> bytes:
        """What ends a streamed body on the wire (the last chunk when ``chunked``)."""
        return LAST_CHUNK if self.chunked else b""


def _has_token(headers: Iterable[tuple[bytes, bytes]], name: bytes, token: bytes) -> bool:
    for field, value in headers:
        if field.lower() == name and any(
            item.strip(b" \t").lower() == token for item in value.split(b",")
        ):
            return True
    return False


def connection_closes(headers: Iterable[tuple[bytes, bytes]]) -> bool:
    """Whether ``headers`` hold ``Connection: close``."""
    return _has_token(headers, b"connection", b"close")


def frame_chunk(chunk: bytes) -> bytes:
    """One chunk of a chunked request body."""
    return b"%x\r\n%b\r\n" % (len(chunk), chunk)


LAST_CHUNK = b"0\r\n\r\n"

Fields = tuple[tuple[bytes, bytes], ...]


class Heads:
    """Request heads already encoded, by their method, target and fields (up to ``MAX``): a
    session sends the same fields with every request, so its head is encoded (and checked)
    once, and again only when one of them changes (the session id, the protocol version, the
    authorization). A ``Content-Length`` that comes last, as httpx adds it, is not part of the
    key: it is written after the cached fields, as the codec writes it. Safe to share between
    threads (a lookup and a store are each one step of the dict)."""

    MAX = 64
    """Heads kept: beyond it, all are forgotten (a transport serving that many sessions)."""

    __slots__ = ("_known",)

    def __init__(self) -> None:
        self._known: dict[tuple[bytes, bytes, Fields], tuple[bytes, bool, bool]] = {}

    def head(
        self, method: bytes, target: bytes, raw: list[tuple[bytes, bytes]]
    ) -> tuple[bytes, bool, bool]:
        """The head for ``method``, ``target`` and the fields ``raw``, whether its body is
        chunked, and whether it asks for ``Connection: close``. Raises the codec's
        ``ValueError`` for a head that cannot be written."""
        length: bytes | None = None
        fields = raw
        # httpx's own field, last: its value is checked here as the codec would check it
        if raw and raw[-1][0] == b"Content-Length" and raw[-1][1].isdigit():
            length = raw[-1][1]
            fields = raw[:-1]
        start, chunked, closes = self.start(method, target, fields)
        if length is None:
            return start + b"\r\n", chunked, closes
        return b"%bContent-Length: %b\r\n\r\n" % (start, length), chunked, closes

    def start(
        self, method: bytes, target: bytes, fields: Iterable[tuple[bytes, bytes]]
    ) -> tuple[bytes, bool, bool]:
        """``head`` for ``fields`` without a ``Content-Length``, short of its blank line (for
        one to follow): the head's start, whether its body is chunked, whether it closes."""
        key = (method, target, tuple(fields))
        known = self._known.get(key)
        if known is None:
            fields = key[2]
            start = bytes(encode_request_head(method, target, fields))[:-2]
            chunked = _has_token(fields, b"transfer-encoding", b"chunked")
            known = (start, chunked, connection_closes(fields))
            if len(self._known) >= self.MAX:
                self._known.clear()
            self._known[key] = known
        return known


class _Fields:
    """The ``headers`` of an ``Http1Request``: only ``raw``, as the transports read them."""

    __slots__ = ("raw",)

    def __init__(self, raw: list[tuple[bytes, bytes]]) -> None:
        self.raw = raw


class Http1Request:
    """A request with a whole body, handed to a transport of this package in place of the
    stack's ``Request`` by mcpstream's own drivers (``wire.send``): the attributes the
    transports read (``method``, ``url``, ``headers.raw``, ``stream``, ``extensions``), from
    fields already normalized, as the stack's ``Request`` would hold them (the drivers take
    them from one made the usual way: ``fields`` are its fields). Building the stack's
    ``Request`` costs more than the rest of sending a small request; it is made only when
    something outside the transport needs it (``materialize``: an exception names it)."""

    __slots__ = (
        "_fields",
        "_headers",
        "_real",
        "_stack",
        "_stream",
        "body",
        "extensions",
        "method",
        "url",
    )

    def __init__(
        self,
        stack: HttpStack,
        method: str,
        url: Any,
        fields: list[tuple[bytes, bytes]],
        body: bytes,
        extensions: dict[str, Any],
    ) -> None:
        self._stack = stack
        self.method = method
        self.url = url
        self._fields = fields
        self._headers: _Fields | None = None
        self.body = body
        self._stream: Any = None
        self.extensions = extensions
        self._real: Any = None

    @property
    def headers(self) -> _Fields:
        """The fields as ``headers.raw`` (made when first read: the transports are handed the
        request's head already encoded)."""
        if self._headers is None:
            self._headers = _Fields(self._fields)
        return self._headers

    @property
    def stream(self) -> Any:
        """The body as the stack's ``ByteStream`` (made when first read: the transports write
        ``body`` itself)."""
        if self._stream is None:
            self._stream = self._stack.httpx.ByteStream(self.body)
        return self._stream

    def materialize(self) -> Any:
        """The stack's ``Request`` with the same method, URL, fields, body and extensions (made
        once)."""
        if self._real is None:
            self._real = self._stack.httpx.Request(
                self.method,
                self.url,
                headers=self._fields,
                content=self.body,
                extensions=self.extensions,
            )
        return self._real


def real_request(request: Any) -> Any:
    """The stack's ``Request`` for ``request`` (an ``Http1Request`` is materialized)."""
    return request.materialize() if isinstance(request, Http1Request) else request


def prepare(stack: HttpStack, request: Any, heads: Heads) -> Prepared:
    """``request`` (an ``httpx.Request`` of ``stack``) ready to write, its head from ``heads``.
    Raises the stack's ``UnsupportedProtocol`` for a scheme other than http and https, its
    ``LocalProtocolError`` for a head that cannot be written."""
    url = request.url
    scheme = url.raw_scheme
    if scheme not in DEFAULT_PORTS:
        raise stack.raises.UnsupportedProtocol(
            f"Request URL has an unsupported protocol '{url.scheme}://'.",
            request=real_request(request),
        )
    key: Key = (scheme, url.raw_host, url.port or DEFAULT_PORTS[scheme])
    raw = request.headers.raw
    try:
        head, chunked, closes = heads.head(request.method.encode("ascii"), url.raw_path, raw)
    except (ValueError, UnicodeEncodeError) as exc:
        message = str(exc)
        bad = _bad_field(raw) if "header" in message else ""
        if bad:
            message += f" in the field {bad!r}: <redacted>"
        raise stack.raises.LocalProtocolError(message, request=real_request(request)) from exc
    body: bytes | None = None
    content: bytes | None = None
    if isinstance(request, Http1Request):
        content = request.body
    elif isinstance(request.stream, stack.httpx.ByteStream):
        # the whole body is known (httpx's ``content=``, ``json=``, ``data=``)
        content = b"".join(request.stream)
    if content is not None:
        if chunked:
            content = (frame_chunk(content) if content else b"") + LAST_CHUNK
        body = content
    return Prepared(key, head, body, chunked, closes)


def protocol_error(exc: Exception, framing: Any, first: bytes) -> str:
    """The message of a response this client cannot read: the framing's, and while it is the
    head that fails, the answer's first bytes (as h11 quotes a bad status line: they tell a
    TLS record, from a port that speaks https, from garbage)."""
    if framing.status is None and first:
        return f"{exc} (the answer begins {first[:16]!r})"
    return str(exc)


def _bad_field(fields: Iterable[tuple[bytes, bytes]]) -> str:
    """The name of the first field ``encode_request_head`` refuses, for its error (the value is
    never shown: it may be a credential pasted with its line end)."""
    for name, value in fields:
        try:
            encode_request_head(b"GET", b"/", [(name, value)])
        except ValueError:
            return name.decode("latin-1")
    return ""


def new_framing(request: Any, limits: Limits) -> Any:
    """The framing of the response to ``request`` (``Http1Response`` of the codec)."""
    # (positional: a class called with keywords costs twice, and one is made per response)
    return Http1Response(request.method == "HEAD", limits.max_head_bytes, limits.max_headers)


def reusable(framing: Any, prepared: Prepared) -> bool:
    """Whether the connection of a complete response may carry another request."""
    return bool(framing.keep_alive) and not prepared.closes


KEEPALIVE_MARGIN = 1.0
"""The seconds an idle connection is dropped before the server's ``Keep-Alive: timeout=``
says it closes it (half of that timeout when it is shorter than twice this): the server's
count starts when it wrote the answer, before this client's does, and its close takes a while
to arrive; a request written meanwhile would be lost in the race."""


def idle_expiry(headers: Iterable[tuple[bytes, bytes]] | None, expiry: float) -> float:
    """The seconds a connection whose answer had ``headers`` may stay idle: ``expiry`` (the
    pool's ``keepalive_expiry``), or less when a ``Keep-Alive`` field names a shorter
    ``timeout=N`` (whole or decimal seconds): N less ``KEEPALIVE_MARGIN`` (less half of N when
    N is short), 0 for N of 0. A field that cannot be read is ignored."""
    for name, value in headers or ():
        # (most answers have no such field: one length test per field before the lower())
        if len(name) != 10 or name.lower() != b"keep-alive":
            continue
        for item in value.split(b","):
            param, _, number = item.partition(b"=")
            if param.strip(b" \t").lower() != b"timeout":
                continue
            try:
                timeout = float(number.strip(b' \t"'))
            except ValueError:
                continue
            if not 0.0 <= timeout < float("inf"):  # (NaN included)
                continue
            expiry = min(expiry, timeout - min(KEEPALIVE_MARGIN, timeout / 2))
    return expiry


Ended = tuple[bool, BaseException | None]
"""How a connection ended while an answer was awaited: whether a byte of the answer had been
received, and the connection's error (None: the end of the stream)."""


def may_resend(reused: bool, prepared: Prepared, ended: Ended | None) -> bool:
    """Whether a request (``prepared``) whose connection ``ended`` while its answer was awaited
    (None: it did not end, a timeout or a framing error broke the answer) is sent again, once,
    on a new connection: only when the connection was ``reused`` (taken idle from the pool),
    the request can be written again (its whole body is known: ``prepared.body``), not a byte
    of the answer was received, and the connection ended or was reset (``ConnectionError``).
    A server closes an idle connection as it pleases (its keep-alive timeout), and a request
    written as it did so was never read: a server answers what it reads, or says why, before
    it closes (the rule browsers apply to any method; a server that read the request and then
    closed without a word looks the same, and is sent it once more). A new connection is
    never resent on: the server took that one to serve the request; so a resent request is
    never resent again."""
    if not reused or ended is None or prepared.body is None:
        return False
    received, error = ended
    return not received and (error is None or isinstance(error, ConnectionError))


def response_extensions(framing: Any, network_stream: object) -> dict[str, Any]:
    """The extensions of an httpx response (httpcore's names)."""
    return {
        "http_version": framing.http_version,
        "reason_phrase": framing.reason,
        "network_stream": network_stream,
    }


class IdlePool(Generic[C]):
    """The idle connections of a pool, newest last, with the time until which each may stay
    idle, and the count of connections open (idle or carrying a request). No locking and no
    I/O: the sync transport holds its lock around each call, the async one runs on one loop;
    what is handed back to close, the caller closes."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._idle: list[tuple[C, Key, float]] = []
        self._soonest = math.inf
        """No idle connection expires before this time (the earliest of their ends, or earlier:
        connections taken out leave it as it was, and ``expire`` sets it right)."""
        self.open = 0
        """Connections counted against ``max_connections``: idle or in use."""
        self.closed = False
        """The transport was closed: no connection is handed out or kept any more."""

    def __len__(self) -> int:
        return len(self._idle)

    def expire(self, now: float) -> list[C]:
        """Drop the connections idle past their end at ``now`` (to be closed)."""
        if now <= self._soonest:
            return []  # none has expired
        dropped = [c for c, _, until in self._idle if now > until]
        self._idle = [entry for entry in self._idle if now <= entry[2]]
        self._soonest = min((until for _, _, until in self._idle), default=math.inf)
        self.open -= len(dropped)
        return dropped

    def next_expiry(self) -> float | None:
        """When the first idle connection expires (None: none idle, or no expiry): a driver that
        closes idle connections by a timer (``expire`` then) rather than at the next claim."""
        soonest = min((until for _, _, until in self._idle), default=math.inf)
        return None if soonest == math.inf else soonest

    def take(self, key: Key) -> C | None:
        """The newest idle connection to ``key`` (still counted as open), or None."""
        for index in range(len(self._idle) - 1, -1, -1):
            if self._idle[index][1] == key:
                return self._idle.pop(index)[0]
        return None

    def can_open(self) -> bool:
        """Whether a new connection stays within ``max_connections``."""
        limit = self.limits.max_connections
        return limit is None or self.open < limit

    def make_room(self) -> C | None:
        """When the pool is full, the oldest idle connection (to another origin, unless the
        caller wants a new connection to its own), taken out and uncounted so that a new one
        may open; None when every connection is in use."""
        if self.can_open() or not self._idle:
            return None
        self.open -= 1
        return self._idle.pop(0)[0]

    def take_fresh(self, key: Key, now: float) -> C | None:
        """The common case of ``claim``: the newest idle connection when it goes to ``key`` and
        none has expired at ``now`` (still counted as open, to be checked for staleness before
        use); else None, and nothing changed. ``RuntimeError`` once the transport is closed."""
        if self.closed:
            raise RuntimeError("the transport is closed")
        idle = self._idle
        if idle and idle[-1][1] == key and now <= self._soonest:
            return idle.pop()[0]
        return None

    def claim(self, key: Key, now: float, reuse: bool = True) -> tuple[list[C], C | None, bool]:
        """One try at a connection to ``key`` at time ``now``: the idle connections dropped
        meanwhile (expired, or the oldest one to make room: to be closed, uncounted), the newest
        idle one to ``key`` (to be checked for staleness before use; never when not ``reuse``:
        a request sent again after a reused connection closed goes on a new one), and whether a
        new one may open (then already counted); neither: every connection is in use, wait for
        one. ``RuntimeError`` once the transport is closed."""
        if reuse:
            fresh = self.take_fresh(key, now)
            if fresh is not None:
                return [], fresh, False
        elif self.closed:
            raise RuntimeError("the transport is closed")
        to_close = self.expire(now)
        found = self.take(key) if reuse else None
        if found is not None:
            return to_close, found, False
        room = self.make_room()
        if room is not None:
            to_close.append(room)
        if self.can_open():
            self.opened()
            return to_close, None, True
        return to_close, None, False

    def opened(self) -> None:
        """A new connection was opened (count it)."""
        self.open += 1

    def discard(self) -> None:
        """A connection in use was closed (uncount it)."""
        self.open -= 1

    def put(self, connection: C, key: Key, now: float, expiry: float | None = None) -> list[C]:
        """``connection`` (read to its end) is idle from ``now``, for ``expiry`` seconds (None:
        ``keepalive_expiry``; ``idle_expiry`` of its last answer); returns those dropped to
        keep within ``max_keepalive_connections`` (to be closed, already uncounted):
        ``connection`` itself once the transport is closed."""
        if self.closed:
            self.open -= 1
            return [connection]
        until = now + (self.limits.keepalive_expiry if expiry is None else expiry)
        self._idle.append((connection, key, until))
        if until < self._soonest:
            self._soonest = until
        keep = self.limits.max_keepalive_connections
        if len(self._idle) <= keep:
            return []
        cut = len(self._idle) - keep
        dropped = [c for c, _, _ in self._idle[:cut]]
        del self._idle[:cut]
        self.open -= len(dropped)
        return dropped

    def close(self) -> list[C]:
        """The transport is closed: every idle connection (to be closed, uncounted); those in
        use are closed when their responses are done with (``put``)."""
        self.closed = True
        idle = [c for c, _, _ in self._idle]
        self._idle = []
        self._soonest = math.inf
        self.open -= len(idle)
        return idle
