"""The rules for carrying the messages of a host's own MCP session (the SDK's ``ClientSession``,
see ``mcpstream.sdk``) over the transport: no I/O.

Such a host does the handshake (``initialize`` or ``server/discover``), stamps its requests with
the headers of its era and matches the responses itself; the transport carries each message
it writes (``Relay.outbound`` says how) and hands back what the server sends. What the host's
stamps say of the era is taken over by the protocol (``MCP-Protocol-Version`` on the messages
the host does not stamp, session ids only below 2026-07-28, a 4xx carrying a JSON-RPC error as
a request's response at 2026-07-28).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from ...jsonrpc import JsonRpcId
from .cancel import CANCELLED_NOTIFICATION, notifies_cancellation
from .era import is_modern
from .protocol import INITIALIZED_NOTIFICATION, McpHttpProtocol, ModernState

__all__ = ["CANCELLED_NOTIFICATION", "Outbound", "Relay", "Route"]

_VERSION_HEADER = "mcp-protocol-version"


class Route(Enum):
    """What one message of the host becomes."""

    CALL = "call"
    """A request: POSTed, its stream read, its response handed back."""
    RESUME = "resume"
    """A request the host sent earlier, to go on with from its resumption token (GET with
    ``Last-Event-ID``); nothing is POSTed."""
    POST = "post"
    """A notification, or an answer no server request waits for: POSTed, nothing handed back."""
    ANSWER = "answer"
    """The host's answer to a server request a stream waits for: handed to that stream, which
    POSTs it."""
    ABORT = "abort"
    """At 2026-07-28, the cancellation of a request in flight: its stream is closed (that is
    the signal in that era) and nothing is POSTed."""
    DROP = "drop"
    """At 2026-07-28, the cancellation of a request no longer in flight: nothing to do (the era
    has no client-to-server notifications over HTTP)."""


@dataclass(frozen=True, slots=True)
class Outbound:
    """How to carry one message: ``route``; ``request_id`` (the request's id for ``CALL`` and
    ``RESUME``, the server request's for ``ANSWER``, the cancelled request's for ``ABORT``);
    ``headers``, the host's per-message headers to send (the protocol version taken over by the
    protocol); ``supersedes``: a ``CALL`` reusing the id of a request still in flight, whose
    stream must be closed first (the host's waiter is the new request's now);
    ``starts_listening``: the GET stream opens once this is sent."""

    route: Route
    request_id: JsonRpcId | None = None
    headers: dict[str, str] = field(default_factory=dict)
    supersedes: bool = False
    starts_listening: bool = False


@dataclass(slots=True)
class _InFlight:
    modern: bool
    """The era the request was sent in: its cancellation follows that era's rule."""


class Relay:
    """Per-transport state of a relayed session: the requests in flight (by id, typed as they
    came: ``"1"`` is not ``1``) and the server requests waiting for the host's answer."""

    def __init__(self, protocol: McpHttpProtocol, *, error_bodies_answer: bool = True) -> None:
        # error_bodies_answer: a non-2xx answer carrying a JSON-RPC error is the request's
        # response (the SDK's 2.x transport reads such bodies; its 1.x transport does not).
        self.protocol = protocol
        protocol.error_bodies_answer = error_bodies_answer
        protocol.keeps_lost_sessions = True  # the SDK's rule (``McpHttpProtocol``)
        self._in_flight: dict[tuple[type, JsonRpcId], _InFlight] = {}
        self._waiting: set[tuple[type, JsonRpcId]] = set()

    @property
    def modern(self) -> bool:
        """True while the host's stamps say 2026-07-28 (or later)."""
        return self.protocol.modern is not None

    def outbound(
        self,
        *,
        method: str | None,
        request_id: JsonRpcId | None,
        params: Any,
        headers: Mapping[str, str] | None,
        resumption_token: str | None,
    ) -> Outbound:
        """How to carry a message of the host: a request (``method`` and ``request_id``), a
        notification (``method`` alone) or an answer (``request_id`` alone), with the
        per-message ``headers`` and ``resumption_token`` of its metadata."""
        extra = self._take_era(method, headers or {})
        if method is None:
            key = _key(request_id)
            if key in self._waiting:
                self._waiting.discard(key)
                return Outbound(Route.ANSWER, request_id, extra)
            return Outbound(Route.POST, request_id, extra)
        if request_id is not None:
            key = _key(request_id)
            supersedes = key in self._in_flight
            self._in_flight[key] = _InFlight(modern=self.modern)
            route = Route.RESUME if resumption_token else Route.CALL
            return Outbound(route, request_id, extra, supersedes=supersedes)
        if method == CANCELLED_NOTIFICATION:
            return self._cancellation(params, extra)
        # As the SDK's transport: a GET stream belongs to a session (none without its id).
        starts = (
            method == INITIALIZED_NOTIFICATION
            and not self.modern
            and self.protocol.session_negotiated
        )
        return Outbound(Route.POST, None, extra, starts_listening=starts)

    def finished(self, request_id: JsonRpcId) -> None:
        """The request ``request_id`` is no longer in flight."""
        self._in_flight.pop(_key(request_id), None)

    def server_request_waiting(self, request_id: JsonRpcId) -> None:
        """A stream handed the host the server request ``request_id`` and waits for its
        answer."""
        self._waiting.add(_key(request_id))

    def server_request_given_up(self, request_id: JsonRpcId) -> None:
        """The stream no longer waits for the answer to ``request_id`` (it ended)."""
        self._waiting.discard(_key(request_id))

    def _cancellation(self, params: Any, extra: dict[str, str]) -> Outbound:
        cancelled = params.get("requestId") if isinstance(params, dict) else None
        in_flight = self._in_flight.get(_key(cancelled)) if cancelled is not None else None
        if in_flight is not None:
            # The era the request ran in decides: its stream closed at 2026-07-28, the
            # notification POSTed below it (where a disconnect is explicitly no cancellation).
            if not notifies_cancellation(in_flight.modern):
                return Outbound(Route.ABORT, cancelled)
            return Outbound(Route.POST, None, extra)
        # No request to consult: at 2026-07-28 the frame goes nowhere (no late cancellation
        # racing the response may reach the wire).
        return Outbound(Route.DROP if self.modern else Route.POST, None, extra)

    def _take_era(self, method: str | None, headers: Mapping[str, str]) -> dict[str, str]:
        """Take the era the host's stamps say; return its other per-message headers."""
        protocol = self.protocol
        extra: dict[str, str] = {}
        stamped: str | None = None
        for name, value in headers.items():
            if name.lower() == _VERSION_HEADER:
                stamped = value
            else:
                extra[name] = value
        if method == "initialize":
            # The handshake negotiates the version: no probe's stamp may ride on it.
            protocol.set_protocol_version(None)
            protocol.modern = None
        elif stamped is not None:
            protocol.set_protocol_version(stamped)
            if not is_modern(stamped):
                protocol.modern = None
            elif protocol.modern is None or protocol.modern.version != stamped:
                # The host stamps its own requests: the state only marks the era.
                protocol.modern = ModernState(version=stamped, capabilities={}, client_info={})
        return extra


def _key(request_id: Any) -> tuple[type, JsonRpcId]:
    return (type(request_id), request_id)
