"""The Streamable HTTP protocol core: every decision of the transport, and no I/O.

The rule of this folder: no httpx, no sockets, no threads, no ``time.sleep``, no asyncio, no
clock. It is told the time (each outcome a driver sends carries ``now``) and speaks in its own
descriptions of requests and responses (``steps``). The drivers (``mcpstream._http.sync`` with
``httpx.Client`` and a reader thread, ``mcpstream._http.aio`` with ``httpx.AsyncClient`` and
tasks) run its flows and do the I/O they ask for.

* ``steps``: what a flow asks for (send, read, authorize, renew, handle, deliver, sleep...) and
  what it is told back.
* ``flows``: the order of the steps: a call, the answer to a server request, the GET stream, the
  DELETE; and ``Stepper``, which a driver runs a flow with.
* ``protocol``: ``McpHttpProtocol``, one per transport: headers, session, requests, status
  mapping, error messages, the notification queue, answers to server requests; and
  ``ModernState``, what it knows while it speaks the stateless era.
* ``exchange``: ``CallExchange`` (one call: response matching, deadline, resumption) and
  ``SseBody`` (one SSE body: decoding, the quiet window).
* ``listen``: ``ListenStream``, the GET stream's state and reconnection rule (in the stateless
  era, the ``subscriptions/listen`` POST stream).
* ``era``: the rules of the stateless era (MCP 2026-07-28): versions, request metadata and the
  headers mirroring it, ``x-mcp-header`` annotations, modern errors, multi-round-trip results,
  caching hints; pure functions.
* ``relay``: ``Relay``, the rules for carrying the messages of a host's own MCP session (the
  SDK's ``ClientSession``, see ``mcpstream.sdk``): what each outbound message becomes, the era
  its stamps say, cancellation at 2026-07-28.
* ``cancel``: the rules for cancelling a request the client gave up (timed out, or its task
  cancelled) at the server, by the era it was sent in; ``call_flow(cancel_at_server=True)``
  follows them, and so does ``relay``.
* ``sse_legacy``: the HTTP+SSE transport of 2024-11-05 (deprecated, still deployed) as one more
  flow: the fallback from a refused ``initialize`` POST to the GET stream and its ``endpoint``
  event, each message POSTed there and answered on the stream (``SseStream``), and the
  process's cache of what negotiation found per server (``NEGOTIATED``).
* ``discovery``: the process's cache of ``server/discover`` answers, per server, version and
  identity.
* ``advice``: what an error message tells a user to check (a web page rather than MCP, a wrong
  path, a scheme that does not match the port); it shapes messages only.
* ``modern``: its flows over ``call_flow``: ``negotiate_flow`` (``server/discover``, or the
  ``initialize`` fallback, the cache consulted first) and ``modern_request_flow`` (stamping,
  retries, ``input_required`` rounds, the list cache).

The modules form layers, and each imports only from those below it (``tests/test_import_cycles.py``
checks it, imports for typing included): ``steps``, ``era``, ``cancel`` and ``advice`` (they
import no other module of the core), then ``protocol`` (the state of one transport,
``ModernState`` included) and ``discovery``, then ``exchange``, ``listen`` and ``relay``, then
``flows``, then ``sse_legacy``, then ``modern``.
"""

from __future__ import annotations

from .exchange import CallExchange
from .flows import (
    Stepper,
    answer_flow,
    call_flow,
    complete_answer,
    delete_flow,
    listen_flow,
    resume_flow,
)
from .listen import ListenStream
from .protocol import (
    DEFAULT_MAX_QUEUED_NOTIFICATIONS,
    INITIALIZED_NOTIFICATION,
    McpHttpProtocol,
    ReconnectPolicy,
)

__all__ = [
    "DEFAULT_MAX_QUEUED_NOTIFICATIONS",
    "INITIALIZED_NOTIFICATION",
    "CallExchange",
    "ListenStream",
    "McpHttpProtocol",
    "ReconnectPolicy",
    "Stepper",
    "answer_flow",
    "call_flow",
    "complete_answer",
    "delete_flow",
    "listen_flow",
    "resume_flow",
]
