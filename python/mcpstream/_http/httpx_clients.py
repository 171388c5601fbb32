"""The httpx clients the transports make for themselves when the host gives none.

By default they send over mcpstream's own HTTP/1.1 transport (``mcpstream._http.h1``: the
framing in the codec, the I/O on Python's sockets and asyncio's transports), with httpx's
default limits and the shared SSL context below (``make_client``, ``make_async_client``).
``MCPSTREAM_H1_TRANSPORT=0`` (``H1_ENV``) opts out, and a proxy configured in the environment
keeps them on httpx's own transport (the HTTP/1.1 transport speaks to no proxy): those clients
are httpx's default ones, with the changes to its connection pool that follow.

httpcore reads a response body 64 KiB at a time (``READ_NUM_BYTES`` of its HTTP/1.1
connection), and every read is a round of Python work before the bytes reach the SSE decoder:
h11's state machine and buffer copies, httpx's stream layers, and the hand-off from the sync
transport's reader thread to the calling thread. For a large SSE event these rounds cost about
as much as decoding it. The clients made here have network streams that ask for at least
``READ_BYTES`` (256 KiB) on every read, and for ``LARGE_READ_BYTES`` (1 MiB) right after a read
that got all it asked for (more is waiting: a large body): a sixteenth of the rounds for a large
body. Small answers keep the smaller reads (each read allocates what it asks for before the
socket says how much it holds). The small writes of a request leave in one send
(``large_reads``).

Under asyncio, the async clients connect through a backend on asyncio itself
(``asyncio_backend``) rather than httpcore's anyio one, whose every read and write runs under a
cancel scope with checkpoints (extra rounds of the event loop): a good part of a small call's
time. Elsewhere (trio) they keep httpcore's anyio backend, with streams reading in large pieces.
Everything else is httpx's default client (TLS, limits, HTTP/1.1, proxies from the environment,
which go through httpx's own proxy transports).

Every ``httpx.Client()`` builds an SSL context and loads the CA bundle into it (some 30 ms),
even for an ``http://`` URL that never uses it. The clients made here share one context per
process instead (``shared_ssl_context``, per CA setting of the environment), which loads its CA
bundle when it first wraps a socket: a session that makes no TLS connection never loads it.

The streams of the sync clients also obey the deadline of the operation under way on their
thread (``io_deadline``): every connect, TLS handshake, write and read is bounded by what is
left of it, so that a server trickling its headers a byte at a time cannot stretch a call past
its timeout (httpcore's own timeouts bound each read, not the whole wait). The async transport
needs no such bound from its streams: it runs every request, and every read of a body, under
``asyncio.timeout`` of what is left of the operation (``aio``, ``aio_io``).

httpx has no parameter for the network backend, so the connection pool of the client's default
transport (``Client._transport._pool``, not used yet) is replaced by one with the backend. Where
httpx's client is not built that way, or the core's pool does not have what this reads
(``capability``: probed once per stack, one WARNING logged), it is left as it is.

The clients are made on a stack (``stack.HttpStack``): httpx with httpcore by default, httpx2
with httpcore2 when a transport is asked to (``http_stack="httpx2"``); the backends and streams
raise the exceptions of the core of their pool (each maps only its own). On httpx2 the SSL
context is httpcore2's default one (the platform's trust store), made once per process and not
lazily (``stack_ssl_context``).

A host's sync client gets one thing from here: ``deadline_trace``, a ``trace`` request extension
that puts a ``DeadlineStream`` (the connection's own stream, bounded by the ``io_deadline``)
under the HTTP/1.1 connection carrying the request, so that a trickled head cannot stretch a
call past its timeout on the host's client either.
"""

from __future__ import annotations

import functools
import os
import ssl
import sys
import threading
import urllib.request
import weakref
from collections.abc import Callable
from types import FrameType
from typing import Any

import httpcore
import httpx
import sniffio

