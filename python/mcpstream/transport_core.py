"""The Streamable HTTP protocol core, shared by the sync and the async transport (sans-I/O).

Nothing here sends or receives bytes. The drivers (``transport_http`` with ``httpx.Client`` and a
reader thread, ``transport_http_async`` with ``httpx.AsyncClient``) do the I/O and tell the core
what happened: "this response arrived with this status and these headers", "these body bytes
arrived", "the stream ended", "the stream failed". The core answers with what to do next, which
messages to deliver, which server requests to answer, and which error to raise.

Pieces:

* ``McpHttpProtocol``: one per transport. Headers, session state, status mapping, error
  messages (server id and redacted URL), the queue of notifications, answers to server requests.
* ``CallExchange``: one per call (a request or a notification). Matches the response, enforces the
  call's deadline, decides about resumption (SEP-1699).
* ``SseBody``: one per SSE response body. Feeds the codec's ``SseDecoder`` and applies the
  quiet-window rule of open-ended streams.
* ``ListenStream``: the GET stream for server-initiated messages and its reconnection rule.
* ``McpHttpAuth`` / ``AsyncMcpHttpAuth``: the authorization hook (an OAuth session), chosen for
  a server by ``resolve_auth`` / ``resolve_async_auth``.
"""

from __future__ import annotations

from ._http.auth import (
    AUTH_CHALLENGE_STATUSES,
    AsyncMcpHttpAuth,
    AsyncMcpHttpRequestAuth,
    McpHttpAuth,
    McpHttpRequestAuth,
    resolve_async_auth,
    resolve_auth,
)
from ._http.exchange import CallExchange, SseBody
from ._http.listen import ListenStream
from ._http.protocol import (
    ACCEPT_HEADER,
    DELETE_TIMEOUT_S,
    ERROR_BODY_READ_LIMIT,
    INITIALIZED_NOTIFICATION,
    QUIET_WINDOW_S,
    USER_AGENT,
    BodyKind,
    McpHttpProtocol,
    ReconnectPolicy,
    Resume,
    ServerRequestReply,
    normalized_content_type,
)

__all__ = [
    "ACCEPT_HEADER",
    "AUTH_CHALLENGE_STATUSES",
    "DELETE_TIMEOUT_S",
    "ERROR_BODY_READ_LIMIT",
    "INITIALIZED_NOTIFICATION",
    "QUIET_WINDOW_S",
    "USER_AGENT",
    "AsyncMcpHttpAuth",
    "AsyncMcpHttpRequestAuth",
    "BodyKind",
    "CallExchange",
    "ListenStream",
    "McpHttpAuth",
    "McpHttpProtocol",
    "McpHttpRequestAuth",
    "ReconnectPolicy",
    "Resume",
    "ServerRequestReply",
    "SseBody",
    "normalized_content_type",
    "resolve_async_auth",
    "resolve_auth",
]
