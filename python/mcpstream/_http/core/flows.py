"""The order of the protocol's steps, written once: every exchange of the transport is a flow
(see ``steps``) that a driver runs.

* ``call_flow``: one JSON-RPC message from its POST to its end: the answer classified, a 401/403
  handed to the auth hook and the POST sent again when it says so, a JSON body or an SSE stream
  read (the quiet window after the response), server requests answered while the call waits,
  notifications delivered, and the stream resumed with ``Last-Event-ID`` when it breaks off.
* ``answer_flow``: the answer to one server-initiated request, POSTed back.
* ``listen_flow``: the GET stream for server-initiated messages, reconnected by the policy.
* ``delete_flow``: the DELETE that ends the session.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, TypeVar, overload

from ..._text import sanitize
from ...errors import (
    McpAuthError,
    McpHttpTransportError,
    McpHttpTransportTimeoutError,
    McpTransportError,
)
from ...jsonrpc import (
    JsonRpcId,
    JsonRpcNotification,
    JsonRpcRequest,
    JsonRpcResponse,
    build_jsonrpc_notification,
)
from .cancel import (
    ABANDONED_REASON,
    CANCEL_TIMEOUT_S,
    CANCELLED_NOTIFICATION,
    Abandoned,
    cancel_params,
    cancellable,
    timeout_reason,
)
from .era import jsonrpc_error
from .exchange import CallExchange, SseBody
from .listen import ListenStream
from .protocol import (
    AUTH_CHALLENGE_STATUSES,
    DELETE_TIMEOUT_S,
    ERROR_BODY_READ_LIMIT,
    BodyKind,
    ForwardedAnswer,
    McpHttpProtocol,
    Resume,
    logger,
    mark_streaming,
)
from .steps import (
    Authorize,
    Authorized,
    BodyEnd,
    Bytes,
    Checkpoint,
    Deliver,
    Detach,
    Done,
    Failed,
    FailureKind,
    Flow,
    Handle,
    Handled,
    Head,
    HttpRequest,
    Idle,
    Judged,
    Outcome,
    ReadBody,
    ReadChunk,
    ReadSnippet,
    Renew,
    Run,
    Send,
    Sleep,
    Step,
    StreamAnswered,
)

__all__ = [
    "ACCEPTED",
    "Stepper",
    "answer_flow",
    "call_flow",
    "complete_answer",
    "delete_flow",
    "listen_flow",
    "resume_flow",
]

A = TypeVar("A", bound=Outcome)
B = TypeVar("B", bound=Outcome)
C = TypeVar("C", bound=Outcome)
D = TypeVar("D", bound=Outcome)
R = TypeVar("R")


class Stepper:
    """A flow as a driver runs it: ``step`` to perform while ``running``, ``answer`` with its
    outcome (or the exception the action raised), ``result`` at the end. Closing it (``with``)
    closes the flow."""

    def __init__(self, flow: Flow[Any]) -> None:
        self._flow = flow
        self.running = True
        self.result: Any = None
        self.step: Step = StreamAnswered()
        self._advance(None)

    def answer(self, outcome: Outcome | Exception | Abandoned | None, now: float) -> None:
        """Send ``outcome`` to the flow (throw it in, for an exception, or ``Abandoned``: the
        host gave the flow up); take its next step. ``now``: the driver's clock read once the
        action that produced ``outcome`` returned, which the outcome carries (the rule of time,
        see ``steps``: whatever clock an action read before its wait, the flow is told the
        time after it)."""
        if isinstance(outcome, Outcome) and outcome.now != now:
            outcome = replace(outcome, now=now)
        self._advance(outcome)

    def _advance(self, outcome: Outcome | Exception | Abandoned | None) -> None:
        try:
            if isinstance(outcome, BaseException):
                self.step = self._flow.throw(outcome)
            else:
                self.step = self._flow.send(outcome)  # type: ignore[arg-type]  # None starts it
        except StopIteration as stop:
            self.running = False
            self.result = stop.value

    def __enter__(self) -> Stepper:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._flow.close()


@overload
def _expect(step: Step, kind: type[A], /) -> Flow[A]: ...
@overload
def _expect(step: Step, kind: type[A], other: type[B], /) -> Flow[A | B]: ...
@overload
def _expect(step: Step, kind: type[A], other: type[B], third: type[C], /) -> Flow[A | B | C]: ...
@overload
def _expect(
    step: Step, kind: type[A], other: type[B], third: type[C], fourth: type[D], /
) -> Flow[A | B | C | D]: ...
def _expect(step: Step, *kinds: type[Any]) -> Flow[Any]:
    """Yield ``step``; return its outcome, which must be one of ``kinds``."""
    outcome = yield step
    if not isinstance(outcome, kinds):  # pragma: no cover - a driver bug
        raise TypeError(f"a driver answered {type(step).__name__} with {type(outcome).__name__}")
    return outcome


def _deliver(protocol: McpHttpProtocol, notifications: list[JsonRpcNotification]) -> Flow[None]:
    """Route the notifications a stream carried: queued, or delivered to the host's callback."""
    pushed = protocol.route_notifications(notifications)
    if pushed:
        yield from _expect(Deliver(pushed), Done)


