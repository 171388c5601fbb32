"""Requests the server sends to the client (elicitation, sampling, roots, ping, ...).

A host that wants to answer them gives the transport a ``McpServerRequestHandler`` and a
``McpServerRequestContext``. For every server-initiated request the transport calls
``handler.handle_request(context=..., method=..., request_id=..., params=...)`` and POSTs back:

* the returned value as the JSON-RPC ``result``;
* ``McpServerRequestHandlerError(code, message)`` as a JSON-RPC error with that code and message;
* ``McpUnsupportedServerRequestError`` as a "method not found" error (-32601);
* any other exception as an "internal error" (-32603) whose message says nothing about it.

Without a handler, every server-initiated request is refused with "method not found".
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

from .codec import JsonRpcId

__all__ = [
    "JSONRPC_INTERNAL_ERROR",
    "JSONRPC_METHOD_NOT_FOUND",
    "AsyncMcpServerRequestHandler",
    "McpServerRequestContext",
    "McpServerRequestHandler",
    "McpServerRequestHandlerError",
    "McpUnsupportedServerRequestError",
]

JSONRPC_METHOD_NOT_FOUND = -32601
JSONRPC_INTERNAL_ERROR = -32603


@dataclass(frozen=True, slots=True)
class McpServerRequestContext:
    """What a handler may need to know about where a request came from.

    ``server_id`` is the id of the server that sent it; ``workspace_root`` the host's workspace
    (roots requests answer with it, for instance); ``metadata`` anything else the host wants
    its handler to see.
    """

    server_id: str
    workspace_root: Path | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "metadata", MappingProxyType(dict(self.metadata)))


@runtime_checkable
class McpServerRequestHandler(Protocol):
    """Answers server-initiated requests for the sync transport.

    The transport may call it from its background thread (the stream of server-initiated
    messages) as well as from the thread making a call, so it must be safe to call from any
    thread.
    """

    def handle_request(
        self,
        *,
        context: McpServerRequestContext,
        method: str,
        request_id: JsonRpcId,
        params: Any | None,
    ) -> Any:
        """Return the JSON-RPC result for the request, or raise one of this module's errors."""
        ...


@runtime_checkable
class AsyncMcpServerRequestHandler(Protocol):
    """Answers server-initiated requests for the async transport, which awaits the result.

    The async transport also accepts a ``McpServerRequestHandler``: it awaits the returned value
    only when it is awaitable.
    """

    def handle_request(
        self,
        *,
        context: McpServerRequestContext,
        method: str,
        request_id: JsonRpcId,
        params: Any | None,
    ) -> Awaitable[Any]:
        """Return an awaitable of the JSON-RPC result, or raise one of this module's errors."""
        ...


class McpServerRequestHandlerError(Exception):
    """Raised by a handler to answer the request with a JSON-RPC error ``code`` and ``message``.

    The message is sent to the server as it is: it must not hold secrets.
    """

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class McpUnsupportedServerRequestError(Exception):
    """Raised by a handler for a request method it does not support ("method not found")."""
