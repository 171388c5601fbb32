"""Whether mcpstream's HTTP/1.1 transport can stand in for a host's httpx client, and how.

A host hands mcpstream an async client (``mcpstream.sdk``) or an object forwarding to one.
This module answers the questions asked of it before a session sends anything: which client's
own ``send`` the object sends with (``sender_of``), whether that client sends through its
stack's stock transport and pool (``stock_async_transport``), and the HTTP/1.1 transport, with
the pool's SSL context and limits, that can stand in for them (``h1_stand_in``,
``host_h1_transport``), or else the speed work a stock connection of the client can take
(``host_response_hooks``). Every private attribute read here is read defensively: another
release of the stack answers "no", and the host's client keeps its own transport. What is on
the way of a request (instrumentation, mocks, wrappers) is ``interception``'s question; the
view that sends through the stand-in is ``host_view``'s.
"""

from __future__ import annotations

import functools
import inspect
import ssl
import sys
import types
from typing import Any

from .._httpbase.stack import HttpStack
from . import capability, receive_buffer
from .h1 import transport_types
from .interception import SEND_PATH
from .large_reads import READ_BYTES

__all__ = [
    "h1_stand_in",
    "host_h1_transport",
    "host_response_hooks",
    "sender_of",
    "stock_async_transport",
]


def stock_async_transport(client: Any, stack: HttpStack) -> bool:
    """Whether the host's async ``client`` sends through the stack's stock transport and
    connection pool (exactly their classes: no proxy, no transport or pool of the host's)."""
    try:
        transport = client._transport
        pool = transport._pool
    except AttributeError:
        return False
    return type(transport) is stack.httpx.AsyncHTTPTransport and (
        type(pool) is stack.httpcore.AsyncConnectionPool
    )


def _private(module: object, *path: str) -> object:
    """The class at ``path`` under ``module`` (private names of httpx: another version may
    not have it), or a fresh object no type is."""
    found: object = module
    for name in path:
        found = getattr(found, name, _MISSING)
    return found


_MISSING = object()


class _Unbound:
    """A response's stream under the client's timing wrapper, as ``receive_buffer.install``
    reads a response."""

    __slots__ = ("stream",)

    def __init__(self, stream: object) -> None:
        self.stream = stream


def host_response_hooks(client: Any, response: Any, stack: HttpStack) -> bool:
    """Give the HTTP/1.1 connection under ``response`` of a host's async ``client`` the speed
    work of the clients made here, where it is safe: the stack's httpx, core and h11 have what
    it reads (``capability``), the client sends through its stack's stock
    transport and pool (``stock_async_transport``), and the connection is exactly the core's
    HTTP/1.1 connection. Its reads then ask for ``READ_BYTES`` (the core asks for 64 KiB; a
    read returns what the socket holds, so a small answer costs nothing more) and h11 hands a
    large body's received pieces on uncopied (``receive_buffer``). Nothing of what the client
    sends changes, nor its hooks, auth or pool. True when they were installed."""
    if not stock_async_transport(client, stack) or not capability.usable(
        stack, "pool", "connection", "response_stream", "receive_buffer"
    ):
        return False
    bound = response.stream
    if type(bound) is not _private(stack.httpx, "_client", "BoundAsyncStream"):
        return False
    inner = getattr(bound, "_stream", None)
    if type(inner) is not _private(stack.httpx, "_transports", "default", "AsyncResponseStream"):
        return False
    pool_stream = getattr(inner, "_httpcore_stream", None)
    connection: Any = getattr(getattr(pool_stream, "_stream", None), "_connection", None)
    if type(connection) is not stack.httpcore.AsyncHTTP11Connection:
        return False
    if connection.READ_NUM_BYTES < READ_BYTES:
        connection.READ_NUM_BYTES = READ_BYTES
    receive_buffer.install(_Unbound(inner))  # type: ignore[arg-type]
    return True