# -- a call ------------------------------------------------------------------------------------


def call_flow(
    protocol: McpHttpProtocol,
    body: bytes,
    *,
    method: str,
    expected_id: JsonRpcId | None,
    timeout_s: float,
    now: float,
    headers: Mapping[str, str] | None = None,
    checkpoint: Any = None,
    cancel_at_server: bool = False,
    deadline: float | None = None,
) -> Flow[JsonRpcResponse | None]:
    """POST ``body`` (a request waiting for the response ``expected_id``, or a notification
    with None) and return the response (None for a notification) within ``timeout_s``.
    ``headers``: the ones that mirror the body (a modern request's, see ``era``).
    ``checkpoint``: a callback for the event ids of the call's stream (``steps.Checkpoint``).
    ``cancel_at_server``: a request given up (its timeout, or ``Abandoned`` thrown in) is
    cancelled at the server by its era's rule (``cancel``); the stream is closed in any case,
    by the driver, when the flow ends. ``deadline``: an earlier end, that of the operation the
    call is a part of (its errors still name ``timeout_s``)."""
    if protocol.closed:
        raise protocol.closed_error()
    call = CallExchange(
        protocol,
        method=method,
        expected_id=expected_id,
        timeout_s=timeout_s,
        now=now,
        deadline=deadline,
    )
    call.checkpoint = checkpoint
    cancel = cancel_at_server and cancellable(method, modern=protocol.modern is not None)
    try:
        return (yield from _run_call(call, _post(call, body, headers or {})))
    except McpHttpTransportTimeoutError:
        if cancel:
            # Beside the error, not before it: the host has its timeout at the deadline, and
            # the notification goes on within its own bound.
            yield from _expect(Detach(_cancel_at_server(call, timeout_reason(timeout_s))), Done)
        raise
    except Abandoned:
        if cancel:
            yield from _cancel_at_server(call, ABANDONED_REASON)
        raise


def _cancel_at_server(call: CallExchange, reason: str) -> Flow[None]:
    """POST ``notifications/cancelled`` for the request of ``call``, given up, if the server
    may have it and has not answered it, within ``CANCEL_TIMEOUT_S``; a failure is logged (the
    host gets the error of the call). Its ``Send`` closes the call's stream first."""
    protocol = call.protocol
    if not call.sent or call.response is not None or protocol.closed:
        return
    assert call.expected_id is not None
    params = cancel_params(call.expected_id, reason)
    body = protocol.encode(build_jsonrpc_notification(method=CANCELLED_NOTIFICATION, params=params))
    # The clock again: a detached cancellation starts when the driver runs it.
    started = yield from _expect(Sleep(0.0), Done)
    notice = CallExchange(
        protocol,
        method=CANCELLED_NOTIFICATION,
        expected_id=None,
        timeout_s=min(CANCEL_TIMEOUT_S, call.timeout_s),
        now=started.now,
    )
    notice.renews = False
    try:
        yield from _run_call(notice, _post(notice, body, {}))
    except Exception as exc:
        logger.info(
            "MCP server %r: the cancellation of '%s' was not delivered: %s",
            protocol.server.id,
            call.method,
            type(exc).__name__,
        )


