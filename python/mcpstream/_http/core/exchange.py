"""The state of one call of the Streamable HTTP transport; no I/O.

A call's flow (``flows.call_flow``) makes a ``CallExchange`` for the call and hands it what the
server answers: a JSON body to ``take_json_body``, an SSE body to an ``SseBody`` that is fed
chunk by chunk or taken whole. ``take_messages`` sorts every message: notifications are
queued, the response with the call's id is kept, and server requests go back to the flow to be
answered. ``SseBody.wait_s`` says how long to wait for more bytes: up to the deadline before
the response, and after it only while the stream keeps talking (``QUIET_WINDOW_S``). A stream
that ends or breaks before the response gives a ``Resume``: the flow reconnects with a GET
from the last event id (SEP-1699), within the call's deadline.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ... import codec
from ...errors import (
    CodecError,
    McpHttpTransportError,
    McpHttpTransportProtocolError,
    McpHttpTransportSessionExpiredError,
    McpHttpTransportTimeoutError,
    SseEventTooLargeError,
)
from ...jsonrpc import (
    JsonRpcId,
    JsonRpcNotification,
    JsonRpcRequest,
    JsonRpcResponse,
    parse_jsonrpc_line,
)
from .protocol import (
    QUIET_WINDOW_S,
    McpHttpProtocol,
    Resume,
    carried_event_id,
    mark_delivered,
    mark_streaming,
    normalized_content_type,
)
from .steps import Failed, FailureKind

__all__ = ["CallExchange", "SseBody"]


class CallExchange:
    """One call from its POST to its end: the response it waits for, its deadline, resumption."""

    __slots__ = (
        "_idle_reconnects",
        "adopted",
        "checkpoint",
        "deadline",
        "expected_id",
        "last_event_id",
        "method",
        "notifications",
        "now",
        "protocol",
        "renews",
        "response",
        "retry_ms",
        "sent",
        "timeout_s",
        "unreported_event_id",
    )

    def __init__(
        self,
        protocol: McpHttpProtocol,
        method: str,
        expected_id: JsonRpcId | None,
        timeout_s: float,
        now: float,
        deadline: float | None = None,
    ) -> None:
        self.protocol = protocol
        self.method = method
        self.expected_id = expected_id
        self.timeout_s = timeout_s
        self.deadline = now + timeout_s if deadline is None else min(deadline, now + timeout_s)
        """When the call ends: ``timeout_s`` after ``now``, or the earlier ``deadline`` of the
        operation it is a part of (a later round of a request, whose errors name its whole
        ``timeout_s``)."""
        self.response: JsonRpcResponse | None = None
        self.last_event_id: str | None = None
        self.retry_ms: int | None = None
        self.now = now
        """The time of the latest outcome of the call's flow (the driver's clock)."""
        self.notifications: list[JsonRpcNotification] = []
        """Notifications decoded and not yet routed (``McpHttpProtocol.route_notifications``)."""
        self.checkpoint: Any = None
        """The host's callback for the resumption tokens of the call's stream (see
        ``steps.Checkpoint``), None without one."""
        self.unreported_event_id: str | None = None
        """The event id the stream reached and ``checkpoint`` was not told yet."""
        self.adopted = False
        """The stream is an earlier request's (resumed from its token, ``resume_flow``): its
        response answers this call whatever its id."""
        self._idle_reconnects = 0
        self.sent = False
        """True once the POST was sent and did not fail before reaching the server: the server
        may have the request, so giving it up cancels it there (see ``cancel``)."""
        self.renews = True
        """False for a message whose 401/403 is not handed to the auth hook (a cancellation:
        no renewal, no login, for a request already given up)."""

    @property
    def expects_response(self) -> bool:
        """True for a request, False for a notification."""
        return self.expected_id is not None

    def remaining_s(self, now: float) -> float:
        """Seconds left before the deadline (at least a millisecond, for HTTP timeouts; at most
        the call's timeout, which ``deadline - now`` can pass by a rounding error)."""
        return min(max(self.deadline - now, 0.001), self.timeout_s)

    def check_deadline(self, now: float) -> None:
        """Raise the timeout error once the deadline has passed."""
        if now >= self.deadline:
            raise self.timeout_error()

    def timeout_error(self) -> McpHttpTransportError:
        """The timeout error of this call."""
        return self.protocol.timeout_error(self.method, self.timeout_s)

    def _protocol_error(self, message: str) -> McpHttpTransportError:
        return self.protocol.error(message, McpHttpTransportProtocolError)

    # -- messages ------------------------------------------------------------------------------

    def take_messages(
        self,
        messages: tuple[Any, ...],
        *,
        allow_server_requests: bool,
        strict_follow_up: bool,
    ) -> list[JsonRpcRequest]:
        """Process the messages of one JSON body or SSE event, in order.

        Notifications are queued; the matching response is kept; server requests are returned
        for the driver to answer. Anything out of place raises a protocol error.
        ``strict_follow_up``: nothing at all may follow the response (a body with a length);
        otherwise notifications after it are still queued (an open-ended stream).
        """
        method = self.method
        if len(messages) != 1:
            raise self._protocol_error(
                f"the server sent a JSON-RPC batch during '{method}'; MCP over Streamable HTTP "
                "does not use batches"
            )
        message = messages[0]
        if isinstance(message, JsonRpcNotification):
            if self.response is not None and strict_follow_up:
                raise self._protocol_error(
                    f"the server sent a message after the response to '{method}'"
                )
            self.notifications.append(message)
            return []
        if isinstance(message, JsonRpcRequest):
            if self.response is not None:
                raise self._protocol_error(
                    f"the server sent the request '{message.method}' after the response to "
                    f"'{method}'; requests are only accepted before it"
                )
            if not allow_server_requests or not self.expects_response:
                raise self._protocol_error(
                    f"the server sent the request '{message.method}' during '{method}', where "
                    "server requests are not supported"
                )
            return [message]
        if not self.expects_response:
            raise self._protocol_error(
                f"the server sent a JSON-RPC response to the notification '{method}'"
            )
        if self.response is not None:
            if strict_follow_up:
                raise self._protocol_error(
                    f"the server sent more than one JSON-RPC response for '{method}'"
                )
            raise self._protocol_error(
                f"the server sent a message after the response to '{method}'"
            )
        if message.id != self.expected_id and not self.adopted:
            raise self._protocol_error(
                f"the server answered with the JSON-RPC id {self.protocol.quote(message.id)} "
                f"while '{method}' waits for {self.expected_id!r}"
            )
        self.response = message
        return []

    def check_length(self, headers: Mapping[str, str]) -> None:
        """Refuse, before reading it, a JSON body whose ``Content-Length`` passes the byte
        budget (``max_json_bytes``)."""
        limit = self.protocol.max_json_bytes
        length = headers.get("content-length", "")
        if limit is not None and length.isdigit() and int(length) > limit:
            raise self.protocol.too_large_error(
                f"the JSON answer to '{self.method}' (Content-Length {int(length)})", limit
            )

    def take_json_body(self, body: bytes) -> None:
        """Process an ``application/json`` body (server requests are not accepted there).
        A body past the byte budget (the driver stops reading a little after it) is refused.

        A JSON body answering a notification is discarded unread: the spec has servers answer
        notifications with 202 and no body, but some answer 200 with a placeholder (the MCP
        conformance suite sends ``{"jsonrpc": "2.0", "result": {}}``), and the official SDKs
        ignore it. Nothing in such a body is addressed to the client.
        """
        limit = self.protocol.max_json_bytes
        if limit is not None and len(body) > limit:
            raise self.protocol.too_large_error(f"the JSON answer to '{self.method}'", limit)
        if not self.expects_response:
            return
        if not body.strip():
            raise self._protocol_error(f"the JSON answer to '{self.method}' is empty")
        try:
            messages = parse_jsonrpc_line(body)
        except CodecError as exc:
            raise self._malformed(exc) from exc
        self.take_messages(messages, allow_server_requests=False, strict_follow_up=True)

    def _malformed(self, exc: BaseException) -> McpHttpTransportError:
        return self._protocol_error(
            f"malformed JSON-RPC from the server during '{self.method}': {exc}"
        )

    def result(self) -> JsonRpcResponse | None:
        """The matched response (None for a notification); raises if a request got none."""
        if self.expects_response and self.response is None:
            raise self._protocol_error(
                f"'{self.method}' completed without the matching JSON-RPC response"
            )
        return self.response

    # -- SSE -----------------------------------------------------------------------------------

    def open_sse(self, *, headers: Mapping[str, str] | None, now: float) -> SseBody:
        """Start reading one SSE body that answers this call.

        ``headers`` is the head of the POST's answer, open-ended without a Content-Length; None
        stands for a resumed GET's body, which is always open-ended."""
        open_ended = headers is None or headers.get("content-length") is None
        # perf: positional arguments; a class called with keywords costs about twice as much.
        return SseBody(self, open_ended, now)

    def take_whole_sse(self, *, headers: Mapping[str, str], body: bytes, now: float) -> bool:
        """Take the whole SSE body of the POST's answer; True when that left nothing to do.

        Nothing to do means no server request to answer and no stream to resume, as
        ``open_sse(...).whole`` would find. The common answer, one event holding the response
        alone (``codec.sole_sse_message``), is taken without making a decoder."""
        message = codec.sole_sse_message(body, self.protocol.max_event_bytes)
        if (
            isinstance(message, JsonRpcResponse)
            and self.response is None
            and message.id is not None
            and message.id == self.expected_id
        ):
            self.response = message
            return True
        requests, resume = self.open_sse(headers=headers, now=now).whole(body, now)
        return not requests and resume is None

    def is_resumable_answer(self, *, status_code: int, headers: Mapping[str, str]) -> bool:
        """True when the answer to a reconnection GET is an event stream to read."""
        content_type = normalized_content_type(headers.get("content-type"))
        return 200 <= status_code < 300 and content_type == "text/event-stream"

    def _note_ids(self, decoder: codec.SseDecoder) -> bool:
        """Copy the decoder's last event id and retry; True when the event id moved on."""
        received, current = decoder.last_event_id, self.last_event_id
        # no id received yet (as in most streams): the current one stays, as carried_event_id says
        event_id = current if received is None else carried_event_id(current, received)
        advanced = event_id is not None and event_id != current
        self.last_event_id = event_id
        if advanced and self.checkpoint is not None:
            self.unreported_event_id = event_id
        if decoder.retry_ms is not None:
            self.retry_ms = decoder.retry_ms
        return advanced

    def _resume_or_raise(self, now: float, failure: McpHttpTransportError) -> Resume:
        policy = self.protocol.reconnect_policy
        if self.last_event_id is None or self._idle_reconnects >= policy.max_attempts:
            raise failure
        self._idle_reconnects += 1
        delay_s = policy.delay_s(attempt=self._idle_reconnects, retry_ms=self.retry_ms)
        if now + delay_s >= self.deadline:
            raise self.timeout_error()
        return Resume(delay_s=delay_s, last_event_id=self.last_event_id)

    def resume_failed(self, failed: Failed) -> Resume:
        """A reconnection GET failed on the network, or ran past one of the HTTP client's
        timeouts before the call's deadline: try again later, or raise."""
        if failed.kind is FailureKind.TIMEOUT:
            error = self.stalled_error(failed)
        else:
            error = self.protocol.map_failure(failed, method=self.method, timeout_s=self.timeout_s)
        return self._resume_or_raise(failed.now, error)

    def stalled_error(self, failed: Failed) -> McpHttpTransportError:
        """The error of a stream (or a reconnection GET) that stayed silent past the HTTP
        client's read timeout before the call's deadline (``failed``, a timeout of the client,
        is its cause): a stream that broke off, which the relay of a host's session reports as
        the SDK's transport does (``CONNECTION_CLOSED``), not as its own deadline."""
        error = self.protocol.error(
            f"the event stream of '{self.method}' was silent for longer than the HTTP "
            "client's read timeout",
            McpHttpTransportTimeoutError,
        )
        error.__cause__ = failed.error
        return error

    def resume_unusable(self, *, headers: Mapping[str, str], body: bytes) -> Resume:
        """A reconnection GET answered 2xx with something else than an event stream: try again
        later, or raise the refusal."""
        error = self.resume_refused(status_code=200, headers=headers, body=body)
        return self._resume_or_raise(self.now, error)

    def resume_refused(
        self, *, status_code: int, headers: Mapping[str, str], body: bytes
    ) -> McpHttpTransportError:
        """The error for an answer to a reconnection GET that is not an event stream. The server
        took the call before its stream broke off, so a 404 on the session is marked as coming
        after delivery (``request_delivered``: the call may have run)."""
        content_type = normalized_content_type(headers.get("content-type"))
        session_id = self.protocol.session_id
        if status_code == 404 and session_id:
            self.protocol.session_lost(session_id)
            return mark_delivered(
                self.protocol.error(
                    f"the session expired: the server answered 404 to the GET resuming the "
                    f"event stream of '{self.method}', which it had received and may have run",
                    McpHttpTransportSessionExpiredError,
                )
            )
        error = self.protocol.status_error(
            status_code=status_code,
            body=body,
            method=self.method,
            session_id=session_id,
        )
        if error is not None:
            return error
        return self._protocol_error(
            f"the server answered the reconnection GET of '{self.method}' with the content "
            f"type {content_type!r} instead of an event stream"
        )


class SseBody:
    """One SSE body answering a call: decoding, message handling, quiet window, its end."""

    __slots__ = ("_decoder", "_progress", "call", "last_activity", "open_ended")

    def __init__(self, call: CallExchange, open_ended: bool, now: float) -> None:
        self.call = call
        self.open_ended = open_ended
        self.last_activity = now
        self._decoder = codec.SseDecoder(call.protocol.max_event_bytes)
        self._progress = False

    def _take_events(self, events: list[codec.JsonRpcEvent]) -> list[JsonRpcRequest]:
        call = self.call
        requests: list[JsonRpcRequest] = []
        for event in events:
            if event.error is not None:
                raise call._malformed(event.error)
            requests.extend(
                call.take_messages(
                    event.messages,
                    allow_server_requests=True,
                    strict_follow_up=not self.open_ended,
                )
            )
        if call._note_ids(self._decoder):
            self._progress = True
        return requests

    def feed(self, chunk: bytes, now: float) -> list[JsonRpcRequest]:
        """Take body bytes; return the server requests they completed, to be answered. Bytes
        that neither complete nor start an event (comments, blank lines) are no activity: a
        server sending comments more often than the quiet window does not hold the call."""
        try:
            events = self._decoder.feed_jsonrpc(chunk)
        except CodecError as exc:
            raise self._decode_error(exc) from exc
        if events or self._decoder.event_in_progress:
            self.last_activity = now
        return self._take_events(events)

    def _decode_error(self, exc: CodecError) -> McpHttpTransportError:
        if isinstance(exc, SseEventTooLargeError):
            return self.call.protocol.too_large_error(
                f"an SSE event of the answer to '{self.call.method}'", exc.limit
            )
        return self.call.protocol.error(
            f"the event stream of '{self.call.method}' could not be decoded: {exc}",
            McpHttpTransportProtocolError,
        )

    def wait_s(self, now: float) -> float | None:
        """How long to wait for more bytes; None when the call is complete (quiet window over).

        Raises the call's timeout error once its deadline has passed without a response. After
        the response, the deadline ends the call with it (trailing bytes still coming, an
        event half-received, are left unread).
        """
        call = self.call
        remaining = call.deadline - now
        if call.response is None or not self.open_ended:
            if remaining <= 0:
                raise call.timeout_error()
            return remaining
        if remaining <= 0:
            return None
        if self._decoder.event_in_progress:
            return remaining
        quiet_until = self.last_activity + QUIET_WINDOW_S
        if quiet_until <= now:
            return None
        return min(quiet_until - now, remaining)

    def whole(self, body: bytes, now: float) -> tuple[list[JsonRpcRequest], Resume | None]:
        """The whole body at once: ``feed`` and then ``ended``, the events of both taken in one
        pass (which of two errors is raised may differ: the caller of a whole body only asks
        whether there was one)."""
        decoder = self._decoder
        try:
            events = decoder.feed_jsonrpc(body)
            events.extend(decoder.finish_jsonrpc())
        except CodecError as exc:
            raise self._decode_error(exc) from exc
        self.last_activity = now
        return self._take_events(events), self._after_stream(now, None)

    def ended(self, now: float) -> tuple[list[JsonRpcRequest], Resume | None]:
        """The body ended cleanly. Returns the requests of a last event, and None when the call
        is complete or a ``Resume`` when it must go on over a reconnection GET."""
        try:
            events = self._decoder.finish_jsonrpc()
        except CodecError as exc:
            raise self._decode_error(exc) from exc
        requests = self._take_events(events)
        return requests, self._after_stream(now, None)

    def failed(self, failed: Failed) -> Resume | None:
        """The body broke off (a network error). None if the response had already arrived;
        a ``Resume`` if the stream can be resumed; otherwise the mapped error is raised."""
        exc = failed.error
        if isinstance(exc, CodecError):
            raise self._decode_error(exc) from exc
        if isinstance(exc, McpHttpTransportError):
            raise exc
        call = self.call
        error = call.protocol.map_failure(
            failed, method=call.method, timeout_s=call.timeout_s, during="event stream"
        )
        if failed.is_timeout:
            if call.response is not None:
                return None
            if failed.now >= call.deadline:
                raise error from exc
            # The HTTP client's own read timeout, before the call's deadline: the stream
            # stalled. As under the SDK's transport, it broke off: resumed from its last event
            # id by the policy, or failed.
            return self._after_stream(failed.now, call.stalled_error(failed), stalled=True)
        return self._after_stream(failed.now, error)

    def _after_stream(
        self, now: float, error: McpHttpTransportError | None, *, stalled: bool = False
    ) -> Resume | None:
        call = self.call
        if call.response is not None or not call.expects_response:
            return None
        # A stalled stream counts as a failed attempt whatever it brought (as the SDK's
        # transport counts it): a server sending a priming event to each reconnection GET and
        # then nothing must not be reconnected to for ever.
        if self._progress and not stalled:
            call._idle_reconnects = 0
        failure = error or mark_streaming(
            call._protocol_error(
                f"the event stream ended before the response to '{call.method}' arrived"
            ),
            ended=True,
        )
        return call._resume_or_raise(now, failure)
