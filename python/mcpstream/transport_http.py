"""The MCP Streamable HTTP client transport, a drop-in for the reference transport.

``McpHttpTransport`` (sync, over ``httpx.Client``) sends each JSON-RPC message in its own POST
and reads the answer: 202/204 for notifications, an ``application/json`` body, or an SSE stream
that may carry notifications and requests of the server before the response. After
``notifications/initialized`` it opens the server's GET stream (when offered) in the
background. Closing it ends every thread and response it started, and DELETEs the session.
``AsyncMcpHttpTransport`` is the same for asyncio, over ``httpx.AsyncClient``.

A server with ``oauth`` settings is authorized through an ``McpOAuthSession`` (or
``AsyncMcpOAuthSession``): every POST and GET carries its bearer token, 401 and 403 answers go
to the session, which renews the credentials and says whether to send the request again, and
its OAuth errors (``McpOAuthError``, which name ``mcpstream auth login``) reach the caller as
they are.

Notifications from the server are queued for ``drain_notifications`` (at most
``max_queued_notifications``, 10,000 by default: when the queue is full the oldest is dropped,
counted in ``dropped_notifications`` and the first drop logged), or, with an
``on_notification`` callback, pushed to it as soon as they are decoded, with no queue (see each
class). Every limit (deadlines, the byte budget of a body, the queue, event ids, ``retry``) is
in the "Limits and errors" page of the documentation and the class docstrings.

Where things are: every protocol decision and the order of the steps live in the I/O-free core
(``mcpstream._http.core``); ``mcpstream._http.sync`` and ``mcpstream._http.aio`` are the drivers
that run its flows.
"""

from __future__ import annotations

from ._eras import Negotiated, Negotiation
from ._http.aio import AsyncMcpHttpTransport, AsyncNotificationCallback
from ._http.core import ReconnectPolicy
from ._http.sync import McpHttpTransport, NotificationCallback
from .errors import McpHttpTransportAuthRequiredError as McpHttpTransportAuthRequiredError
from .errors import McpHttpTransportError as McpHttpTransportError
from .errors import McpHttpTransportProtocolError as McpHttpTransportProtocolError
from .errors import McpHttpTransportRemoteError as McpHttpTransportRemoteError
from .errors import McpHttpTransportSessionExpiredError as McpHttpTransportSessionExpiredError
from .errors import McpHttpTransportTimeoutError as McpHttpTransportTimeoutError

# A literal list, so that type checkers and the API reference's generator read it. The errors are
# those the reference transport's module exports (the rest are in mcpstream.errors).
__all__ = [
    "AsyncMcpHttpTransport",
    "AsyncNotificationCallback",
    "McpHttpTransport",
    "McpHttpTransportAuthRequiredError",
    "McpHttpTransportError",
    "McpHttpTransportProtocolError",
    "McpHttpTransportRemoteError",
    "McpHttpTransportSessionExpiredError",
    "McpHttpTransportTimeoutError",
    "Negotiated",
    "Negotiation",
    "NotificationCallback",
    "ReconnectPolicy",
]