def resume_flow(
    protocol: McpHttpProtocol,
    *,
    last_event_id: str,
    method: str,
    expected_id: JsonRpcId,
    timeout_s: float,
    now: float,
    checkpoint: Any = None,
) -> Flow[JsonRpcResponse | None]:
    """Go on with a request sent earlier (by this client or a previous one) whose stream
    reached ``last_event_id``: resume it with GET and ``Last-Event-ID`` at once, as a broken
    stream is, and return its response within ``timeout_s`` (the response answers the call
    ``expected_id`` now, whatever id the earlier request had)."""
    if protocol.closed:
        raise protocol.closed_error()
    call = CallExchange(
        protocol, method=method, expected_id=expected_id, timeout_s=timeout_s, now=now
    )
    call.checkpoint = checkpoint
    call.last_event_id = last_event_id
    call.adopted = True
    return (yield from _run_call(call, _resume(call, Resume(0.0, last_event_id))))


def _run_call(call: CallExchange, first: Flow[Resume | None]) -> Flow[JsonRpcResponse | None]:
    """Run the first leg of ``call`` (its POST, or a resumption), then its resumptions."""
    protocol = call.protocol
    try:
        resume = yield from first
        while resume is not None:
            resume = yield from _resume(call, resume)
    except Exception:
        # Notifications decoded just before an error broke the call off still go out.
        yield from _deliver(protocol, call.notifications)
        raise
    return call.result()


def _authorization(
    call: CallExchange, *, scope: Any, replay_allowed: bool | None
) -> Flow[Authorized]:
    """The hook's ``Authorization`` value (None without a hook), for a replay of the message
    of ``scope`` or for a new one (``scope`` None). The time the hook spends renewing
    credentials counts against the call, as any other wait of it: a refresh is not cut off
    (its own timeouts bound it, and a token half renewed would be lost), but the call raises
    its timeout as soon as it returns past the deadline."""
    if not call.protocol.has_auth:
        return Authorized(call.now, None)
    step = Authorize(call.method, replay_allowed=replay_allowed, scope=scope)
    authorized = yield from _expect(step, Authorized)
    call.now = authorized.now
    call.check_deadline(call.now)
    return authorized


def _renewed(call: CallExchange, authorized: Authorized, head: Head, body: bytes) -> Flow[bool]:
    """Hand a 401/403 to the hook: True to send the request again (see ``_authorization``:
    the time of a renewal counts against the call)."""
    step = Renew(authorized.scope, head.status_code, head.headers, body)
    judged = yield from _expect(step, Judged)
    call.now = judged.now
    return judged.retry


def _send(
    call: CallExchange, method: str, headers: dict[str, str], body: bytes | None = None
) -> Flow[Head | Failed]:
    request = call.protocol.request(
        method, headers, remaining_s=call.remaining_s(call.now), body=body
    )
    for _ in range(call.protocol.max_redirects + 1):
        outcome = yield from _expect(Send(request), Head, Failed)
        call.now = outcome.now
        if isinstance(outcome, Failed):
            return outcome
        target = call.protocol.redirect_target(request, outcome)
        if target is None:
            return outcome
        call.check_deadline(call.now)
        request = replace(request, url=target, timeout_s=call.remaining_s(call.now))
    return outcome


def _sent(protocol: McpHttpProtocol, request: HttpRequest) -> Flow[Head | Failed]:
    """Send ``request``, following the redirects the protocol follows (a GET stream's, the
    DELETE's: their own deadline bounds each attempt)."""
    for _ in range(protocol.max_redirects + 1):
        outcome = yield from _expect(Send(request), Head, Failed)
        if isinstance(outcome, Failed):
            return outcome
        target = protocol.redirect_target(request, outcome)
        if target is None:
            return outcome
        request = replace(request, url=target)
    return outcome


def _found_lost(protocol: McpHttpProtocol, request: HttpRequest, head: Head | Failed) -> None:
    """A 404 to a request of the session that is no call's (the GET stream, the DELETE): the
    session is lost (``McpHttpProtocol.session_lost``), as it is for a call's 404."""
    if not isinstance(head, Failed) and head.status_code == 404:
        protocol.session_lost(request.headers.get("MCP-Session-Id"))


def _snippet(call: CallExchange) -> Flow[bytes]:
    """About ``ERROR_BODY_READ_LIMIT`` bytes of the open response (which is then closed)."""
    body = yield from _expect(ReadSnippet(ERROR_BODY_READ_LIMIT), Bytes)
    call.now = body.now
    return body.data


