"""What a host or its platform installed on the way its client's requests take, found before
a transport of mcpstream's stands in for that client's (its HTTP/1.1 transport under a host's
async client, a connection of its own for a sync HTTP/2 client's GET stream).

How this works: under ``mcpstream.sdk``, a host's stock async client sends through a view of
itself whose default transport is mcpstream's (``sdk.host``). The client's own ``send`` still
runs (its event hooks, auth, cookies, redirects), but nothing below its
``_send_single_request`` does: not the transport's ``handle_async_request``, not the core's
pool, connections or network backend. That is where hosts and their platforms hook in:
OpenTelemetry's httpx instrumentation wraps the transport's method on the class
(``instrument()``) or on the client's transport (``instrument_client``, which also marks the
client), respx replaces the core's pool and connection methods, and a host's egress control,
audit log or test double may wrap any of them, or a method of the client, on the class or on
the object. A request that leaves while such a hook is silently skipped bypasses the host's
control, so a client with any of them keeps its own transport.

What is looked at is what is there, not a list of known tools: every method on the way is the
function the stack's own package defines (a plain function whose code lives in that package,
with no ``__wrapped__``), nothing on the way is set on the client's or transport's object, and
the client carries no instrumentation marker. ``Interception`` checks a client once in full,
then on every send compares the few attributes it read by identity (a patch made after the
session opened is found at its next request).
"""

from __future__ import annotations

import functools
import logging
import os
import threading
import types
from collections.abc import Iterator
from typing import Any

from .._httpbase.stack import HttpStack

logger = logging.getLogger("mcpstream")

__all__ = ["SEND_PATH", "Interception", "interception", "say_kept"]

SEND_PATH = (
    "send",
    "_send_handling_auth",
    "_send_handling_redirects",
    "_send_single_request",
    "_transport_for_url",
)
"""The methods of httpx's ``AsyncClient`` that carry a request to its transport."""

_ASYNC_CORE = (
    ("AsyncConnectionPool", "handle_async_request"),
    ("AsyncHTTPConnection", "handle_async_request"),
    ("AsyncHTTP11Connection", "handle_async_request"),
    ("_backends.auto.AutoBackend", "connect_tcp"),
    ("_backends.anyio.AnyIOBackend", "connect_tcp"),
)
"""The core's classes and methods a request of a stock async client runs through below its
transport (the pool, the connection and its HTTP/1.1 half, the network backend that opens
sockets)."""
_SYNC_CORE = (
    ("ConnectionPool", "handle_request"),
    ("HTTPConnection", "handle_request"),
    ("HTTP11Connection", "handle_request"),
    ("HTTP2Connection", "handle_request"),
    ("_backends.sync.SyncBackend", "connect_tcp"),
)
"""The same for a sync client (its HTTP/2 half too: a sync HTTP/2 client's GET stream is given
a connection of its own, ``host_view.own_connection``)."""

_MARKERS = ("_is_instrumented_by_opentelemetry",)
"""Attributes an instrumentation sets on a client it hooked (OpenTelemetry's
``instrument_client``)."""


@functools.cache
def _package_dir(module: types.ModuleType) -> str:
    """The folder of ``module``'s package. An imported module's path is absolute already; only
    a relative one is resolved (once: ``abspath`` reads the working directory, file-system work
    that an event loop's blocking-call checks refuse, and a session may now be opened on the
    loop: ``sdk.client``)."""
    path = module.__file__ or ""
    if not os.path.isabs(path):
        path = os.path.abspath(path)
    return os.path.dirname(os.path.normpath(path)) + os.sep


def _defined_in(function: object, package_dir: str) -> bool:
    """Whether ``function`` is a plain function of the package in ``package_dir``: not a
    wrapper (wrapt's proxies are not of the function type, whatever ``__class__`` says; a
    ``functools.wraps`` wrapper has ``__wrapped__``), not a mock or a function of another
    package put in its place."""
    if type(function) is not types.FunctionType or hasattr(function, "__wrapped__"):
        return False
    return function.__code__.co_filename.startswith(package_dir)


def _class_at(module: types.ModuleType, path: str) -> type[Any] | None:
    found: Any = module
    for name in path.split("."):
        found = getattr(found, name, None)
    return found if isinstance(found, type) else None


