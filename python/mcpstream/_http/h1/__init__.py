"""HTTP/1.1 transports for httpx and httpx2: the framing of mcpstream's codec
(``Http1Response``, ``encode_request_head``: Rust or pure Python, no I/O), the reads and writes
on Python's ``socket`` and ``ssl`` (sync) or asyncio's transports (async), so that TLS is
configured as httpx configures it (``verify``, ``cert``, an ``ssl.SSLContext`` of the host's).
A host puts one under its own client::

    client = httpx.Client(transport=Http1Transport())
    aclient = httpx.AsyncClient(transport=AsyncHttp1Transport())

and ``transport_types("httpx2")`` gives the pair for httpx2's clients. They speak HTTP/1.1
only, to ``http`` and ``https`` URLs, without proxies: httpx's own transport stays the path for
anything else. mcpstream's own clients use them by default (see ``httpx_clients``), and so
does a host's stock async client under ``mcpstream.sdk`` (see
``host_probe.host_h1_transport`` and ``sdk.host``); ``MCPSTREAM_H1_TRANSPORT=0`` opts both
out.

The pool's rules are in ``pool``; the transports' options and everything of an exchange that
is no I/O (its errors, its response, the reuse of its connection) in ``base.Http1Base``.
Failures are the stack's exceptions, as httpx's own transport raises them: ``ConnectError``,
``ConnectTimeout``, ``PoolTimeout``, ``ReadError``, ``ReadTimeout``, ``WriteError``,
``WriteTimeout``, ``RemoteProtocolError`` (a response this client does not read, or a server
that closed without one or within one), ``LocalProtocolError`` (a request head that cannot be
written), ``UnsupportedProtocol``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..._httpbase.stack import HTTPX, HttpStack, stack_named
from . import aio, sync
from .aio import AsyncHttp1, AsyncHttp1Transport
from .sync import Http1Transport, SyncHttp1

__all__ = [
    "AsyncHttp1Transport",
    "Http1Transport",
    "arrived_whole",
    "transport_types",
    "whole_reader",
]

_BODIES = (sync._Body, aio._Body)

_TYPES: dict[str, tuple[type[Any], type[Any]]] = {HTTPX.name: (Http1Transport, AsyncHttp1Transport)}


def transport_types(stack: HttpStack | str) -> tuple[type[Any], type[Any]]:
    """``(sync, async)`` transport classes for the clients of ``stack`` (an ``HttpStack`` or
    its name, ``"httpx"`` or ``"httpx2"``): subclasses of its ``BaseTransport`` and
    ``AsyncBaseTransport`` raising its exceptions and returning its responses."""
    if isinstance(stack, str):
        stack = stack_named(stack)
    made = _TYPES.get(stack.name)
    if made is None:
        module = stack.httpx
        made = _TYPES[stack.name] = (
            type("Http1Transport", (SyncHttp1, module.BaseTransport), {"_stack": stack}),
            type("AsyncHttp1Transport", (AsyncHttp1, module.AsyncBaseTransport), {"_stack": stack}),
        )
    return made


def whole_reader(stream: Any) -> Callable[[int | None], Any] | None:
    """The ``read_whole`` of ``stream`` (a response's) where it is the body of one of these
    transports' responses, also inside the wrapper a stack's client puts around it (httpx's
    ``BoundSyncStream`` and ``BoundAsyncStream`` hold it as ``_stream``); None for any other
    stream. It reads the body into one ``bytes`` object (sync, or a coroutine)."""
    if not isinstance(stream, _BODIES):
        stream = getattr(stream, "_stream", None)
        if not isinstance(stream, _BODIES):
            return None
    read: Callable[[int | None], Any] = stream.read_whole
    return read


def arrived_whole(stream: Any) -> bytes | None:
    """The whole body of a response of the async transport (``stream``, also inside the
    wrapper of a stack's client) when all of it arrived and nothing of it was taken (reads
    nothing); None for any other stream, or a body still arriving."""
    if not isinstance(stream, aio._Body):
        stream = getattr(stream, "_stream", None)
        if not isinstance(stream, aio._Body):
            return None
    return stream.arrived_whole()