def _post(call: CallExchange, body: bytes, extra: Mapping[str, str]) -> Flow[Resume | None]:
    protocol = call.protocol
    expired = protocol.expired_before_sending(call.method)
    if expired is not None:
        raise expired
    scope = None
    while True:
        authorized = yield from _authorization(call, scope=scope, replay_allowed=None)
        headers = protocol.post_headers(authorization=authorized.header)
        headers.update(extra)
        session_id = headers.get("MCP-Session-Id")
        call.sent = True
        head = yield from _send(call, "POST", headers, body)
        if isinstance(head, Failed):
            # Only a timeout after connecting may have left the request with the server.
            call.sent = head.kind is FailureKind.TIMEOUT
            raise protocol.map_failure(
                head, method=call.method, timeout_s=call.timeout_s
            ) from head.error
        kind = protocol.classify_post_answer(
            method=call.method,
            expects_response=call.expects_response,
            status_code=head.status_code,
            headers=head.headers,
            challengeable=protocol.has_auth and call.renews,
        )
        if kind is not BodyKind.CHALLENGE:
            return (yield from _take_post_answer(call, head, kind, session_id))
        # The 401/403 is read and closed before the hook renews the credentials.
        error_body = yield from _snippet(call)
        call.sent = False  # refused: the server runs nothing of it
        if not (yield from _renewed(call, authorized, head, error_body)):
            raise _status_error(call, head.status_code, error_body, session_id)
        call.check_deadline(call.now)
        scope = authorized.scope


def _status_error(
    call: CallExchange, status_code: int, body: bytes, session_id: str | None
) -> McpHttpTransportError:
    error = call.protocol.status_error(
        status_code=status_code, body=body, method=call.method, session_id=session_id
    )
    assert error is not None
    return error


def _take_post_answer(
    call: CallExchange, head: Head, kind: BodyKind, session_id: str | None
) -> Flow[Resume | None]:
    protocol = call.protocol
    if kind is BodyKind.ERROR:
        error_body = yield from _snippet(call)
        if protocol.modern_errors and call.expects_response:
            # A modern server answers a refused request with a 4xx carrying its JSON-RPC error
            # (unsupported version, header mismatch, method not found): the call's response.
            error = jsonrpc_error(error_body)
            if error is not None:
                if head.status_code == 404:  # the SDK server's answer for a lost session
                    protocol.session_lost(session_id)
                call.response = JsonRpcResponse(id=call.expected_id, error=error)
                return None
        raise _status_error(call, head.status_code, error_body, session_id)
    if kind is BodyKind.ACCEPTED:
        yield from _snippet(call)  # the HTTP+SSE transport's acknowledgement
        return None
    if kind is BodyKind.UNTYPED and (yield from _snippet(call)).strip():
        raise protocol.untyped_body_error(call.method)
    if kind is BodyKind.JSON:
        call.check_length(head.headers)
        read = ReadBody(call.remaining_s(call.now), protocol.max_json_bytes)
        outcome = yield from _expect(read, Bytes, Idle, Failed)
        call.now = outcome.now
        if isinstance(outcome, Idle):
            raise call.timeout_error()
        if isinstance(outcome, Failed):
            raise protocol.map_failure(
                outcome, method=call.method, timeout_s=call.timeout_s
            ) from outcome.error
        call.take_json_body(outcome.data)
        yield from _deliver(protocol, call.notifications)
    if kind is not BodyKind.SSE:
        return None
    return (yield from _read_sse(call, call.open_sse(headers=head.headers, now=call.now)))


ACCEPTED = JsonRpcResponse(id=None, result=None)
"""What ``complete_answer`` gives for a notification the server accepted with no body to read
(202 or 204, no content type): the notification's flow would read nothing and end."""


