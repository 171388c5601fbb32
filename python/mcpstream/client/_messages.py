"""The MCP messages of a client, without I/O: the protocol versions it speaks and the check of
the negotiated one, request params, paging, JSON-RPC errors, and the rule for sending a call
again after the server lost the session."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from .._eras import LEGACY_VERSIONS, MODERN_VERSIONS
from ..errors import McpError, McpHttpTransportSessionExpiredError, McpProtocolError
from ..jsonrpc import JsonRpcResponse
from ..transport_http import Negotiated
from .results import ServerInfo

__all__ = [
    "LATEST_PROTOCOL_VERSION",
    "MAX_PAGES",
    "SUPPORTED_PROTOCOL_VERSIONS",
    "Pager",
    "negotiate",
    "prompt_get_params",
    "retry_after_expiry",
    "tool_call_params",
    "unwrap",
]

SUPPORTED_PROTOCOL_VERSIONS = MODERN_VERSIONS + LEGACY_VERSIONS
"""The MCP protocol revisions the client speaks, newest first: the stateless era (2026-07-28)
and the handshake era (2025-11-25 down to 2024-11-05, the revision of the HTTP+SSE transport).
It asks for the first with ``server/discover`` and falls back to ``initialize`` offering the
newest of the handshake era, whose answer may be any of them."""
LATEST_PROTOCOL_VERSION = SUPPORTED_PROTOCOL_VERSIONS[0]
"""The newest MCP protocol revision the client speaks (the one it asks for first)."""

MAX_PAGES = 10_000
"""A listing that has not ended after this many pages is a server bug, not data."""


def negotiate(negotiated: Negotiated) -> ServerInfo:
    """The server's info from what the transport negotiated: the ``server/discover`` result
    (2026-07-28) or the ``initialize`` one, whose version must be one of the handshake era's
    (2025-11-25 down to 2024-11-05)."""
    if negotiated.modern:
        return ServerInfo.from_dict(negotiated.result, version=negotiated.version, era="modern")
    info = ServerInfo.from_dict(negotiated.result)
    if negotiated.transport != info.transport:
        info = replace(info, transport=negotiated.transport)
    if info.protocol_version not in LEGACY_VERSIONS:
        raise McpProtocolError(
            f"the server chose the MCP protocol version {info.protocol_version!r}, which this "
            f"client does not speak in the initialize handshake (it speaks "
            f"{', '.join(LEGACY_VERSIONS)} there)"
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
    if meta is None and progress_token is None:  # (as a rule)
        return params
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
