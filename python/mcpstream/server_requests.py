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
from typing import Any, Protocol, TypedDict, TypeVar, runtime_checkable

from .codec import JsonRpcId

__all__ = [
    "JSONRPC_INTERNAL_ERROR",
    "JSONRPC_METHOD_NOT_FOUND",
    "AsyncMcpServerRequestHandler",
    "McpServerRequestContext",
    "McpServerRequestHandler",
    "McpServerRequestHandlerError",
    "McpUnsupportedServerRequestError",
    "ServerRequest",
]

JSONRPC_METHOD_NOT_FOUND = -32601
JSONRPC_INTERNAL_ERROR = -32603

R_co = TypeVar("R_co", covariant=True)


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


class ServerRequest(TypedDict):
    """The keyword arguments of ``handle_request``: one server-initiated request and where it
    came from."""

    context: McpServerRequestContext
    method: str
    request_id: JsonRpcId
    params: Any | None


class _RequestHandler(Protocol[R_co]):
    """``handle_request``, answering with an ``R_co`` (the two handler protocols below)."""

    def handle_request(
        self,
        *,
        context: McpServerRequestContext,
        method: str,
        request_id: JsonRpcId,
        params: Any | None,
    ) -> R_co:
        """Answer one server-initiated request, or raise one of this module's errors."""
        ...


@runtime_checkable
class McpServerRequestHandler(_RequestHandler[Any], Protocol):
    """Answers server-initiated requests for the sync transport: ``handle_request`` returns the
    JSON-RPC result for the request, or raises one of this module's errors.

    The transport may call it from its background thread (the stream of server-initiated
    messages) as well as from the thread making a call, so it must be safe to call from any
    thread.
    """


@runtime_checkable
class AsyncMcpServerRequestHandler(_RequestHandler[Awaitable[Any]], Protocol):
    """Answers server-initiated requests for the async transport: ``handle_request`` returns
    an awaitable of the JSON-RPC result, which the transport awaits, or raises one of this
    module's errors.

    The async transport also accepts a ``McpServerRequestHandler``: it awaits the returned value
    only when it is awaitable.
    """


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