def complete_answer(
    call: CallExchange,
    *,
    status_code: int,
    headers: Mapping[str, str],
    now: float,
    body: bytes,
) -> JsonRpcResponse | None:
    """The response ``call`` waits for (a new ``CallExchange`` of the request, made as its
    POST went out) when the answer to that POST arrived whole at ``now``, with its head
    (``status_code``, ``headers`` as ``Head`` has them; ``body``: all of it, as received),
    and is the plain case: a 2xx ``application/json`` body, or an event stream that ended,
    carrying that response and nothing else; for a notification (``expected_id`` None),
    ``ACCEPTED`` when it was accepted with nothing to read. None for anything else (an error
    status, a
    challenge, a compressed body, a notification or a server request, a response missing or
    malformed, a stream to resume): the driver then runs ``call_flow`` with this very answer
    (``Send``'s first outcome), which decides, reads, delivers or raises as it does for every
    answer. What is done here is what ``_take_post_answer`` and ``_read_sse_events`` do for
    the plain case, with the same ``CallExchange``, and nothing that the flow would do
    otherwise."""
    protocol = call.protocol
    if (
        not 200 <= status_code < 300
        or "content-encoding" in headers
        or protocol.sse_endpoint is not None
        or protocol.closed
    ):
        return None
    call.now = now
    try:
        kind = protocol.classify_post_answer(
            method=call.method,
            expects_response=call.expects_response,
            status_code=status_code,
            headers=headers,
            challengeable=protocol.has_auth,
        )
        if not call.expects_response:
            return ACCEPTED if kind is BodyKind.NONE else None
        if kind is BodyKind.JSON:
            call.check_length(headers)
            call.take_json_body(body)
        elif kind is BodyKind.SSE:
            if not call.take_whole_sse(headers=headers, body=body, now=now):
                return None  # a server request (the flow answers it), or a stream to resume
        else:
            return None
    except Exception:  # the flow raises it, in its own way (marked, after deliveries)
        return None
    if call.notifications:
        return None  # the flow routes them, in order
    return call.response


def _streaming(flow: Flow[R]) -> Flow[R]:
    """``flow``, a transport error raised meanwhile marked as one of a stream
    (``mark_streaming``)."""
    try:
        return (yield from flow)
    except McpHttpTransportError as exc:
        mark_streaming(exc)
        raise


def _read_sse(call: CallExchange, sse: SseBody) -> Flow[Resume | None]:
    """Read an SSE body answering ``call`` until the call is complete (the quiet window after
    the response of an open-ended stream) or the stream ends or breaks off. A transport error
    raised meanwhile is marked as one of a stream (``_streaming``)."""
    return _streaming(_read_sse_events(call, sse))


def _read_sse_events(call: CallExchange, sse: SseBody) -> Flow[Resume | None]:
    while True:
        wait_s = sse.wait_s(call.now)
        if wait_s is None:
            return None
        outcome = yield from _expect(ReadChunk(wait_s), Bytes, BodyEnd, Idle, Failed)
        call.now = outcome.now
        if isinstance(outcome, Idle):
            continue
        if isinstance(outcome, Failed):
            return sse.failed(outcome)
        if isinstance(outcome, Bytes):
            requests, resume, done = sse.feed(outcome.data, outcome.now), None, False
        else:
            (requests, resume), done = sse.ended(outcome.now), True
        yield from _deliver(call.protocol, call.notifications)
        for request in requests:
            step = Run(
                answer_flow(
                    call.protocol,
                    request,
                    during=call.method,
                    now=call.now,
                    budget_s=call.remaining_s,
                    waiting=call,
                )
            )
            answered = yield from _expect(step, Done)
            call.now = answered.now
        if call.unreported_event_id is not None:
            event_id, call.unreported_event_id = call.unreported_event_id, None
            reported = yield from _expect(Checkpoint(event_id, call.checkpoint), Done)
            call.now = reported.now
        if done:
            return resume


def _resume(call: CallExchange, resume: Resume) -> Flow[Resume | None]:
    """Reconnect with GET and ``Last-Event-ID`` after the delay; read the resumed stream. A
    transport error is marked as one of a stream (``_streaming``)."""
    return _streaming(_resume_stream(call, resume))


