"""A view of a host's httpx client over a transport of mcpstream's choosing (``view``): the
client's own ``send`` (hooks, auth, cookies, headers, timeouts, mounts) with every attribute
read from the host's client, but for its default transport. ``mcpstream.sdk`` puts a host's
stock async client on mcpstream's HTTP/1.1 transport so; the sync driver gives the GET stream
of a host's HTTP/2 client a connection of its own so (``own_connection``).

Why the GET stream of a sync HTTP/2 client needs its own connection: httpcore's sync HTTP/2
connection reads on whichever thread waits for a stream's events and writes on whichever thread
sends, each under its own lock, so the GET stream's thread, reading with no read timeout (the
stream may be quiet for ever), would read the one TLS socket while the calls' threads write to
it. OpenSSL does not allow that (``DECRYPTION_FAILED_OR_BAD_RECORD_MAC``, or a session that
hangs). On a connection of its own nothing writes while it reads, and ``stop`` shuts its socket
down as over HTTP/1.1."""

from __future__ import annotations

import ssl
from typing import Any

from .._httpbase.stack import HttpStack
from .interception import interception, say_kept

__all__ = ["own_connection", "speaks_http2", "view"]

_VIEW_TYPES: dict[type[Any], Any] = {}


def view(client: Any, transport: Any) -> Any:
    """A view of the host's ``client`` whose default transport is ``transport``: an instance
    of a subclass of the client's class whose every other attribute is read from ``client``
    (``__getattr__``: its hooks, auth, headers, cookies, timeouts and mounts, as they are now
    and later) and written to it (``send`` opens the client as its own ``send`` does, and
    refuses once the client is closed). Never ``close`` a view: that closes the host's client
    (close ``transport`` instead)."""
    cls = type(client)
    view_type: Any = _VIEW_TYPES.get(cls)
    if view_type is None:

        def forward(self: Any, name: str) -> Any:
            return getattr(self.__dict__["_host"], name)

        def write(self: Any, name: str, value: Any) -> None:
            setattr(self.__dict__["_host"], name, value)

        view_type = _VIEW_TYPES[cls] = type(
            f"HostView[{cls.__name__}]", (cls,), {"__getattr__": forward, "__setattr__": write}
        )
    made = view_type.__new__(view_type)
    # No __init__: the view holds nothing but the host's client and its own transport (httpx
    # finds the default transport of a request in ``_transport``: ``_transport_for_url``).
    made.__dict__.update(_host=client, _transport=transport)
    return made


def own_connection(client: Any, stack: HttpStack) -> tuple[Any, Any] | None:
    """For a host's sync ``client`` whose default transport may speak HTTP/2 (the stack's stock
    ``HTTPTransport`` over its stock pool, with ``http2``): a view of it over a transport of
    its own with the pool's settings (its SSL context object, HTTP versions, Unix socket,
    local address, retries, socket options), and that transport (the caller closes it). None
    for any other client (HTTP/1.1 only: its connections carry one exchange at a time; a
    transport of the host's own: left as it is)."""
    pool = _http2_pool(client, stack)
    if pool is None:
        return None
    why = interception(client, stack)
    if why is not None:
        # The stream's requests would skip what is installed on the client's way: they take
        # the host's transport instead, one at a time with the calls (see the module).
        say_kept(stack, why)
        return None
    try:
        if not isinstance(pool._ssl_context, ssl.SSLContext):
            return None
        own = stack.httpx.HTTPTransport(
            verify=pool._ssl_context,
            http1=pool._http1,
            http2=True,
            uds=pool._uds,
            local_address=pool._local_address,
            retries=pool._retries,
            socket_options=pool._socket_options,
        )
    except AttributeError:  # another pool than the one this was written for
        return None
    own._pool._network_backend = pool._network_backend
    return view(client, own), own


def speaks_http2(client: Any, stack: HttpStack) -> bool:
    """Whether the host's sync ``client`` sends through its stack's stock transport and pool
    with HTTP/2 on (a transport of the host's own is not looked into)."""
    return _http2_pool(client, stack) is not None


def _http2_pool(client: Any, stack: HttpStack) -> Any:
    """The stock connection pool of the host's sync ``client`` when it has HTTP/2 on, else
    None."""
    transport: Any = getattr(client, "_transport", None)
    pool: Any = getattr(transport, "_pool", None)
    if type(transport) is not stack.httpx.HTTPTransport:
        return None
    if (
        type(pool) is not stack.httpcore.ConnectionPool
        or getattr(pool, "_http2", False) is not True
    ):
        return None
    return pool
