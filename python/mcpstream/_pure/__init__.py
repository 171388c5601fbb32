"""The pure-Python backend of the hot path: the same names, results and errors as the native one.

``mcpstream.codec`` uses it when the Rust extension (``mcpstream._native``) is not installed, or
when ``MCPSTREAM_BACKEND=python`` asks for it. The contract of every name is written in
``mcpstream/_native.pyi``.
"""

from __future__ import annotations

from .jsonrpc import (
    JsonRpcEvent,
    JsonRpcId,
    JsonRpcMessage,
    JsonRpcNotification,
    JsonRpcRequest,
    JsonRpcResponse,
    encode_jsonrpc_message,
    parse_jsonrpc_line,
)
from .sse import DEFAULT_MAX_EVENT_BYTES, SseDecoder, SseEvent
from .utf8 import Utf8Decoder

__all__ = [
    "DEFAULT_MAX_EVENT_BYTES",
    "JsonRpcEvent",
    "JsonRpcId",
    "JsonRpcMessage",
    "JsonRpcNotification",
    "JsonRpcRequest",
    "JsonRpcResponse",
    "SseDecoder",
    "SseEvent",
    "Utf8Decoder",
    "encode_jsonrpc_message",
    "parse_jsonrpc_line",
]
