"""What ``Client`` and ``AsyncClient`` share and that does no I/O: settings, the initialize
handshake's messages and version negotiation, request parameters, paging, JSON-RPC errors, and
the rule for retrying a call after the server lost the session."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from .. import __version__
from ..errors import McpError, McpHttpTransportSessionExpiredError, McpProtocolError
from ..jsonrpc import JsonRpcResponse
from ..models import ResolvedMcpServer
from .results import ServerInfo

__all__ = [
    "DEFAULT_CONNECT_TIMEOUT_S",
    "DEFAULT_REQUEST_TIMEOUT_S",
    "DEFAULT_TOOL_TIMEOUT_S",
    "LATEST_PROTOCOL_VERSION",
    "MAX_PAGES",
    "SUPPORTED_PROTOCOL_VERSIONS",
    "ClientSettings",
    "Pager",
    "build_server",
    "initialize_params",
    "negotiate",
    "retry_after_expiry",
    "unwrap",
]

SUPPORTED_PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26")
"""The protocol revisions the client speaks, newest first; it offers the first."""
LATEST_PROTOCOL_VERSION = SUPPORTED_PROTOCOL_VERSIONS[0]

DEFAULT_CONNECT_TIMEOUT_S = 10.0
"""Budget of the handshake (``initialize`` and ``notifications/initialized``)."""
DEFAULT_REQUEST_TIMEOUT_S = 60.0
"""Budget of a listing, a read, a prompt or a ping."""
DEFAULT_TOOL_TIMEOUT_S = 600.0
"""Budget of a tool call: tools may run for minutes."""
MAX_PAGES = 10_000
"""A listing that has not ended after this many pages is a server bug, not data."""


def _check_timeout(name: str, value: float) -> float:
    if not value > 0:
        raise ValueError(f"{name} must be greater than 0")
    return float(value)


@dataclass(frozen=True, slots=True)
class ClientSettings:
    """The validated settings of one client."""

    server: ResolvedMcpServer
    connect_timeout_s: float
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
) -> ResolvedMcpServer:
    """The transport's server entry: the URL checked, the token as an ``Authorization`` header."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("the server URL must be an http:// or https:// URL with a host")
    all_headers = dict(headers or {})
    if token is not None:
        if any(name.lower() == "authorization" for name in all_headers):
            raise ValueError("give either a token or an Authorization header, not both")
        all_headers["Authorization"] = f"Bearer {token}"
    return ResolvedMcpServer(
        id=server_id or parts.netloc.rpartition("@")[2],
        transport="http",
        url=url,
        headers=all_headers,
        call_timeout_s=call_timeout_s,
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
    session id: the server looked the session up before doing anything, so it did not run the
    call, and sending it again in a new session is safe, ``tools/call`` included. The one
    exception is a 404 to the GET that resumes an interrupted event stream: the call was
    delivered and may have run. The transport does not tell the two apart yet; when it marks
    the error (``request_delivered``), such a call is not retried.
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
