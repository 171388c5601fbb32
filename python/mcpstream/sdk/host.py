"""The host's HTTP client under the relayed session: ``HostClient`` sends every request through
the host's client (its auth, hooks, headers, transport and pool) with the host's timeouts,
as the SDK's transport does, and mcpstream's own bounds only where the host set none.

By default (unless ``MCPSTREAM_H1_TRANSPORT=0``, ``httpx_clients.H1_ENV``, opts out), a host's
async client whose transport is its stack's stock one, with settings mcpstream's HTTP/1.1
transport honours (``host_probe.host_h1_transport``), sends through a private view of itself
instead (``_view``): the client's own ``send`` (its request and response hooks, auth flow,
cookies, redirects, timeouts, mounts) with every attribute read from the host's client, but for
its default transport, which is mcpstream's HTTP/1.1 transport built with the host transport's
SSL context and limits. An object forwarding to such a client (not a client itself) whose
``send`` is that client's own, or a ``functools.partial`` of it with keywords of the stock
``send`` only (Pydantic AI's borrowed client, with its ``auth``), sends through the view of that
client too, with those keywords; all else (``build_request``, the timeouts) is still read from
the object. Any other client (a transport or ``send`` of its own, a wrapper with a ``send`` of
its own, HTTP/2, a proxy, versions of the stack's core mcpstream does not read) sends through
its own transport.

Nothing a host or its platform installed below the client's ``send`` may be skipped:
OpenTelemetry's httpx instrumentation, respx's mocks, a wrapper of the host's on the client,
its transport or the stack's classes (``_http.interception``). A client with any of them sends
through its own transport, so that they all run (slower: mcpstream's HTTP/1.1 transport does
not carry it), and one INFO line per process and reason on the ``mcpstream`` logger says so. A
hook installed after the session opened is found at the next request, which then goes the
host's way too.
The host's client and transport are left as they are. The view's transport is the one the
sessions over the same client share on the event loop (``shared_h1``): a session leaves its idle
connections to the next, as the client's own pool would (``MCPSTREAM_SHARE_HOST_CONNECTIONS=0``,
``SHARE_ENV``: each session's own, closed with it by ``HostClient.release``)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import weakref
from collections.abc import Mapping
from operator import methodcaller
from typing import Any

from .._http.host_probe import h1_stand_in, host_response_hooks, sender_of
from .._http.host_settings import host_read_timeout, host_timeout
from .._http.host_view import view as _view
from .._http.httpx_clients import h1_enabled
from .._http.interception import Interception, say_kept
from .._http.shared_pools import bind_to_loop, hand_to_running_loops
from .._httpbase.stack import HttpStack, stack_of

logger = logging.getLogger("mcpstream")

__all__ = ["HostClient", "host_read_timeout"]


class HostClient:
    """The host's ``client`` (an ``httpx2`` or ``httpx`` ``AsyncClient``, a subclass of one,
    or an object forwarding to one), as mcpstream's transport uses it: every attribute is the
    client's, but for the ``timeout`` of the requests it builds.

    The SDK's transport sends with the client's own timeouts (connect, each read, write, the
    pool). mcpstream's transport builds each request with the bounds of its operation (what
    is left of the call's deadline, its connect timeout); here each of the four is the
    host's, and mcpstream's only where the host's is None (no limit)."""

    __slots__ = (
        "__weakref__",
        "_candidate",
        "_client",
        "_guard",
        "_h1",
        "_keywords",
        "_shared_by",
        "_stack",
        "_view",
    )

    def __init__(self, client: Any) -> None:
        self._client = client
        self._stack = stack = stack_of(client)
        self._view: Any = None
        self._h1: Any = None
        """mcpstream's HTTP/1.1 transport under ``_view`` (None: the host's own transport)."""
        self._shared_by: Any = None
        """The client whose sessions share ``_h1`` (None: a transport of this object's own)."""
        self._keywords: dict[str, Any] = {}
        """The keywords of a wrapper's partial ``send``, for the view's (see ``sender_of``)."""
        self._guard: Interception | None = None
        """The check of the client's way for hooks, while the view stands in for it."""
        self._candidate: tuple[Any, dict[str, Any], Interception] | None = None
        """The client a view may stand in for, its keywords and check, until the first request
        (which finds the transport of its event loop: ``_attach``)."""
        if h1_enabled():
            sender = sender_of(client, stack)
            if sender is not None:
                inner, keywords = sender
                guard = Interception(inner, stack)
                why = guard.reason()
                if why is not None:
                    say_kept(stack, why)
                    return
                self._candidate = (inner, keywords, guard)

    def _attach(self) -> None:
        """Put the view over mcpstream's transport in place, where it can stand in for the
        client's: the transport the client's sessions share on this event loop (``shared_h1``),
        or one of this object's own outside any loop."""
        candidate, self._candidate = self._candidate, None
        if candidate is None:
            return
        inner, keywords, guard = candidate
        transport, shared = shared_h1(inner, self._stack)
        if transport is not None:
            self._h1, self._shared_by = transport, inner if shared else None
            self._view = _view(inner, transport)
            self._keywords = keywords
            self._guard = guard

    @property
    def wrapped(self) -> Any:
        """The host's client."""
        return self._client

    @property
    def timeout(self) -> Any:
        """The host client's ``Timeout`` (it names the client's stack: see ``stack_of``)."""
        return self._client.timeout

    def build_request(self, method: str, url: Any, *, timeout: Any = None, **kwargs: Any) -> Any:
        """The client's ``build_request``, with the host's timeouts over mcpstream's
        ``timeout`` (a ``Timeout`` of the client's stack)."""
        timeout = host_timeout(self._client.timeout, timeout)
        return self._client.build_request(method, url, timeout=timeout, **kwargs)

    async def send(self, request: Any, **kwargs: Any) -> Any:
        """The client's ``send``; the response's connection then reads as the clients made
        by mcpstream do, where that is safe (``host_response_hooks``). Where the client's
        transport is a stock one mcpstream's HTTP/1.1 transport can stand in for (the default),
        the send of the client's view over that transport (see the module)."""
        if self._candidate is not None:
            self._attach()
        view = self._view
        if view is not None and (why := self._guard.reason() if self._guard else None):
            # A hook was installed since the session opened: from now on the host's way.
            say_kept(self._stack, why)
            view = self._view = None
        if view is not None:
            # The view's send raises as the host's does once the host's client is closed.
            # mcpstream's keywords over a partial's, as the partial's own call would have them.
            return await view.send(request, **{**self._keywords, **kwargs})
        response = await self._client.send(request, **kwargs)
        host_response_hooks(self._client, response, self._stack)
        return response

    @property
    def own_transport(self) -> Any:
        """mcpstream's HTTP/1.1 transport the requests go through (None: the host's). Found or
        made at the first request, or here if none was made yet."""
        if self._candidate is not None:
            self._attach()
        return self._h1

    async def release(self) -> None:
        """The session is over: close what mcpstream made for it alone (a transport of its own
        and its connections). A transport the host client's sessions share stays, with its idle
        connections, for the client's next session, unless the client is closed. The host's
        client stays open; later requests go through it as it is. Idempotent."""
        transport, self._h1, self._view, self._candidate = self._h1, None, None, None
        shared_by, self._shared_by = self._shared_by, None
        if transport is None:
            return
        if shared_by is not None:
            if not getattr(shared_by, "is_closed", False):
                return
            _forget_shared(shared_by, transport)
        await transport.aclose()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def __repr__(self) -> str:
        return f"HostClient({self._client!r})"