def _resume_stream(call: CallExchange, resume: Resume) -> Flow[Resume | None]:
    protocol = call.protocol
    slept = yield from _expect(Sleep(resume.delay_s), Done)
    call.now = slept.now
    if protocol.closed:
        raise protocol.closed_error()
    call.check_deadline(call.now)
    scope = None
    while True:
        # A reconnection GET repeats nothing on the server: it may always be sent again.
        authorized = yield from _authorization(call, scope=scope, replay_allowed=True)
        headers = protocol.get_headers(
            last_event_id=resume.last_event_id, authorization=authorized.header
        )
        head = yield from _send(call, "GET", headers)
        if isinstance(head, Failed):
            if head.kind is FailureKind.TIMEOUT and head.now >= call.deadline:
                raise call.timeout_error() from head.error
            if head.kind in (FailureKind.CONNECT_TIMEOUT, FailureKind.NETWORK, FailureKind.TIMEOUT):
                # The client's timeouts may run out long before the call's deadline: a failed
                # attempt, like any network error (as the SDK's transport counts it).
                return call.resume_failed(head)
            raise protocol.map_failure(
                head, method=call.method, timeout_s=call.timeout_s
            ) from head.error
        if call.is_resumable_answer(status_code=head.status_code, headers=head.headers):
            return (yield from _read_sse(call, call.open_sse(headers=None, now=call.now)))
        error_body = yield from _snippet(call)
        if 200 <= head.status_code < 300:
            # A 2xx that is no event stream: a failed attempt (as the SDK's transport counts
            # it), tried again by the policy.
            return call.resume_unusable(headers=head.headers, body=error_body)
        if (
            not protocol.has_auth
            or head.status_code not in AUTH_CHALLENGE_STATUSES
            or not (yield from _renewed(call, authorized, head, error_body))
        ):
            raise call.resume_refused(
                status_code=head.status_code, headers=head.headers, body=error_body
            )
        call.check_deadline(call.now)
        scope = authorized.scope


# -- server-initiated requests -----------------------------------------------------------------


def answer_flow(
    protocol: McpHttpProtocol,
    request: JsonRpcRequest,
    *,
    during: str,
    now: float,
    budget_s: Callable[[float], float],
    waiting: CallExchange | None = None,
) -> Flow[None]:
    """Answer ``request``, which came while ``during`` ran: the handler's result or error (or
    -32601 without a handler) POSTed back within ``budget_s(now)`` seconds. Raises the error the
    waiting call must raise when the request was not answered with a result. ``waiting``: the
    call that waits on the answer, whose deadline the handler's time counts against (its
    timeout error is raised once the handler is done, or cut off, past it)."""
    if protocol.has_handler:
        wait_s = None if waiting is None else waiting.deadline - now
        outcome = yield from _expect(Handle(request, wait_s), Handled, Idle)
        now = outcome.now
        if waiting is not None:
            waiting.now = now
            waiting.check_deadline(now)
        if not isinstance(outcome, Handled):  # cut off at the deadline of ``waiting``
            assert waiting is not None
            raise waiting.timeout_error()
        handled = outcome
        if isinstance(handled.result, ForwardedAnswer) and handled.result.posted:
            return  # the host POSTed its answer itself (mcpstream.sdk)
        reply = protocol.reply_to_server_request(
            request, during=during, outcome=handled.result, error=handled.error
        )
    else:
        reply = protocol.reply_to_server_request(request, during=during, handled=False)
    try:
        yield from call_flow(
            protocol,
            reply.body,
            method=f"{request.method} response",
            expected_id=None,
            timeout_s=budget_s(now),
            now=now,
        )
    except McpHttpTransportError as exc:
        if reply.failure is not None:
            raise reply.failure from exc
        raise protocol.reply_post_failed(request.method, exc) from exc
    if reply.failure is not None:
        raise reply.failure


# -- the GET stream ----------------------------------------------------------------------------


def listen_flow(stream: ListenStream, *, call_timeout_s: float) -> Flow[None]:
    """Keep the server's GET stream open: answer its requests, route its notifications, and
    reconnect by the policy until it is given up or ``stream.stopping``. The driver wakes the
    ``StreamAnswered`` waiters at the end too."""
    server_id = stream.protocol.server.id
    while not stream.stopping and not stream.outlived:  # (never reopened in a new session)
        failed = False
        try:
            if not (yield from _listen_once(stream, call_timeout_s)):
                return
        except McpAuthError as exc:
            # No credentials for the stream, and none to be had without the user.
            logger.info("GET stream of server %r stopped: %s", server_id, sanitize(exc, 2000))
            return
        except Exception as exc:
            if stream.stopping:
                return
            cause = exc.failed.error if isinstance(exc, _BrokeOff) else exc
            logger.info("GET stream of server %r broke off: %s", server_id, type(cause).__name__)
            failed = True
        delay_s = stream.next_delay_s(failed=failed)
        if delay_s is None:
            return
        yield from _expect(Sleep(delay_s), Done)


class _BrokeOff(Exception):
    """A GET of the stream failed on the wire (logged by name, like any other failure)."""

    def __init__(self, failed: Failed) -> None:
        super().__init__(str(failed.error))
        self.failed = failed


