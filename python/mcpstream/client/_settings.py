"""The validated settings of a client (``Client`` and ``AsyncClient`` alike): its timeouts,
its OAuth option, and the transport's server entry built from the URL and credentials."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields

from .._eras import LEGACY_VERSIONS, MODERN_VERSIONS
from .._timeouts import (
    DEFAULT_CONNECT_TIMEOUT_S,
    DEFAULT_REQUEST_TIMEOUT_S,
    DEFAULT_TOOL_TIMEOUT_S,
    NO_LIMIT_S,
    call_timeout,
    check_connect_timeout,
    check_timeout,
)
from .._urls import check_url
from ..models import McpOAuthConfig, ResolvedMcpServer
from ..oauth import McpOAuthClientSettings, default_server_id

__all__ = [
    "DEFAULT_CONNECT_TIMEOUT_S",
    "DEFAULT_REQUEST_TIMEOUT_S",
    "DEFAULT_TOOL_TIMEOUT_S",
    "NO_LIMIT_S",
    "ClientSettings",
    "OAuthOption",
    "build_server",
    "call_timeout",
    "check_connect_timeout",
    "check_timeout",
    "check_url",
    "oauth_config",
]

OAuthOption = bool | McpOAuthConfig | McpOAuthClientSettings | None
"""What a client's ``oauth`` argument may be: ``True`` for the login stored by ``mcpstream auth
login URL``, or the OAuth settings of the server (an ``McpOAuthConfig``, or the
``McpOAuthClientSettings`` of the OAuth package, whose ``client_name`` is not used)."""


def oauth_config(option: object) -> McpOAuthConfig | None:
    """The transport's OAuth settings for a client's ``oauth`` argument (None: no OAuth)."""
    if option is None or option is False:
        return None
    if option is True:
        return McpOAuthConfig()
    if isinstance(option, McpOAuthConfig):
        return option
    if isinstance(option, McpOAuthClientSettings):
        # Every setting the transport's config has, by name (client_name is the client's own).
        return McpOAuthConfig(
            **{item.name: getattr(option, item.name) for item in fields(McpOAuthConfig)}
        )
    raise TypeError(
        "oauth must be True, an McpOAuthConfig or McpOAuthClientSettings (the client makes its "
        "own OAuth session: give oauth_store= and oauth_redirect_handler= for the rest), not "
        f"{type(option).__name__}"
    )


@dataclass(frozen=True, slots=True)
class ClientSettings:
    """The validated settings of one client."""

    server: ResolvedMcpServer
    connect_timeout_s: float | None
    """How long establishing each HTTP connection may take (the transport's connect timeout;
    None: the call's whole deadline)."""
    request_timeout_s: float
    tool_timeout_s: float
    client_info: Mapping[str, str]
    protocol: str | None = None
    """The era or version the host pinned (``"modern"``, ``"legacy"``, ``"http+sse"``, a
    version), or None to negotiate it with the server."""
    trace_context: bool = True
    """Whether each message carries the OpenTelemetry trace context (W3C ``traceparent``...)
    in ``params._meta`` while a tracer provider is configured (docs/telemetry.md)."""


PROTOCOL_CHOICES = ("modern", "legacy", "http+sse", *MODERN_VERSIONS, *LEGACY_VERSIONS)
"""The values of ``protocol=``: an era, the HTTP+SSE transport of 2024-11-05 (the handshake
era over the old transport; ``"legacy"`` also falls back to it when the server refuses the
``initialize`` POST), or a version (2026-07-28, or one of the handshake era from 2025-11-25
down to 2024-11-05, offered in ``initialize``)."""


def check_protocol(value: str | None) -> str | None:
    """``value`` when it is None or names an era or a version this client speaks."""
    if value is not None and value not in PROTOCOL_CHOICES:
        raise ValueError(f"protocol must be one of {', '.join(PROTOCOL_CHOICES)} (or None)")
    return value


def build_server(
    url: str,
    *,
    headers: Mapping[str, str] | None,
    token: str | None,
    server_id: str | None,
    call_timeout_s: float,
    oauth: McpOAuthConfig | None = None,
) -> ResolvedMcpServer:
    """The transport's server entry: the URL checked, the token as an ``Authorization`` header.

    The id names the server in messages and, with ``oauth``, is the key of its credentials in
    the token store: by default the server's canonical URL, the key ``mcpstream auth login URL``
    stores the login under (the URL's host and port without OAuth).
    """
    parts = check_url(url)
    all_headers = dict(headers or {})
    if token is not None:
        if oauth is not None:
            raise ValueError("give either a token or oauth, not both")
        if any(name.lower() == "authorization" for name in all_headers):
            raise ValueError("give either a token or an Authorization header, not both")
        all_headers["Authorization"] = f"Bearer {token}"
    if server_id is None:
        server_id = default_server_id(url) if oauth is not None else parts.netloc.rpartition("@")[2]
    return ResolvedMcpServer(
        id=server_id,
        transport="http",
        url=url,
        headers=all_headers,
        call_timeout_s=call_timeout_s,
        oauth=oauth,
    )
