"""The hot path, from whichever backend is in use.

The native backend (``mcpstream._native``, Rust through PyO3) is used when it imports; otherwise
the pure-Python twin (``mcpstream._pure``) with the same API, results and errors. Set the
environment variable ``MCPSTREAM_BACKEND`` to ``native`` or ``python`` to force one; asking for
``native`` where the extension is missing raises ``ImportError``. ``BACKEND`` names the one in use.

Both backends can be imported side by side (``mcpstream._native``, ``mcpstream._pure``) for tests
and benchmarks. The contract of every name is written in ``mcpstream/_native.pyi``.

``DEFAULT_MAX_EVENT_BYTES`` (64 MiB) is mcpstream's default byte budget for one SSE event or one
JSON body, which the transports pass to every decoder they make: a tool result of 16 MiB of
text is about 20 MB on the wire, twice that when the server repeats it in
``structuredContent``. A backend's ``SseDecoder()`` made without an argument has the same
cap.
"""

from __future__ import annotations

import os
from types import ModuleType
from typing import TYPE_CHECKING, Final, Literal

from .errors import CodecError, InvalidUtf8Error, JsonRpcProtocolError, SseEventTooLargeError

__all__ = [
    "BACKEND",
    "DEFAULT_MAX_EVENT_BYTES",
    "CodecError",
    "InvalidUtf8Error",
    "JsonRpcEvent",
    "JsonRpcId",
    "JsonRpcMessage",
    "JsonRpcNotification",
    "JsonRpcProtocolError",
    "JsonRpcRequest",
    "JsonRpcResponse",
    "SseDecoder",
    "SseEvent",
    "SseEventTooLargeError",
    "Utf8Decoder",
    "encode_jsonrpc_message",
    "load_backend",
    "parse_jsonrpc_line",
    "sole_sse_message",
]

BackendName = Literal["native", "python"]


def load_backend(name: BackendName) -> ModuleType:
    """Import and return the backend module called ``name`` (``native`` or ``python``)."""
    if name == "native":
        try:
            from . import _native
        except ImportError as exc:
            raise ImportError(
                "mcpstream's native backend (mcpstream._native) is not available: "
                "install a mcpstream wheel, or build it with 'pip install .'"
            ) from exc
        return _native
    if name == "python":
        from . import _pure

        return _pure
    raise ValueError(f"unknown mcpstream backend {name!r}: use 'native' or 'python'")


def _choose_backend() -> tuple[BackendName, ModuleType]:
    requested = os.environ.get("MCPSTREAM_BACKEND", "").strip().lower()
    if requested in ("native", "python"):
        name: BackendName = "native" if requested == "native" else "python"
        return name, load_backend(name)
    if requested:
        raise ImportError(
            f"MCPSTREAM_BACKEND={requested!r} is not a backend: use 'native' or 'python'"
        )
    try:
        return "native", load_backend("native")
    except ImportError:
        return "python", load_backend("python")


DEFAULT_MAX_EVENT_BYTES: Final = 64 * 1024 * 1024
"""The default cap on one SSE event or JSON body of the transports (``max_event_bytes``)."""

if TYPE_CHECKING:
    from ._native import (
        JsonRpcEvent,
        JsonRpcId,
        JsonRpcMessage,
        JsonRpcNotification,
        JsonRpcRequest,
        JsonRpcResponse,
        SseDecoder,
        SseEvent,
        Utf8Decoder,
        encode_jsonrpc_message,
        parse_jsonrpc_line,
        sole_sse_message,
    )

    BACKEND: BackendName
else:
    BACKEND, _backend = _choose_backend()
    JsonRpcEvent = _backend.JsonRpcEvent
    JsonRpcNotification = _backend.JsonRpcNotification
    JsonRpcRequest = _backend.JsonRpcRequest
    JsonRpcResponse = _backend.JsonRpcResponse
    JsonRpcId = int | str
    JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse
    SseDecoder = _backend.SseDecoder
    SseEvent = _backend.SseEvent
    Utf8Decoder = _backend.Utf8Decoder
    encode_jsonrpc_message = _backend.encode_jsonrpc_message
    parse_jsonrpc_line = _backend.parse_jsonrpc_line
    sole_sse_message = _backend.sole_sse_message
