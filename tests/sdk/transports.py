"""The two transports the parity tests run side by side under the SDK's session: the SDK's own
``streamable_http_client`` and ``mcpstream.sdk``'s."""

from __future__ import annotations

import inspect
from typing import Any

from mcp.client.streamable_http import streamable_http_client as sdk_streamable_http_client
from mcpstream.sdk import streamable_http_client

__all__ = ["CAPPED", "TRANSPORTS", "leaves", "shape"]

TRANSPORTS: dict[str, Any] = {
    "sdk": sdk_streamable_http_client,
    "mcpstream": streamable_http_client,
}
"""The transports by name: the SDK's and mcpstream's."""

CAPPED = sorted(
    name
    for name, factory in TRANSPORTS.items()
    if "max_sse_event_size" in inspect.signature(factory).parameters
)
"""The transports that take ``max_sse_event_size``: mcpstream's always, the SDK's from mcp 2.2
on (its transport had no event cap before)."""


def leaves(group: BaseExceptionGroup[Any]) -> list[BaseException]:
    """The exceptions of ``group`` and of the groups in it."""
    found: list[BaseException] = []
    for exc in group.exceptions:
        found.extend(leaves(exc) if isinstance(exc, BaseExceptionGroup) else [exc])
    return found


def shape(exc: BaseException) -> str:
    """What a host sees of ``exc``: its class (module and name), the shapes of a group's
    exceptions in brackets, and an ``MCPError``'s code."""
    name = f"{type(exc).__module__}.{type(exc).__qualname__}"
    if isinstance(exc, BaseExceptionGroup):
        return name + "[" + ", ".join(shape(inner) for inner in exc.exceptions) + "]"
    error = getattr(exc, "error", None)
    code = getattr(error, "code", None)
    return name if code is None else f"{name}({code})"
