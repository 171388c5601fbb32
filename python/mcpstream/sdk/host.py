"""The host's HTTP client under the relayed session: ``HostClient`` sends every request through
the host's client (its auth, hooks, headers, transport and pool) with the host's timeouts,
as the SDK's transport does, and mcpstream's own bounds only where the host set none.

By default (unless ``MCPSTREAM_H1_TRANSPORT=0``, ``httpx_clients.H1_ENV``, opts out), a host's
async client whose transport is its stack's stock one, with settings mcpstream's HTTP/1.1
transport honours (``httpx_clients.host_h1_transport``), sends through a private view of itself
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
The host's client and transport are left as they are; the view's transport is closed with the
session (``HostClient.release``)."""

from __future__ import annotations

import functools
import inspect
import types
from typing import Any

from .._http.host_settings import host_timeout
from .._http.host_view import view as _view
from .._http.httpx_clients import h1_enabled, host_h1_transport, host_response_hooks
from .._http.stack import HttpStack, stack_of

__all__ = ["HostClient", "host_read_timeout"]


class HostClient:
    """The host's ``client`` (an ``httpx2`` or ``httpx`` ``AsyncClient``, a subclass of one,
    or an object forwarding to one), as mcpstream's transport uses it: every attribute is the
    client's, but for the ``timeout`` of the requests it builds.

    The SDK's transport sends with the client's own timeouts (connect, each read, write, the
    pool). mcpstream's transport builds each request with the bounds of its operation (what
    is left of the call's deadline, its connect timeout); here each of the four is the
    host's, and mcpstream's only where the host's is None (no limit)."""

    __slots__ = ("__weakref__", "_client", "_h1", "_keywords", "_stack", "_view")

    def __init__(self, client: Any) -> None:
        self._client = client
        self._stack = stack = stack_of(client)
        self._view: Any = None
        self._h1: Any = None
        """mcpstream's HTTP/1.1 transport under ``_view`` (None: the host's own transport)."""
        self._keywords: dict[str, Any] = {}
        """The keywords of a wrapper's partial ``send``, for the view's (see ``_sender``)."""
        if h1_enabled():
            sender = _sender(client, stack)
            if sender is not None:
                inner, keywords = sender
                self._h1 = transport = _h1_for(inner, stack)
                if transport is not None:
                    self._view = _view(inner, transport)
                    self._keywords = keywords

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
        view = self._view
        if view is not None:
            # The view's send raises as the host's does once the host's client is closed.
            # mcpstream's keywords over a partial's, as the partial's own call would have them.
            return await view.send(request, **{**self._keywords, **kwargs})
        response = await self._client.send(request, **kwargs)
        host_response_hooks(self._client, response, self._stack)
        return response

    @property
    def own_transport(self) -> Any:
        """mcpstream's HTTP/1.1 transport the requests go through (None: the host's)."""
        return self._h1

    async def release(self) -> None:
        """Close what mcpstream made for the host's client (its HTTP/1.1 transport and that
        transport's connections); the host's client stays open. Later requests go through
        the host's client as it is. Idempotent."""
        transport, self._h1, self._view = self._h1, None, None
        if transport is not None:
            await transport.aclose()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def __repr__(self) -> str:
        return f"HostClient({self._client!r})"


_SEND_PATH = (
    "send",
    "_send_handling_auth",
    "_send_handling_redirects",
    "_send_single_request",
    "_transport_for_url",
)
"""The methods of httpx's ``AsyncClient`` that carry a request to its transport: a client's
view runs them as the stack wrote them."""


def _h1_for(client: Any, stack: HttpStack) -> Any:
    """``host_h1_transport`` for a client of the stack's ``AsyncClient`` class, or of a subclass
    that keeps its way of sending (``_SEND_PATH``): a subclass's own ``send`` may keep state on
    its object, and an object forwarding to a client sends as it likes, so either is sent
    through as it is (``_sender``: unless it sends with the client's own ``send``)."""
    base = stack.httpx.AsyncClient
    if not isinstance(client, base):
        return None
    cls = type(client)
    if any(getattr(cls, name, None) is not getattr(base, name) for name in _SEND_PATH):
        return None
    return host_h1_transport(client, stack)


def _sender(client: Any, stack: HttpStack) -> tuple[Any, dict[str, Any]] | None:
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


def host_read_timeout(client: Any) -> float | None:
    """The read timeout of the host's ``client`` (None: none, or none to be read)."""
    try:
        read = client.timeout.read
    except Exception:  # a client of the host's own making: nothing to read
        return None
    return float(read) if isinstance(read, int | float) else None
