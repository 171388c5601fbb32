"""The host's HTTP client under the relayed session: ``HostClient`` sends every request through
the host's client (its auth, hooks, headers, transport and pool) with the host's timeouts,
as the SDK's transport does, and mcpstream's own bounds only where the host set none."""

from __future__ import annotations

from typing import Any

from .._http.httpx_clients import host_response_hooks
from .._http.stack import stack_of

__all__ = ["HostClient", "host_read_timeout"]


class HostClient:
    """The host's ``client`` (an ``httpx2`` or ``httpx`` ``AsyncClient``, a subclass of one,
    or an object forwarding to one), as mcpstream's transport uses it: every attribute is the
    client's, but for the ``timeout`` of the requests it builds.

    The SDK's transport sends with the client's own timeouts (connect, each read, write, the
    pool). mcpstream's transport builds each request with the bounds of its operation (what
    is left of the call's deadline, its connect timeout); here each of the four is the
    host's, and mcpstream's only where the host's is None (no limit)."""

    __slots__ = ("__weakref__", "_client", "_stack")

    def __init__(self, client: Any) -> None:
        self._client = client
        self._stack = stack_of(client)

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
        host = self._client.timeout
        if timeout is not None:
            timeout = type(host)(
                connect=_first(host.connect, timeout.connect),
                read=_first(host.read, timeout.read),
                write=_first(host.write, timeout.write),
                pool=_first(host.pool, timeout.pool),
            )
        else:
            timeout = host
        return self._client.build_request(method, url, timeout=timeout, **kwargs)

    async def send(self, request: Any, **kwargs: Any) -> Any:
        """The client's ``send``; the response's connection then reads as the clients made
        by mcpstream do, where that is safe (``host_response_hooks``)."""
        response = await self._client.send(request, **kwargs)
        host_response_hooks(self._client, response, self._stack)
        return response

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def __repr__(self) -> str:
        return f"HostClient({self._client!r})"


def _first(host: float | None, own: float | None) -> float | None:
    return own if host is None else host


def host_read_timeout(client: Any) -> float | None:
    """The read timeout of the host's ``client`` (None: none, or none to be read)."""
    try:
        read = client.timeout.read
    except Exception:  # a client of the host's own making: nothing to read
        return None
    return float(read) if isinstance(read, int | float) else None