def host_h1_transport(client: Any, stack: HttpStack) -> Any:
    """An HTTP/1.1 transport of mcpstream's (``h1``, async) with the settings of the stock
    transport of the host's async ``client``, to stand in for it (the caller closes it), or
    None where it cannot: the stack's pool does not have what this reads (``capability``),
    the client does not send through the stack's stock transport
    and pool (``stock_async_transport``), or its pool has a setting the HTTP/1.1 transport
    does not honour (HTTP/2 or no HTTP/1.1, a proxy, a Unix socket, a local address, socket
    options, retries, a network backend of its own, no SSL context).

    The transport uses the pool's own SSL context object (the host's verify, CA certificates
    and client certificate) and its limits: connections, idle connections kept, their expiry
    (none: kept as long as they last)."""
    if not stock_async_transport(client, stack) or not capability.usable(stack, "pool"):
        return None
    pool = client._transport._pool
    try:
        ssl_context = pool._ssl_context
        unsupported = (
            pool._proxy is not None
            or pool._uds is not None
            or pool._local_address is not None
            or bool(pool._socket_options)
            or bool(pool._retries)
            or pool._http2
            or not pool._http1
            or type(pool._network_backend)
            is not _private(stack.httpcore, "_backends", "auto", "AutoBackend")
            or not isinstance(ssl_context, ssl.SSLContext)
        )
        max_connections = pool._max_connections
        max_keepalive = pool._max_keepalive_connections
        expiry = pool._keepalive_expiry
    except AttributeError:  # another pool than the one this was written for
        return None
    if unsupported:
        return None
    return transport_types(stack)[1](
        verify=ssl_context,
        # The pool stands for "no bound" with sys.maxsize.
        max_connections=None if max_connections >= sys.maxsize else max_connections,
        max_keepalive_connections=max_keepalive,
        keepalive_expiry=float("inf") if expiry is None else expiry,
    )


def h1_stand_in(client: Any, stack: HttpStack) -> Any:
    """``host_h1_transport`` for a client of the stack's ``AsyncClient`` class, or of a subclass
    that keeps its way of sending (``SEND_PATH``): a subclass's own ``send`` may keep state on
    its object, and an object forwarding to a client sends as it likes, so either is sent
    through as it is (``sender_of``: unless it sends with the client's own ``send``)."""
    base = stack.httpx.AsyncClient
    if not isinstance(client, base):
        return None
    cls = type(client)
    if any(getattr(cls, name, None) is not getattr(base, name) for name in SEND_PATH):
        return None
    return host_h1_transport(client, stack)


def sender_of(client: Any, stack: HttpStack) -> tuple[Any, dict[str, Any]] | None:
    """The client whose own ``send`` the host's ``client`` sends with, and the keywords it adds
    to each call, or None where that is not clear. A client of the stack is its own sender
    when its ``send`` is its bound stock one (not one set on the object). An object forwarding
    to a client (Pydantic AI's borrowed client) is that client's sender when its ``send`` is the
    client's bound stock ``send``, or a plain ``functools.partial`` of it with no positional
    arguments and only keyword-only arguments of the stock ``send`` (``auth``): the view of the
    client then sends as that ``send`` would. mcpstream sends with ``send`` only (``build_request``
    and the timeouts stay the object's), so no other method of the wrapper is bypassed. A
    ``send`` of the object's own, or of a client of another class, may do anything: None."""
    base = stack.httpx.AsyncClient
    is_client = isinstance(client, base)
    try:
        send = client.send
    except Exception:  # no send to read: the host's object is sent through as it is
        return None
    keywords: dict[str, Any] = {}
    if type(send) is functools.partial and not is_client:
        if send.args or not set(send.keywords) <= _send_keywords(base):
            return None
        keywords = dict(send.keywords)
        send = send.func
    if type(send) is not types.MethodType or send.__func__ is not base.send:
        return None
    inner = send.__self__
    if not isinstance(inner, base) or (is_client and inner is not client):
        return None
    return inner, keywords


def _send_keywords(base: type[Any]) -> frozenset[str]:
    """The keyword-only arguments of the stock ``send`` of ``base`` (``stream``, ``auth``,
    ``follow_redirects``)."""
    parameters = inspect.signature(base.send).parameters.values()
    return frozenset(p.name for p in parameters if p.kind is inspect.Parameter.KEYWORD_ONLY)