def _listen_once(stream: ListenStream, call_timeout_s: float) -> Flow[bool]:
    """One GET stream from request to end; False when the server offers none (or refuses it
    for credentials that cannot be renewed) or the stream is stopped."""
    protocol = stream.protocol
    authorized = Authorized(0.0, None)
    if protocol.has_auth:
        authorized = yield from _expect(Authorize(ListenStream.METHOD), Authorized)
    authorization = authorized.header
    request = stream.request(
        authorization=authorization,
        timeout_s=min(call_timeout_s, ListenStream.HEADERS_TIMEOUT_S),
    )
    head = yield from _sent(protocol, request)
    _found_lost(protocol, request, head)  # before the calls waiting for this answer go on
    # The GET is answered by its head (a GET that failed counts as answered); the stateless
    # era's listen stream by its acknowledgement, the first message, once the server holds the
    # subscriptions (or by the head when there is no stream to read one from).
    by_head = protocol.modern is None or isinstance(head, Failed)
    if by_head:
        yield from _expect(StreamAnswered(), Done)
    if isinstance(head, Failed):
        raise _BrokeOff(head) from head.error
    if stream.stopping:
        return False
    status_code = head.status_code
    if protocol.has_auth and stream.asks_for_renewal(
        status_code=status_code, authorized=authorization is not None
    ):
        body = yield from _expect(ReadSnippet(ERROR_BODY_READ_LIMIT), Bytes)
        renew = Renew(authorized.scope, status_code, head.headers, body.data)
        judged = yield from _expect(renew, Judged)
        logger.info(
            "GET stream of server %r: HTTP 401, credentials %s",
            protocol.server.id,
            "renewed, reconnecting" if judged.retry else "not renewed, giving up",
        )
        return judged.retry
    if not stream.accept(status_code=status_code, headers=head.headers):
        if not by_head:
            yield from _expect(StreamAnswered(), Done)
        return False
    acknowledgements = None if by_head else stream.acknowledgements
    try:
        while True:
            outcome = yield from _expect(ReadChunk(None), Bytes, BodyEnd, Failed)
            if isinstance(outcome, Failed):
                raise _BrokeOff(outcome) from outcome.error
            ended = isinstance(outcome, BodyEnd)
            requests = stream.feed(outcome.data) if isinstance(outcome, Bytes) else stream.finish()
            yield from _deliver(protocol, stream.notifications)
            if acknowledgements is not None and stream.acknowledgements > acknowledgements:
                acknowledgements = None
                yield from _expect(StreamAnswered(), Done)
            for request_ in requests:
                yield from _answer_in_background(
                    stream.protocol, ListenStream.METHOD, request_, call_timeout_s, outcome.now
                )
            if ended:
                return True
            if stream.stopping:
                return False
    finally:
        stream.disconnected()


def _answer_in_background(
    protocol: McpHttpProtocol, during: str, request: JsonRpcRequest, timeout_s: float, now: float
) -> Flow[None]:
    """Answer a server request of a stream no call owns (``during``: the GET stream, the
    HTTP+SSE stream); a failure is logged, as no call waits for it."""
    flow = answer_flow(protocol, request, during=during, now=now, budget_s=lambda _now: timeout_s)
    try:
        yield from _expect(Run(flow), Done)
    except McpTransportError as exc:
        logger.warning("%s", sanitize(exc, 2000))


# -- closing -----------------------------------------------------------------------------------


def delete_flow(
    protocol: McpHttpProtocol, *, authorization: str | None, call_timeout_s: float
) -> Flow[None]:
    """End the session with a DELETE (when there is one) carrying ``authorization``, the stored
    credentials as they are (no renewal at the end); every failure is ignored."""
    if not protocol.session_id:
        return
    try:
        request = protocol.request(
            "DELETE",
            protocol.delete_headers(authorization=authorization),
            remaining_s=min(call_timeout_s, DELETE_TIMEOUT_S),
        )
        head = yield from _sent(protocol, request)
        if isinstance(head, Failed):
            raise head.error
        _found_lost(protocol, request, head)
        yield from _expect(ReadSnippet(ERROR_BODY_READ_LIMIT), Bytes)
    except Exception as exc:
        logger.debug("DELETE of the session failed: %s", type(exc).__name__)
