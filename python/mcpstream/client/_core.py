"""What ``Client`` and ``AsyncClient`` share and that does no I/O: settings (OAuth included),
the initialize handshake's messages and version negotiation, request parameters, paging, JSON-RPC
errors, and the rule for retrying a call after the server lost the session."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from .. import __version__
from ..errors import McpError, McpHttpTransportSessionExpiredError, McpProtocolError
from ..jsonrpc import JsonRpcResponse
from ..models import McpOAuthConfig, ResolvedMcpServer
from ..oauth import McpOAuthClientSettings, default_server_id
from .results import ServerInfo

__all__ = [
    "DEFAULT_CONNECT_TIMEOUT_S",
    "DEFAULT_REQUEST_TIMEOUT_S",
    "DEFAULT_TOOL_TIMEOUT_S",
    "LATEST_PROTOCOL_VERSION",
    "MAX_PAGES",
    "SUPPORTED_PROTOCOL_VERSIONS",
    "ClientBase",
    "ClientSettings",
    "OAuthOption",
    "Pager",
    "build_server",
    "initialize_params",
    "negotiate",
    "oauth_config",
    "prompt_get_params",
    "retry_after_expiry",
    "unwrap",
]

SUPPORTED_PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26")
"""The protocol revisions the client speaks, newest first; it offers the first."""
LATEST_PROTOCOL_VERSION = SUPPORTED_PROTOCOL_VERSIONS[0]

DEFAULT_CONNECT_TIMEOUT_S = 10.0
"""How long establishing each HTTP connection to the server (TCP and TLS) may take."""
DEFAULT_REQUEST_TIMEOUT_S = 60.0
"""Budget of the handshake, a listing, a read, a prompt or a ping."""
DEFAULT_TOOL_TIMEOUT_S = 600.0
"""Budget of a tool call: tools may run for minutes."""
MAX_PAGES = 10_000
"""A listing that has not ended after this many pages is a server bug, not data."""

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
        return McpOAuthConfig(
            option.client_id,
            option.scopes,
            option.authorization_server_url,
            client_secret=option.client_secret,
            token_endpoint_auth_method=option.token_endpoint_auth_method,
            client_metadata_url=option.client_metadata_url,
            grant_type=option.grant_type,
            private_key_pem=option.private_key_pem,
            signing_algorithm=option.signing_algorithm,
        )
    raise TypeError(
        "oauth must be True, an McpOAuthConfig or McpOAuthClientSettings (the client makes its "
        "own OAuth session: give oauth_store= and oauth_redirect_handler= for the rest), not "
        f"{type(option).__name__}"
    )


def _check_timeout(name: str, value: float) -> float:
    if not value > 0:
        raise ValueError(f"{name} must be greater than 0")
    return float(value)


@dataclass(frozen=True, slots=True)
class ClientSettings:
    """The validated settings of one client."""

    server: ResolvedMcpServer
    connect_timeout_s: float
    """How long establishing each HTTP connection may take (the transport's connect timeout)."""
    request_timeout_s: float
    tool_timeout_s: float
    client_info: Mapping[str, str]

    @classmethod
    def create(
        cls,
        url: str,
        *,
        headers: Mapping[str, str] | None,
        token: str | None,
        oauth: OAuthOption,
        server_id: str | None,
        connect_timeout_s: float,
        request_timeout_s: float,
        tool_timeout_s: float,
        client_name: str,
        client_version: str | None,
    ) -> ClientSettings:
        """Check the arguments a client was given and build its settings."""
        request_timeout_s = _check_timeout("request_timeout_s", request_timeout_s)
        return cls(
            server=build_server(
                url,
                headers=headers,
                token=token,
                oauth=oauth_config(oauth),
                server_id=server_id,
                call_timeout_s=request_timeout_s,
            ),
            connect_timeout_s=_check_timeout("connect_timeout_s", connect_timeout_s),
            request_timeout_s=request_timeout_s,
            tool_timeout_s=_check_timeout("tool_timeout_s", tool_timeout_s),
            client_info={"name": client_name, "version": client_version or __version__},
        )


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
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("the server URL must be an http:// or https:// URL with a host")
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


def initialize_params(
    capabilities: Mapping[str, Any], client_info: Mapping[str, str]
) -> dict[str, Any]:
    """The params of ``initialize``: the newest protocol version we speak is offered."""
    return {
        "protocolVersion": LATEST_PROTOCOL_VERSION,
        "capabilities": dict(capabilities),
        "clientInfo": dict(client_info),
    }


def negotiate(result: Any) -> ServerInfo:
    """The server's answer to ``initialize``; the version it chose must be one we speak."""
    info = ServerInfo.from_dict(result)
    if info.protocol_version not in SUPPORTED_PROTOCOL_VERSIONS:
        raise McpProtocolError(
            f"the server chose the MCP protocol version {info.protocol_version!r}, which this "
            f"client does not speak (it speaks {', '.join(SUPPORTED_PROTOCOL_VERSIONS)})"
        )
    return info


def unwrap(response: JsonRpcResponse, method: str) -> Any:
    """The result of ``response``; a JSON-RPC error is raised as ``McpError``."""
    error = response.error
    if error is None:
        return response.result
    code = error.get("code")
    message = error.get("message")
    error_code = code if isinstance(code, int) and not isinstance(code, bool) else 0
    raise McpError(
        error_code,
        message if isinstance(message, str) else "(no message)",
        error.get("data"),
        method=method,
    )


def retry_after_expiry(exc: McpHttpTransportSessionExpiredError) -> bool:
    """Whether a call that failed with ``exc`` may be sent again in a new session.

    The transport raises the session-expired error for an HTTP 404 to a request that carried a
    session id. A 404 to the call's own POST means the server looked the session up before doing
    anything, so it did not run the call, and sending it again in a new session is safe,
    ``tools/call`` included. A 404 that came after the server had taken the call (to the GET
    that resumes its interrupted event stream, or to the answer to a server request it made
    during the call) means the call may have run: the transport marks that error
    ``request_delivered``, and the call is not sent again.
    """
    return not getattr(exc, "request_delivered", False)


class Pager:
    """The cursors of one paginated listing (``tools/list``, ``resources/list``, ...)."""

    def __init__(self, method: str, key: str) -> None:
        self.method = method
        self.key = key
        self.cursor: str | None = None
        self._seen: set[str] = set()
        self._pages = 0

    def params(self) -> dict[str, Any] | None:
        """The params of the next page's request."""
        return {"cursor": self.cursor} if self.cursor is not None else None

    def take(self, result: Any) -> list[Any]:
        """The items of one page; sets the cursor of the next (None at the end)."""
        if not isinstance(result, dict) or not isinstance(result.get(self.key), list):
            raise McpProtocolError(f"the server's '{self.method}' result has no '{self.key}' list")
        items: list[Any] = result[self.key]
        cursor = result.get("nextCursor")
        self._pages += 1
        if not isinstance(cursor, str) or not cursor:
            self.cursor = None
        elif cursor in self._seen or self._pages >= MAX_PAGES:
            raise McpProtocolError(f"the server's '{self.method}' pages do not end")
        else:
            self._seen.add(cursor)
            self.cursor = cursor
        return items

    @property
    def done(self) -> bool:
        """True once a page came without a next cursor."""
        return self._pages > 0 and self.cursor is None


def tool_call_params(
    name: str,
    arguments: Mapping[str, Any] | None,
    *,
    progress_token: str | None,
    meta: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """The params of ``tools/call``, with the progress token in ``_meta``."""
    params: dict[str, Any] = {"name": name, "arguments": dict(arguments or {})}
    merged = dict(meta or {})
    if progress_token is not None:
        merged["progressToken"] = progress_token
    if merged:
        params["_meta"] = merged
    return params


def prompt_get_params(name: str, arguments: Mapping[str, str] | None) -> dict[str, Any]:
    """The params of ``prompts/get``."""
    params: dict[str, Any] = {"name": name}
    if arguments:
        params["arguments"] = dict(arguments)
    return params


class ClientBase:
    """The session state ``Client`` and ``AsyncClient`` both keep, and its I/O-free views."""

    _server_info: ServerInfo | None
    _closed: bool

    @property
    def server_info(self) -> ServerInfo | None:
        """The server's answer to ``initialize`` (None before ``connect``)."""
        return self._server_info

    @property
    def protocol_version(self) -> str | None:
        """The protocol version agreed on (None before ``connect``)."""
        info = self._server_info
        return info.protocol_version if info is not None else None

    @property
    def closed(self) -> bool:
        """True once ``close`` was called."""
        return self._closed
