"""The asyncio transport under its own module name (``AsyncMcpHttpTransport`` is also exported
by ``mcpstream.transport_http``, with the sync one); its driver is ``mcpstream._http.aio``."""

from __future__ import annotations

from ._http.aio import AsyncMcpHttpTransport, AsyncNotificationCallback

__all__ = ["AsyncMcpHttpTransport", "AsyncNotificationCallback"]
