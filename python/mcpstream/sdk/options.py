"""mcpstream's own options of ``streamable_http_client``, beside the SDK's keywords.

``RelayOptions`` holds them, checked once when made (sizes, timeouts), and makes the
``AsyncMcpHttpTransport`` a session relays through (``transport``): on the host's client when
it gave one, else on a client of its own on the SDK's HTTP stack. ``resolve_call_timeout``
turns the default, ``FROM_HOST``, into a deadline: none of mcpstream's when the host's client has
a read timeout (its timeouts then govern every wait), else ``DEFAULT_CALL_TIMEOUT_S``.
"""

from __future__ import annotations

import enum
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlsplit

from .._http.core import ReconnectPolicy
from .._timeouts import (
    DEFAULT_CONNECT_TIMEOUT_S,
    DEFAULT_TOOL_TIMEOUT_S,
    check_connect_timeout,
    check_timeout,
)
from ..codec import DEFAULT_MAX_EVENT_BYTES
from ..models import McpOAuthConfig, ResolvedMcpServer
from ..oauth import AsyncMcpOAuthRedirectHandler, McpOAuthRedirectHandler, default_server_id
from ..oauth_store import McpOAuthTokenStore
from ..redaction import url_without_secrets
from ..transport_http_async import AsyncMcpHttpTransport
from .host import HostClient, host_read_timeout
from .line import MAJOR

__all__ = [
    "DEFAULT_CALL_TIMEOUT_S",
    "FROM_HOST",
    "SERVER_ID",
    "FromHost",
    "RelayOptions",
    "resolve_call_timeout",
]

DEFAULT_CALL_TIMEOUT_S = DEFAULT_TOOL_TIMEOUT_S
"""The default deadline of one request, end to end: 600 s, the tool-call default of every entry
point (a relayed request may be a tool call). The session has timeouts of its own
(``read_timeout_seconds``); this one only ends a request nobody bounded."""


class FromHost(enum.Enum):
    """The type of ``FROM_HOST``."""

    FROM_HOST = "from the host's client"


FROM_HOST = FromHost.FROM_HOST
"""The default ``call_timeout_s`` of ``streamable_http_client``: no deadline of mcpstream's
when the host's client has a read timeout (its timeouts govern every wait, as under the
SDK's transport), else ``DEFAULT_CALL_TIMEOUT_S``."""


def resolve_call_timeout(value: float | FromHost | None, http_client: Any) -> float:
    """``call_timeout_s`` as a number of seconds: ``value`` checked, or for ``FROM_HOST``
    no limit under a host client with a read timeout and ``DEFAULT_CALL_TIMEOUT_S`` else."""
    if value is not FROM_HOST:
        return check_timeout("call_timeout_s", value)
    if http_client is not None and host_read_timeout(http_client) is not None:
        return check_timeout("call_timeout_s", None)
    return DEFAULT_CALL_TIMEOUT_S


SERVER_ID = None
"""The default ``server_id``: None, the server named by its URL in mcpstream's error messages
and logs (its ``host:port``; with OAuth, the canonical URL, the OAuth store's key that
``mcpstream auth login URL`` stores the login under)."""


@dataclass(frozen=True, slots=True)
class RelayOptions:
    """The transport's settings: ``max_sse_event_size`` (bytes of one SSE event, None: no
    limit; JSON bodies: ``max_json_bytes``), ``call_timeout_s`` (one request's deadline),
    ``connect_timeout_s``,
    ``reconnect_policy`` (resuming a broken stream, reopening the GET stream), ``listen`` (the
    GET stream below 2026-07-28), ``headers``
    (sent with every request), ``server_id``, and mcpstream's OAuth (``oauth``, ``oauth_store``,
    ``oauth_redirect_handler``)."""

    max_sse_event_size: int | None = DEFAULT_MAX_EVENT_BYTES
    call_timeout_s: float = DEFAULT_CALL_TIMEOUT_S
    connect_timeout_s: float | None = DEFAULT_CONNECT_TIMEOUT_S
    reconnect_policy: ReconnectPolicy | None = None
    listen: bool = True
    headers: dict[str, str] = field(default_factory=dict)
    server_id: str | None = SERVER_ID
    oauth: McpOAuthConfig | None = None
    oauth_store: McpOAuthTokenStore | None = None
    oauth_redirect_handler: AsyncMcpOAuthRedirectHandler | McpOAuthRedirectHandler | None = None

    def __post_init__(self) -> None:
        if self.max_sse_event_size is not None and self.max_sse_event_size <= 0:
            raise ValueError("max_sse_event_size must be positive or None")
        # Zero, negative or NaN refused (the rule of every entry point; None, no limit, is
        # made a number by ``streamable_http_client``).
        check_timeout("call_timeout_s", self.call_timeout_s)
        check_connect_timeout(self.connect_timeout_s)

    def transport(
        self, url: str, *, client: HostClient | None, handler: Any, on_notification: Any
    ) -> AsyncMcpHttpTransport:
        """The transport for ``url`` (``client``: the host's, sent through with its own
        timeouts by its ``HostClient``; None: one of its own on httpx2, the SDK's stack)."""
        server = ResolvedMcpServer(
            id=self.server_id or _default_id(url, self.oauth),
            url=url,
            headers=dict(self.headers),
            call_timeout_s=self.call_timeout_s,
            oauth=self.oauth,
        )
        transport = AsyncMcpHttpTransport(
            server=server,
            # Only a handler of roots requests reads it, and the session answers those itself.
            workspace_root=Path(tempfile.gettempdir()),
            # A HostClient has the API of the client it wraps (typed as httpx's).
            client=cast(Any, client),
            # A client of its own on the SDK's stack (httpx2; httpx for the 1.x line): its
            # failures are the SDK's classes.
            http_stack=("httpx2" if MAJOR == 2 else "httpx") if client is None else None,
            server_request_handler=handler,
            on_notification=on_notification,
            max_event_bytes=self.max_sse_event_size,
            # Notifications are pushed to the session (on_notification), never queued.
            max_queued_notifications=None,
            listen=self.listen,
            reconnect_policy=self.reconnect_policy,
            oauth_store=self.oauth_store,
            oauth_redirect_handler=self.oauth_redirect_handler,
            connect_timeout_s=self.connect_timeout_s,
        )
        return transport

    @property
    def max_json_bytes(self) -> int | None:
        """The budget of one JSON body: ``DEFAULT_MAX_EVENT_BYTES`` (64 MiB), or
        ``max_sse_event_size`` when that is larger; None (no limit) when it is None."""
        cap = self.max_sse_event_size
        return None if cap is None else max(cap, DEFAULT_MAX_EVENT_BYTES)


def _default_id(url: str, oauth: McpOAuthConfig | None) -> str:
    """The server's id when the host gave none: as ``Client`` names it (``host:port``, or with
    OAuth the canonical URL, the token store's key)."""
    if oauth is not None:
        return default_server_id(url)
    try:
        return urlsplit(url).netloc.rpartition("@")[2] or url_without_secrets(url)
    except ValueError:
        return url_without_secrets(url)
