"""What the transports read from a host's client besides sending through it, as the SDK's
transport (which sends through the client as it is) would have it apply: the client's
``base_url`` under a relative endpoint, its ``max_redirects``, and its ``Timeout`` over
mcpstream's own bounds (and its read timeout alone, for the SDK's own stream rule). One rule
for every front end (``Client`` and ``AsyncClient`` with ``http_client=``, the drop-in
transports with ``client=``, ``mcpstream.sdk``)."""

from __future__ import annotations

from typing import Any

from .core.protocol import MAX_REDIRECTS

__all__ = ["host_max_redirects", "host_read_timeout", "host_timeout", "host_url"]


def host_url(url: str, client: Any) -> str:
    """``url`` as the host's ``client`` sends to it: a URL without a scheme (``"/mcp"``,
    ``"mcp"``) joined to the client's ``base_url`` by the client's own rule (its
    ``build_request``, as the SDK's transport has it joined); any other ``url``, or one for a
    client without a ``base_url``, as it is (``_urls.check_url`` then judges it)."""
    if client is None or not isinstance(url, str) or "://" in url or not url.strip():
        return url
    try:
        if not str(client.base_url):
            return url
        return str(client.build_request("GET", url.strip()).url)
    except Exception:  # no base_url to read, or one the URL cannot join: check_url says why
        return url


def host_max_redirects(client: Any) -> int:
    """How many redirects a request through the host's ``client`` follows: the client's
    ``max_redirects`` (the SDK's transport follows redirects within the endpoint's origin, at
    most that many, whatever its ``follow_redirects`` says); mcpstream's ``MAX_REDIRECTS``
    for a client without one."""
    try:
        value = client.max_redirects
    except Exception:  # an object forwarding to a client, without the attribute
        return MAX_REDIRECTS
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return MAX_REDIRECTS


def host_timeout(host: Any, own: Any, *, within_own: bool = False) -> Any:
    """The ``Timeout`` (of the host's stack: ``type(host)``) of a request sent through a host's
    client whose ``Timeout`` is ``host``, where mcpstream's bounds are ``own``: each of the four
    (connect, read, write, pool) is the host's, as the SDK's transport waits, and mcpstream's
    only where the host's is None (no limit). ``own`` None: the host's as it is.

    ``within_own``: the host's cut to mcpstream's where both are set. The sync driver's own
    bounds are what is left of the call's deadline (and its connect bound), which nothing else
    enforces on a host's client whose connection takes no deadline (``deadline_trace``): the
    wait is then what it is on the SDK's route, whose deadline cuts the host's waits apart."""
    if own is None:
        return host
    pick = _least if within_own else _first
    return type(host)(
        connect=pick(host.connect, own.connect),
        read=pick(host.read, own.read),
        write=pick(host.write, own.write),
        pool=pick(host.pool, own.pool),
    )


def _first(host: float | None, own: float | None) -> float | None:
    return own if host is None else host


def _least(host: float | None, own: float | None) -> float | None:
    return own if host is None else host if own is None else min(host, own)


def host_read_timeout(client: Any) -> float | None:
    """The read timeout of the host's ``client`` (None: none, or none to be read)."""
    try:
        read = client.timeout.read
    except Exception:  # a client of the host's own making: nothing to read
        return None
    return float(read) if isinstance(read, int | float) else None
