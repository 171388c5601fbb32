"""The state of the GET stream of the Streamable HTTP transport; no I/O.

One ``ListenStream`` lives as long as the session, and ``flows.listen_flow`` runs it: it sends
the GET, asks ``accept`` whether the answer is a stream to read (a 405 means the server offers
none, and the stream is given up quietly), feeds the body's bytes to it and routes what they
carry. When a connection ends, ``next_delay_s`` says when to reconnect, by the protocol's
``ReconnectPolicy``, or that it is time to give up; the last event id is sent again as
``Last-Event-ID``. In the stateless era (2026-07-28) the same stream is a
``subscriptions/listen`` POST (``LISTEN_FILTER``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ... import codec
from ...jsonrpc import JsonRpcNotification, JsonRpcRequest, build_jsonrpc_request
from .protocol import McpHttpProtocol, carried_event_id, logger, normalized_content_type
from .steps import HttpRequest

__all__ = ["ACKNOWLEDGED_NOTIFICATION", "LISTEN_FILTER", "ListenStream", "listen_filter"]

LISTEN_FILTER = {"toolsListChanged": True, "promptsListChanged": True, "resourcesListChanged": True}
"""The notifications a modern transport subscribes to (``subscriptions/listen``): the list
changes, the stateless era's counterpart of what the GET stream carried."""
SUBSCRIPTION_ID = "mcpstream-listen"
ACKNOWLEDGED_NOTIFICATION = "notifications/subscriptions/acknowledged"
"""The first message of a ``subscriptions/listen`` stream: the filter the server honors."""


def listen_filter(resources: Sequence[str]) -> dict[str, Any]:
    """The filter of a ``subscriptions/listen`` request: the list changes, and the updates of
    the ``resources`` the client subscribed to (the stateless era's ``resources/subscribe``)."""
    if not resources:
        return dict(LISTEN_FILTER)
    return {**LISTEN_FILTER, "resourceSubscriptions": list(resources)}