SHARE_ENV = "MCPSTREAM_SHARE_HOST_CONNECTIONS"
"""``0``: each session over a host client has mcpstream's transport of its own, closed with
it; otherwise (the default) the sessions over one host client share one (``shared_h1``)."""

_SHARED: weakref.WeakKeyDictionary[
    Any, weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any]
] = weakref.WeakKeyDictionary()
"""mcpstream's HTTP/1.1 transport of each host client, by event loop (asyncio connections
belong to their loop), shared by the client's sessions."""


def shared_h1(client: Any, stack: HttpStack) -> tuple[Any, bool]:
    """mcpstream's HTTP/1.1 transport to stand in for ``client``'s (None where it cannot:
    ``h1_stand_in``), and whether it is the one the client's sessions share on the running event
    loop. Sessions over one client then reuse each other's idle connections, as they would in
    the client's own pool: the transport has that pool's limits and keep-alive expiry.

    Its idle connections outlive the session that opened them, and are closed when they
    expire, when the client is closed (by the first session to end after), when the client is
    collected, when their event loop ends (``asyncio.run``: ``shared_pools.bind_to_loop``),
    at ``close_pools()``, and, for a loop closed without ending so (``loop.close()`` alone),
    when the client's next session opens: their sockets are closed then, not left to the
    collector. Outside an event loop, for a client no weak reference can follow, or with
    ``SHARE_ENV`` at ``0``, the transport is the caller's own."""
    if os.environ.get(SHARE_ENV) == "0":
        return h1_stand_in(client, stack), False
    try:
        loop = asyncio.get_running_loop()
        by_loop = _SHARED.get(client)
    except (RuntimeError, TypeError):  # no loop; not weakly referenceable
        return h1_stand_in(client, stack), False
    if by_loop is None:
        by_loop = weakref.WeakKeyDictionary()
        try:
            _SHARED[client] = by_loop
        except TypeError:
            return h1_stand_in(client, stack), False
        weakref.finalize(client, _close_idle, by_loop)
    if len(by_loop) > 1 or loop not in by_loop:
        gone = [other for other in list(by_loop) if other.is_closed()]
        _close_idle({other: by_loop.pop(other) for other in gone})
    transport = by_loop.get(loop)
    if transport is None or transport._pool.closed or getattr(client, "is_closed", False):
        transport = h1_stand_in(client, stack)
        if transport is None:
            return None, False
        by_loop[loop] = transport
        bind_to_loop(loop, transport)
    return transport, True


async def close_shared(client: Any) -> None:
    """Close mcpstream's transports that ``client``'s sessions share, and their connections:
    the client is about to close (a caller that closes the client it made says so, rather
    than leave idle connections to its expiry or to the client's collection)."""
    try:
        by_loop = _SHARED.pop(client, None)
    except TypeError:  # not weakly referenceable: nothing was shared
        return
    if by_loop:
        _close_idle(by_loop)
        await asyncio.sleep(0)  # the connections' ends run on the loop


def _forget_shared(client: Any, transport: Any) -> None:
    by_loop = _SHARED.get(client)
    if by_loop is None:
        return
    for loop, held in list(by_loop.items()):
        if held is transport:
            del by_loop[loop]


def _close_idle(by_loop: Mapping[asyncio.AbstractEventLoop, Any]) -> None:
    """Close the transports of ``by_loop`` and their idle connections (their client was
    collected or closed, or their loop closed), from wherever this runs: a loop running on
    another thread closes its own, at its next round; the sockets of a closed loop's are
    closed at once (``h1.aio.close_now``)."""
    for transport in hand_to_running_loops(by_loop, methodcaller("close_idle")):
        with contextlib.suppress(Exception):  # a finalizer's: nothing to raise to
            transport.close_idle()
