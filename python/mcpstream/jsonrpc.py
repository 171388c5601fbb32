"""JSON-RPC 2.0 messages: the typed messages and codec functions of the active backend, plus the
builders and the id generator the transports use.

The builders return plain dicts ready for ``encode_jsonrpc_message``; a ``params`` of ``None`` is
left out of the message, as JSON-RPC allows.
"""

from __future__ import annotations

import itertools
import threading
from typing import Any

from .codec import (
    JsonRpcId,
    JsonRpcMessage,
    JsonRpcNotification,
    JsonRpcRequest,
    JsonRpcResponse,
    encode_jsonrpc_message,
    parse_jsonrpc_line,
)
from .errors import JsonRpcProtocolError

__all__ = [
    "JsonRpcId",
    "JsonRpcIdGenerator",
    "JsonRpcMessage",
    "JsonRpcNotification",
    "JsonRpcProtocolError",
    "JsonRpcRequest",
    "JsonRpcResponse",
    "build_jsonrpc_error_response",
    "build_jsonrpc_notification",
    "build_jsonrpc_request",
    "build_jsonrpc_result_response",
    "encode_jsonrpc_message",
    "parse_jsonrpc_line",
]


class JsonRpcIdGenerator:
    """Hands out request ids 1, 2, 3, ...; safe to share between threads."""

    def __init__(self, start: int = 1) -> None:
        self._counter = itertools.count(start)
        self._lock = threading.Lock()

    def next(self) -> int:
        """Return the next unused id."""
        with self._lock:
            return next(self._counter)


def build_jsonrpc_request(
    *, request_id: JsonRpcId, method: str, params: Any | None
) -> dict[str, Any]:
    """Build a request object."""
    payload: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        payload["params"] = params
    return payload


def build_jsonrpc_notification(*, method: str, params: Any | None) -> dict[str, Any]:
    """Build a notification object (no id)."""
    payload: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        payload["params"] = params
    return payload


def build_jsonrpc_result_response(*, request_id: JsonRpcId, result: Any) -> dict[str, Any]:
    """Build a successful response to the request ``request_id``."""
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def build_jsonrpc_error_response(
    *, request_id: JsonRpcId | None, code: int, message: str, data: Any | None = None
) -> dict[str, Any]:
    """Build an error response; ``data`` is included only when not ``None``."""
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}