class ListenStream:
    """The GET stream on which the server sends requests and notifications of its own.

    One ``ListenStream`` lives as long as the session; each connection it accepts gets a new
    decoder (``accept``). The last event id is carried over for ``Last-Event-ID`` on
    reconnection.
    """

    METHOD = "GET stream"
    HEADERS_TIMEOUT_S = 10.0
    """How long a GET waits for the head of its answer (at most the server's call timeout)."""
    OPEN_WAIT_S = 2.0
    """How long the first call after ``notifications/initialized`` waits for the server to
    answer the GET that opens its stream (any answer, 405 included; ``initialized`` itself does
    not wait). Without the wait the GET, sent from its own thread or task, can reach the server
    after the next requests of the caller; a server that takes a GET as the place for a
    pending response (the conformance suite's ``sse-retry`` server does) then puts a call's
    response there, which is not the call's stream. A server slower than this to answer the
    GET gets it in the background."""

    def __init__(self, protocol: McpHttpProtocol, resources: Sequence[str] = ()) -> None:
        self.protocol = protocol
        self.resources = tuple(resources)
        """The resource subscriptions of a ``subscriptions/listen`` stream."""
        self.acknowledged: dict[str, Any] | None = None
        """The filter of the server's last ``notifications/subscriptions/acknowledged``."""
        self.acknowledgements = 0
        """How many the stream's connections carried (the flow waits for the next one)."""
        self.stopping = False
        """Set by the driver to end the stream: the flow stops at its next step."""
        self.notifications: list[JsonRpcNotification] = []
        """Notifications decoded and not yet routed (``McpHttpProtocol.route_notifications``)."""
        self.last_event_id: str | None = None
        self.retry_ms: int | None = None
        self.failures = 0
        self.connected = False
        self.session_id = protocol.session_id
        """The session the stream belongs to (None in the stateless era: it has none)."""
        self._decoder: codec.SseDecoder | None = None
        self._delivered = False

    @property
    def outlived(self) -> bool:
        """True once the session the stream was opened in is gone (``session_lost``, or a new
        one opened): the stream ends, and a new session opens a stream of its own."""
        return self.session_id is not None and self.protocol.session_id != self.session_id

    def headers(self, *, authorization: str | None = None) -> dict[str, str]:
        """Headers for the next GET (``authorization``: from the auth hook)."""
        return self.protocol.get_headers(
            last_event_id=self.last_event_id, authorization=authorization
        )

    def request(self, *, authorization: str | None, timeout_s: float) -> HttpRequest:
        """The next request of the stream: a GET, or, in the stateless era, the POST of
        ``subscriptions/listen`` (stamped like any modern request; the stream is not
        resumable there, so no ``Last-Event-ID``)."""
        protocol = self.protocol
        state = protocol.modern
        if state is None:
            return protocol.request(
                "GET", self.headers(authorization=authorization), remaining_s=timeout_s
            )
        notifications = listen_filter(self.resources)
        params, mirrored = state.stamp("subscriptions/listen", {"notifications": notifications})
        payload = build_jsonrpc_request(
            request_id=SUBSCRIPTION_ID, method="subscriptions/listen", params=params
        )
        headers = {**protocol.post_headers(authorization=authorization), **mirrored}
        return protocol.request(
            "POST", headers, remaining_s=timeout_s, body=protocol.encode(payload)
        )

    def asks_for_renewal(self, *, status_code: int, authorized: bool) -> bool:
        """True for a 401 to a GET that carried credentials: the driver lets the auth hook
        renew them and, when it did, reconnects (a fruitless attempt, so the policy's limit
        holds). Any other refusal is left to ``accept``, which gives the stream up: a GET
        without credentials never starts a login in the background."""
        return authorized and status_code == 401

    def accept(self, *, status_code: int, headers: Mapping[str, str]) -> bool:
        """Whether to read the answer to a GET; False (give up, quietly) for 405 and the like."""
        content_type = normalized_content_type(headers.get("content-type"))
        if status_code == 405:
            logger.debug("server %r offers no GET stream (405)", self.protocol.server.id)
            return False
        if not 200 <= status_code < 300 or content_type != "text/event-stream":
            logger.info(
                "server %r refused the GET stream (HTTP %s, %s)",
                self.protocol.server.id,
                status_code,
                self.protocol.quote(content_type),
            )
            return False
        self._decoder = codec.SseDecoder(self.protocol.max_event_bytes)
        self._delivered = False
        self.connected = True
        return True

    def disconnected(self) -> None:
        """The connection ended (any way)."""
        self.connected = False

    def feed(self, chunk: bytes) -> list[JsonRpcRequest]:
        """Take body bytes; queue notifications; return server requests to answer."""
        assert self._decoder is not None
        return self._take(self._decoder.feed_jsonrpc(chunk))

    def finish(self) -> list[JsonRpcRequest]:
        """The stream ended cleanly: the messages of a last event."""
        assert self._decoder is not None
        return self._take(self._decoder.finish_jsonrpc())

    def _take(self, events: list[codec.JsonRpcEvent]) -> list[JsonRpcRequest]:
        assert self._decoder is not None
        requests: list[JsonRpcRequest] = []
        for event in events:
            self._delivered = True
            if event.error is not None:
                logger.warning(
                    "server %r sent a malformed message on its GET stream: %s",
                    self.protocol.server.id,
                    event.error,
                )
                continue
            for message in event.messages:
                if isinstance(message, JsonRpcNotification):
                    if message.method == ACKNOWLEDGED_NOTIFICATION:
                        self._acknowledge(message.params)
                    self.notifications.append(message)
                elif isinstance(message, JsonRpcRequest):
                    requests.append(message)
                else:
                    logger.debug(
                        "server %r sent a response on its GET stream; ignored",
                        self.protocol.server.id,
                    )
        event_id = carried_event_id(self.last_event_id, self._decoder.last_event_id)
        if event_id is not None and event_id != self.last_event_id:
            self._delivered = True
        self.last_event_id = event_id
        if self._decoder.retry_ms is not None:
            self.retry_ms = self._decoder.retry_ms
        return requests

    def _acknowledge(self, params: Any) -> None:
        honored = params.get("notifications") if isinstance(params, dict) else None
        self.acknowledged = dict(honored) if isinstance(honored, dict) else {}
        self.acknowledgements += 1

    def next_delay_s(self, *, failed: bool) -> float | None:
        """The delay before reconnecting after a connection ended, or None to give up.

        A connection that delivered something resets the count of fruitless ones.
        """
        policy = self.protocol.reconnect_policy
        if self._delivered and not failed:
            self.failures = 0
        else:
            self.failures += 1
        self._delivered = False
        if self.failures > policy.max_attempts:
            logger.info(
                "giving up the GET stream of server %r after %d failed attempts",
                self.protocol.server.id,
                self.failures - 1,
            )
            return None
        return policy.delay_s(attempt=max(self.failures, 1), retry_ms=self.retry_ms)