def _defining(cls: type[Any], name: str) -> tuple[type[Any], object] | None:
    """The class of ``cls``'s MRO that defines ``name``, and what it holds there."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass, klass.__dict__[name]
    return None


class Interception:
    """The check of one host client (``client``, of ``stack``'s ``AsyncClient`` or a subclass)
    for anything installed on the way its requests take: ``reason()`` says what was found
    (None: nothing), in full the first time and whenever an attribute it read changed since."""

    __slots__ = ("_client", "_core", "_method", "_seen", "_stack")

    def __init__(self, client: Any, stack: HttpStack) -> None:
        self._client = client
        self._stack = stack
        asynchronous = isinstance(client, stack.httpx.AsyncClient)
        self._method = "handle_async_request" if asynchronous else "handle_request"
        """The transport's (and pool's) method a request goes through."""
        self._core = _ASYNC_CORE if asynchronous else _SYNC_CORE
        self._seen: tuple[tuple[Any, str, object], ...] | None = None
        """The (owner, name, value) of every attribute read by the last full check that found
        nothing: while each is still the same object, nothing was installed since."""

    def reason(self) -> str | None:
        """What is installed on the way of the client's requests, or None."""
        seen = self._seen
        if seen is not None and all(_read(owner, name) is value for owner, name, value in seen):
            return None
        self._seen = None
        found = list(self._walk())
        for owner, name, value in found:
            why = _why(owner, name, value, self._stack)
            if why is not None:
                return why
        self._seen = tuple(found)
        return None

    def _walk(self) -> Iterator[tuple[Any, str, object]]:
        """Every attribute the check reads, as (owner, name, value): the client's markers and
        its own attributes on the send path, the classes' methods on it, the transport's,
        the pool's, and the core's classes below them."""
        client, stack = self._client, self._stack
        state = _instance_dict(client)
        for name in (*_MARKERS, *SEND_PATH):
            yield state, name, state.get(name)
        for name in SEND_PATH:
            yield type(client), name, _static(type(client), name)
        transport, method = state.get("_transport"), self._method
        if transport is not None:
            transport_state = _instance_dict(transport)
            yield transport_state, method, transport_state.get(method)
            yield type(transport), method, _static(type(transport), method)
            pool = transport_state.get("_pool")
            if pool is not None:
                pool_state = _instance_dict(pool)
                yield pool_state, method, pool_state.get(method)
        for path, name in self._core:
            cls = _class_at(stack.httpcore, path)
            if cls is not None:
                yield cls, name, _static(cls, name)


def _instance_dict(obj: object) -> dict[str, Any]:
    state = getattr(obj, "__dict__", None)
    return state if isinstance(state, dict) else {}


def _static(cls: type[Any], name: str) -> object:
    found = _defining(cls, name)
    return None if found is None else found[1]


def _read(owner: Any, name: str) -> object:
    """The value an owner of ``_walk`` holds for ``name`` now."""
    if isinstance(owner, dict):
        return owner.get(name)
    return _static(owner, name)


def _why(owner: Any, name: str, value: object, stack: HttpStack) -> str | None:
    """What the attribute ``name`` of ``owner`` holding ``value`` says was installed (None:
    nothing)."""
    if isinstance(owner, dict):
        if value is None or (name in _MARKERS and value is False):
            return None
        if name in _MARKERS:
            return f"the client is marked {name} (an instrumentation hooked it)"
        return f"{name} is set on the object itself (a wrapper of the host's or its platform's)"
    found = _defining(owner, name)
    if found is None:
        return None
    klass, value = found
    top = klass.__module__.split(".")[0]
    if top == stack.httpcore.__name__.split(".")[0]:
        package = stack.httpcore
    elif top == stack.httpx.__name__.split(".")[0]:
        package = stack.httpx
    else:
        # A subclass's own method: a host's subclass that sends its own way is never given a
        # view (``sdk.host``), which runs the stack's methods only.
        return None
    if _defined_in(value, _package_dir(package)):
        return None
    return (
        f"{klass.__module__}.{klass.__qualname__}.{name} is not {package.__name__}'s own "
        "(wrapped or replaced: an instrumentation, a mock or a hook of the host's)"
    )


def interception(client: Any, stack: HttpStack) -> str | None:
    """What is installed on the way of ``client``'s requests (see the module), or None: a
    one-off ``Interception(client, stack).reason()``."""
    return Interception(client, stack).reason()


_SAID: set[tuple[str, str]] = set()
_SAID_LOCK = threading.Lock()


def say_kept(stack: HttpStack, why: str) -> None:
    """One INFO line per process and reason: a host's client keeps its own transport because
    something is installed on its way (``why``)."""
    key = (stack.name, why)
    with _SAID_LOCK:
        if key in _SAID:
            return
        _SAID.add(key)
    logger.info(
        "mcpstream: a host's %s client keeps its own transport, so that what is installed on "
        "its way runs: %s",
        stack.name,
        why,
    )