from .._httpbase.stack import HTTPX, HttpStack
from . import capability, shared_pools
from .asyncio_backend import AsyncioBackend
from .deadline import bounded as _bounded
from .deadline import io_deadline
from .h1 import transport_types
from .h1.base import NEXT_TLS_SESSION
from .large_reads import COALESCE_BYTES, LARGE_READ_BYTES, READ_BYTES, HeldWrites, next_ask

__all__ = [
    "COALESCE_BYTES",
    "H1_ENV",
    "LARGE_READ_BYTES",
    "READ_BYTES",
    "DeadlineStream",
    "LargeReadStream",
    "LazySSLContext",
    "deadline_bound",
    "deadline_trace",
    "direct_transport",
    "fields_owner",
    "h1_enabled",
    "io_deadline",
    "make_async_client",
    "make_client",
    "proxies_configured",
    "shared_ssl_context",
    "stack_ssl_context",
]

_LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=20, keepalive_expiry=5.0)
"""The limits of httpx's default client (``httpx._config.DEFAULT_LIMITS``)."""


class LazySSLContext(ssl.SSLContext):
    """httpx's default client context (``httpx.create_ssl_context()``: certificates verified,
    host names checked) whose CA certificates are loaded when it first wraps a socket or a BIO
    (the only ways httpcore's backends use it), not when it is made.

    ``cafile``/``capath``: the locations to load (None for both: certifi's bundle, as httpx).
    ``loads`` counts the loads (one at most), for tests.
    """

    cafile: str | None
    capath: str | None
    loads: int
    _load_lock: threading.Lock

    def __new__(cls, cafile: str | None = None, capath: str | None = None) -> LazySSLContext:
        context = super().__new__(cls, ssl.PROTOCOL_TLS_CLIENT)
        context.cafile, context.capath, context.loads = cafile, capath, 0
        context._load_lock = threading.Lock()
        # What ``ssl.create_default_context`` sets besides the CA certificates: from Python
        # 3.13 stricter chain checks too, which a context made here must not lack.
        if sys.version_info >= (3, 13):
            context.verify_flags |= ssl.VERIFY_X509_PARTIAL_CHAIN | ssl.VERIFY_X509_STRICT
        keylog = os.environ.get("SSLKEYLOGFILE")
        if keylog and not sys.flags.ignore_environment and hasattr(context, "keylog_filename"):
            context.keylog_filename = keylog
        return context

    def __init__(self, cafile: str | None = None, capath: str | None = None) -> None:
        # ``ssl.SSLContext`` takes the protocol in ``__new__``; nothing is left to set here.
        pass

    def _ensure_loaded(self) -> None:
        if self.loads:
            return
        with self._load_lock:
            if self.loads:
                return
            if self.cafile is None and self.capath is None:
                import certifi

                self.load_verify_locations(cafile=certifi.where())
            else:
                self.load_verify_locations(cafile=self.cafile, capath=self.capath)
            self.loads += 1

    def wrap_socket(self, *args: Any, **kwargs: Any) -> ssl.SSLSocket:
        """``ssl.SSLContext.wrap_socket``, once the CA certificates are loaded."""
        self._ensure_loaded()
        return super().wrap_socket(*args, **kwargs)

    def wrap_bio(self, *args: Any, **kwargs: Any) -> ssl.SSLObject:
        """``ssl.SSLContext.wrap_bio``, once the CA certificates are loaded, resuming the TLS
        session the HTTP/1.1 transport set for it (``NEXT_TLS_SESSION``: asyncio's
        ``start_tls`` takes none) unless one is given."""
        self._ensure_loaded()
        if kwargs.get("session") is None and not kwargs.get("server_side"):
            kwargs["session"] = NEXT_TLS_SESSION.get()
        return super().wrap_bio(*args, **kwargs)


_SHARED_CONTEXTS: dict[tuple[str | None, str | None], LazySSLContext] = {}
_SHARED_LOCK = threading.Lock()


