"""Configuration objects the transports read: a resolved MCP server and its OAuth settings.

Both are frozen dataclasses. Their ``repr`` shows no secret: header values, the URL's userinfo,
query and fragment are left out, since static headers usually carry an API key and the URL may
carry a token in its query string.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from .redaction import redact_url

__all__ = ["McpOAuthConfig", "ResolvedMcpServer"]

DEFAULT_CALL_TIMEOUT_S = 60.0


@dataclass(frozen=True, slots=True)
class McpOAuthConfig:
    """OAuth settings of one server: the client id registered with the authorization server,
    the scopes to ask for, and the authorization server's URL when it is not discovered."""

    client_id: str
    scopes: tuple[str, ...] = ()
    authorization_server_url: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "scopes", tuple(self.scopes))


@dataclass(frozen=True, slots=True, repr=False)
class ResolvedMcpServer:
    """One MCP server, resolved from the host's configuration.

    ``id`` names the server in messages. ``transport`` is ``"http"`` for the Streamable HTTP
    transport (``"stdio"`` is accepted for hosts that keep both kinds in one list; the HTTP
    transport refuses it). ``url`` is the MCP endpoint. ``headers`` are sent with every HTTP
    request (an ``Authorization`` header for a static token, for instance). ``call_timeout_s`` is
    the default budget of one call, used where a call gives none. ``oauth`` is ``None`` or the
    server's OAuth settings.
    """

    id: str
    transport: str = "http"
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    call_timeout_s: float = DEFAULT_CALL_TIMEOUT_S
    oauth: McpOAuthConfig | None = None

    def __post_init__(self) -> None:
        # A read-only copy: the caller's dict can change later without changing this server.
        object.__setattr__(self, "headers", MappingProxyType(dict(self.headers)))
        if self.call_timeout_s <= 0:
            raise ValueError("call_timeout_s must be greater than 0")

    def __repr__(self) -> str:
        url = redact_url(self.url) if self.url is not None else None
        header_names = sorted(self.headers)
        return (
            f"ResolvedMcpServer(id={self.id!r}, transport={self.transport!r}, url={url!r}, "
            f"headers=<{len(header_names)} header(s): {', '.join(header_names)}>, "
            f"call_timeout_s={self.call_timeout_s!r}, oauth={self.oauth!r})"
        )