def shared_ssl_context() -> LazySSLContext:
    """The process's SSL context for the CA setting of the environment as httpx reads it
    (``SSL_CERT_FILE``, else ``SSL_CERT_DIR``, else certifi's bundle), made on first use."""
    cafile = os.environ.get("SSL_CERT_FILE") or None
    capath = None if cafile else os.environ.get("SSL_CERT_DIR") or None
    key = (cafile, capath)
    context = _SHARED_CONTEXTS.get(key)
    if context is None:
        with _SHARED_LOCK:
            context = _SHARED_CONTEXTS.get(key)
            if context is None:
                context = _SHARED_CONTEXTS[key] = LazySSLContext(cafile, capath)
    return context


class DeadlineStream(httpcore.NetworkStream):
    """The network stream of a connection of a host's sync client, as it is (its reads and
    writes unchanged), except that every I/O obeys the ``io_deadline``: installed by the
    ``trace`` of ``deadline_trace`` so that a server trickling its head a byte at a time cannot
    stretch a call past its timeout on a host's client either. Without a deadline (the host's
    own requests on the connection) it only passes every call on. ``core`` is the httpcore
    module of the pool (httpcore or httpcore2), whose timeouts it raises."""

    def __init__(self, stream: httpcore.NetworkStream, core: Any = httpcore) -> None:
        self._stream = stream
        self._core = core

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, _bounded(timeout, self._core.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, _bounded(timeout, self._core.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        timeout = _bounded(timeout, self._core.ConnectTimeout)
        stream = self._stream.start_tls(ssl_context, server_hostname, timeout)
        # The TLS stream keeps the wrapping (and, in a subclass, its read and write rules).
        return type(self)(stream, self._core)

    def get_extra_info(self, info: str) -> object:
        return self._stream.get_extra_info(info)


class LargeReadStream(DeadlineStream):
    """A network stream whose reads ask for at least ``READ_BYTES``, whose small writes leave
    together (``HeldWrites``), and whose every I/O obeys the ``io_deadline`` (raising the
    timeouts of ``core``, the httpcore module of its pool: httpcore or httpcore2)."""

    def __init__(self, stream: httpcore.NetworkStream, core: Any = httpcore) -> None:
        super().__init__(stream, core)
        self._held = HeldWrites()
        self._ask = READ_BYTES

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        if self._held.size:
            self._stream.write(self._held.take(), _bounded(timeout, self._core.WriteTimeout))
        timeout = _bounded(timeout, self._core.ReadTimeout)
        asked = max(max_bytes, self._ask)
        data = self._stream.read(asked, timeout)
        self._ask = next_ask(asked, data)
        return data

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if (data := self._held.hold(buffer)) is not None:
            self._stream.write(data, _bounded(timeout, self._core.WriteTimeout))


_TRACE_FRAMES = 5
"""How far up from the ``trace`` callback the HTTP/1.1 connection's ``handle_request`` is
looked for (the callback, ``Trace.trace``, ``Trace.__enter__``, then it)."""


@functools.cache
def deadline_trace(stack: HttpStack) -> Callable[[str, dict[str, Any]], None] | None:
    """The ``trace`` request extension that puts a ``DeadlineStream`` under the HTTP/1.1
    connection carrying a request of a host's sync client on ``stack`` (once per connection,
    when it starts sending the request's head), or None where the stack's core does not have
    the connection this reads (``capability``: each read of the head is then bounded by the
    read timeout, not the whole wait).

    httpcore gives the callback no handle on the connection: it is the ``self`` of the frame
    of ``HTTP11Connection.handle_request`` that announces ``send_request_headers``, checked to
    be exactly the core's class and to hold a network stream."""
    if not capability.usable(stack, "connection"):
        return None
    core = stack.httpcore
    connection_type = core.HTTP11Connection

    def trace(event: str, info: dict[str, Any]) -> None:
        if event != "http11.send_request_headers.started":
            return
        frame: FrameType | None = sys._getframe(1)
        for _ in range(_TRACE_FRAMES):
            if frame is None:
                return
            connection: Any = frame.f_locals.get("self")
            if type(connection) is connection_type:
                stream = getattr(connection, "_network_stream", None)
                if stream is not None and type(stream) is not DeadlineStream:
                    connection._network_stream = DeadlineStream(stream, core)
                return
            frame = frame.f_back

    return trace


class _LargeReadBackend(httpcore.NetworkBackend):
    """The sync backend of ``core`` (httpcore or httpcore2), with streams that read in large
    pieces."""

    def __init__(self, core: Any = httpcore) -> None:
        self._core = core
        self._backend = core.SyncBackend()

    # The arguments are httpcore's, passed on as they are (the timeout bounded: httpcore
    # passes it by keyword).
    def connect_tcp(self, *args: Any, **kwargs: Any) -> httpcore.NetworkStream:
        kwargs["timeout"] = _bounded(kwargs.get("timeout"), self._core.ConnectTimeout)
        return LargeReadStream(self._backend.connect_tcp(*args, **kwargs), self._core)

    def connect_unix_socket(self, *args: Any, **kwargs: Any) -> httpcore.NetworkStream:
        kwargs["timeout"] = _bounded(kwargs.get("timeout"), self._core.ConnectTimeout)
        return LargeReadStream(self._backend.connect_unix_socket(*args, **kwargs), self._core)

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


class _AsyncLargeReadStream(httpcore.AsyncNetworkStream):
    """An async network stream of httpcore's anyio backend whose reads ask for at least
    ``READ_BYTES`` (more after a full read) and whose small writes are held as by
    ``LargeReadStream``."""

    def __init__(self, stream: httpcore.AsyncNetworkStream) -> None:
        self._stream = stream
        self._held = HeldWrites()
        self._ask = READ_BYTES

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        if self._held.size:
            await self._stream.write(self._held.take(), timeout)
        asked = max(max_bytes, self._ask)
        data = await self._stream.read(asked, timeout)
        self._ask = next_ask(asked, data)
        return data

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if (data := self._held.hold(buffer)) is not None:
            await self._stream.write(data, timeout)

    async def aclose(self) -> None:
        await self._stream.aclose()

    # The arguments are httpcore's (``ssl_context``, ``server_hostname``, ``timeout``).
    async def start_tls(self, *args: Any, **kwargs: Any) -> httpcore.AsyncNetworkStream:
        return _AsyncLargeReadStream(await self._stream.start_tls(*args, **kwargs))

    def get_extra_info(self, info: str) -> object:
        return self._stream.get_extra_info(info)


class _AsyncLargeReadBackend(httpcore.AsyncNetworkBackend):
    """The asyncio backend (``AsyncioBackend``) under asyncio; elsewhere (trio) the anyio
    backend of ``core`` (httpcore or httpcore2), with streams that read in large pieces. Which
    one is decided on each connect, as httpcore's own backend does (a client may be made
    outside any event loop)."""

    def __init__(self, core: Any = httpcore) -> None:
        self._asyncio = AsyncioBackend(core)
        self._backend = core.AnyIOBackend()

    # The arguments are httpcore's, passed on as they are.
    async def connect_tcp(self, *args: Any, **kwargs: Any) -> httpcore.AsyncNetworkStream:
        if sniffio.current_async_library() == "asyncio":
            return await self._asyncio.connect_tcp(*args, **kwargs)
        return _AsyncLargeReadStream(await self._backend.connect_tcp(*args, **kwargs))

    async def connect_unix_socket(self, *args: Any, **kwargs: Any) -> httpcore.AsyncNetworkStream:
        if sniffio.current_async_library() == "asyncio":
            return await self._asyncio.connect_unix_socket(*args, **kwargs)
        return _AsyncLargeReadStream(await self._backend.connect_unix_socket(*args, **kwargs))

    async def sleep(self, seconds: float) -> None:
        await self._backend.sleep(seconds)


def _pool_settings(ssl_context: ssl.SSLContext) -> dict[str, Any]:
    """The settings of httpx's default connection pool, for the one replacing it."""
    return {
        "ssl_context": ssl_context,
        "max_connections": _LIMITS.max_connections,
        "max_keepalive_connections": _LIMITS.max_keepalive_connections,
        "keepalive_expiry": _LIMITS.keepalive_expiry,
    }


_DIRECT: weakref.WeakKeyDictionary[httpx.Client | httpx.AsyncClient, Any] = (
    weakref.WeakKeyDictionary()
)


def direct_transport(client: httpx.Client | httpx.AsyncClient) -> Any:
    """The transport that every request of ``client`` goes through when the client is one made
    here without proxies (None otherwise): a request may then be handed to it directly (see
    ``wire.send``). A host's client is never one (a proxy of one may not even take a weak
    reference)."""
    try:
        transport = _DIRECT.get(client)
    except TypeError:  # not weakly referenceable: not a client made here
        return None
    if type(transport) is shared_pools.LoopShared:  # the running loop's pool
        return transport.current()
    return transport


def deadline_bound(response: httpx.Response) -> bool:
    """Whether every read of the body of ``response`` obeys the ``io_deadline``: its network
    stream is one of the clients made here, or a host's connection given a ``DeadlineStream``
    (``deadline_trace``)."""
    stream = response.extensions.get("network_stream")
    # LargeReadStream is a DeadlineStream too; the h1 transport's sync connections say so
    return isinstance(stream, DeadlineStream) or getattr(stream, "deadline_bound", False) is True


_STACK_CONTEXTS: dict[tuple[str, str | None, str | None], ssl.SSLContext] = {}


def stack_ssl_context(stack: HttpStack) -> ssl.SSLContext:
    """The SSL context of the clients made here on ``stack``: on httpx the lazily loaded one
    (``shared_ssl_context``, certifi's bundle as httpx); on httpx2 the context httpcore2 makes
    by default (the system's trust store, as httpx2), made once per process and CA setting of
    the environment (httpx2 reads the same two variables). It is not lazy: httpx2's trust
    store is the platform's (``truststore`` on Windows and macOS), which a lazy twin would have
    to copy."""
    if stack.httpcore is httpcore:
        return shared_ssl_context()
    cafile = os.environ.get("SSL_CERT_FILE") or None
    capath = None if cafile else os.environ.get("SSL_CERT_DIR") or None
    key = (stack.name, cafile, capath)
    context = _STACK_CONTEXTS.get(key)
    if context is None:
        with _SHARED_LOCK:
            context = _STACK_CONTEXTS.get(key)
            if context is None:
                context = _STACK_CONTEXTS[key] = stack.httpcore.default_ssl_context()
    return context


def _reading_in_large_pieces(
    stack: HttpStack, asynchronous: bool, backend: Callable[[Any], object]
) -> Any:
    """A default client of ``stack`` (its ``AsyncClient`` when ``asynchronous``) whose pool
    (in its default transport) is replaced by one with ``backend(core)``; left as the stack
    built it where it builds it another way, or where its pool does not have what the
    replacement reads (``capability``).

    Without proxies in the environment the client is given its transport (which httpx would
    have made the same way, with the same context and limits), so that it is known to carry
    every request; with proxies, httpx makes its transports itself (one per proxy)."""
    module, core = stack.httpx, stack.httpcore
    pool_type: Any
    if asynchronous:
        client_type, transport_type = module.AsyncClient, module.AsyncHTTPTransport
        pool_type = core.AsyncConnectionPool
    else:
        client_type, transport_type = module.Client, module.HTTPTransport
        pool_type = core.ConnectionPool
    ssl_context = stack_ssl_context(stack)
    limits = module.Limits(
        max_connections=_LIMITS.max_connections,
        max_keepalive_connections=_LIMITS.max_keepalive_connections,
        keepalive_expiry=_LIMITS.keepalive_expiry,
    )
    direct = not proxies_configured()
    if direct:
        client = client_type(
            follow_redirects=False, transport=transport_type(verify=ssl_context, limits=limits)
        )
    else:
        client = client_type(follow_redirects=False, verify=ssl_context)
    if not capability.usable(stack, "pool"):
        return client
    transport: Any = getattr(client, "_transport", None)
    current: Any = getattr(transport, "_pool", None)
    if type(transport) is transport_type and type(current) is pool_type:
        pool = type(current)(network_backend=backend(core), **_pool_settings(ssl_context))
        transport._pool = pool
        if direct:
            _DIRECT[client] = transport
    return client


H1_ENV = "MCPSTREAM_H1_TRANSPORT"
"""The environment variable that opts out of mcpstream's own HTTP/1.1 transport
(``mcpstream._http.h1``), the default of the clients made here and of a host's stock async
client under ``mcpstream.sdk``: ``0`` puts them on httpx's own transport; unset, empty or
anything else leaves the HTTP/1.1 transport on. With proxies in the environment the clients
stay httpx's whatever it says."""


def h1_enabled() -> bool:
    """Whether mcpstream's HTTP/1.1 transport is on: unless ``H1_ENV`` is ``0`` (read at each
    call, so a process can switch it before it makes a client)."""
    return os.environ.get(H1_ENV, "") != "0"


class _FieldsOwner:
    """What the clients of one stack and kind made on the shared pools have in common for
    ``wire``'s cache of header blocks: the same default headers (httpx's, never changed)."""


_FIELDS_OWNERS: weakref.WeakKeyDictionary[Any, _FieldsOwner] = weakref.WeakKeyDictionary()
_OWNERS: dict[tuple[str, bool], _FieldsOwner] = {}


def _fields_owner(stack_name: str, asynchronous: bool) -> _FieldsOwner:
    owner = _OWNERS.get((stack_name, asynchronous))
    if owner is None:
        owner = _OWNERS.setdefault((stack_name, asynchronous), _FieldsOwner())
    return owner


def fields_owner(client: httpx.Client | httpx.AsyncClient) -> Any:
    """Whose cache of header blocks ``client``'s requests use (``wire._fields``): one for all
    the clients of a stack and kind made on the shared pools, which send the same default
    headers (a session per call then builds its header block once, not once a session);
    else the client itself."""
    try:
        return _FIELDS_OWNERS.get(client, client)
    except TypeError:  # not weakly referenceable: not a client made here
        return client


_NO_PROXY_NAMES: list[frozenset[Any]] = [frozenset()]
"""The names of the last environment found to name no proxy (the check of the same names
again is one set comparison)."""


def proxies_configured() -> bool:
    """Whether a proxy is configured (``urllib.request.getproxies()``: what httpx reads).
    Where that reads the environment alone (not macOS, not Windows, which read the system's
    settings too), an environment with no variable naming a proxy is answered without it:
    ``getproxies`` decodes and lowers every variable, at a tenth of a millisecond a client.
    The names of such an environment are remembered: while they stay the same (a value may
    change, but only a variable named for a proxy could name one), no name is looked at."""
    if sys.platform not in ("darwin", "win32"):
        data: Any = getattr(os.environ, "_data", None)
        if isinstance(data, dict):
            names = data.keys()
            if names == _NO_PROXY_NAMES[0]:
                return False
            if all(isinstance(name, bytes) and b"proxy" not in name.lower() for name in names):
                _NO_PROXY_NAMES[0] = frozenset(names)
                return False
    return bool(urllib.request.getproxies())


def _on_h1(stack: HttpStack, asynchronous: bool, shared: bool = True) -> Any:
    """A client of ``stack`` over the HTTP/1.1 transport unless ``H1_ENV`` opts out or a
    proxy is configured (None then), with the shared SSL context; its transport carries every
    request (``direct_transport``). Unless ``shared_pools.SHARED_ENV`` opts out, that
    transport is the process's (``shared_pools``: the client borrows it, and closing the
    client leaves it open); else its own, with httpx's default limits."""
    if not h1_enabled() or proxies_configured():
        return None
    module = stack.httpx
    client_type = module.AsyncClient if asynchronous else module.Client
    if shared and shared_pools.shared_enabled():
        context = stack_ssl_context(stack)
        target: Any = (
            shared_pools.LoopShared(stack, context)
            if asynchronous
            else shared_pools.sync_shared(stack, context)
        )
        client = _unconfigured_client(
            stack, asynchronous, shared_pools.borrowed(stack, target, asynchronous)
        )
        _DIRECT[client] = target
        _FIELDS_OWNERS[client] = _fields_owner(stack.name, asynchronous)
        return client
    sync_type, async_type = transport_types(stack)
    transport = (async_type if asynchronous else sync_type)(
        verify=stack_ssl_context(stack),
        max_connections=_LIMITS.max_connections,
        max_keepalive_connections=_LIMITS.max_keepalive_connections,
        keepalive_expiry=_LIMITS.keepalive_expiry,
    )
    client = client_type(follow_redirects=False, transport=transport)
    _DIRECT[client] = transport
    return client


_CLIENT_FIELDS = frozenset(
    {
        "_auth",
        "_base_url",
        "_cookies",
        "_default_encoding",
        "_event_hooks",
        "_headers",
        "_mounts",
        "_params",
        "_state",
        "_timeout",
        "_transport",
        "_trust_env",
        "follow_redirects",
        "max_redirects",
    }
)
"""The attributes of a stack's client (httpx 0.28, httpx2 2.x) that ``_unconfigured_client``
copies; a client holding any other is made by its constructor."""

_PROTOTYPES: dict[tuple[str, bool], dict[str, Any] | None] = {}
"""By stack and kind, the attributes of a client made by the constructor as
``_unconfigured_client`` makes one (None: the stack's client is not the one expected)."""


def _unconfigured_client(stack: HttpStack, asynchronous: bool, transport: Any) -> Any:
    """``client_type(follow_redirects=False, transport=transport)`` of ``stack``: a copy of the
    attributes of one made so once, with headers, cookies, event hooks and mounts of its own
    (the constructor parses an empty base URL and makes the default headers, the cookie jar
    and the proxy map, about a tenth of what a session per call costs). The constructor makes
    it where the stack's client has other attributes than those expected (``_CLIENT_FIELDS``)."""
    module = stack.httpx
    client_type = module.AsyncClient if asynchronous else module.Client
    key = (stack.name, asynchronous)
    if key not in _PROTOTYPES:
        made = client_type(follow_redirects=False, transport=transport)
        fields = dict(vars(made))
        expected = set(fields) == _CLIENT_FIELDS and not fields["_mounts"]
        fields["_transport"] = None  # (nothing of the session's kept)
        _PROTOTYPES[key] = fields if expected else None
        return made
    prototype = _PROTOTYPES[key]
    if prototype is None:
        return client_type(follow_redirects=False, transport=transport)
    client = client_type.__new__(client_type)
    fields = dict(prototype)
    fields["_headers"] = prototype["_headers"].copy()
    fields["_cookies"] = module.Cookies()
    fields["_event_hooks"] = {"request": [], "response": []}
    fields["_mounts"] = {}
    fields["_transport"] = transport
    vars(client).update(fields)
    return client


def make_client(stack: HttpStack = HTTPX, *, shared: bool = True) -> httpx.Client:
    """The default ``Client`` of ``stack`` (redirects not followed), reading in large pieces
    (an ``httpx2.Client`` on the httpx2 stack: the annotation is httpx's, whose API it has);
    over the HTTP/1.1 transport unless ``H1_ENV`` opts out or a proxy is configured, and that
    the process's (``shared_pools``) unless not ``shared`` or opted out: a pool of its own,
    closed with it, for a client whose connections must be its own (the sync GET stream's,
    whose stop shuts down the socket of the connection it opened)."""
    client: httpx.Client = _on_h1(stack, False, shared) or _reading_in_large_pieces(
        stack, False, _LargeReadBackend
    )
    return client


def make_async_client(stack: HttpStack = HTTPX) -> httpx.AsyncClient:
    """The default ``AsyncClient`` of ``stack`` (redirects not followed), reading in large
    pieces; over the HTTP/1.1 transport unless ``H1_ENV`` opts out or a proxy is configured."""
    client: httpx.AsyncClient = _on_h1(stack, True) or _reading_in_large_pieces(
        stack, True, _AsyncLargeReadBackend
    )
    return client
