"""The asyncio driver: ``AsyncMcpHttpTransport`` runs the core's flows over
``httpx.AsyncClient``.

Every request is sent under ``asyncio.timeout`` of what is left of its operation (connect,
TLS, the whole wait for the head: a trickle of header bytes cannot stretch it, with any
client), and every read waits under one too; the GET stream runs as a task. OAuth goes through an
``AsyncMcpOAuthSession``, awaited, so that renewing credentials never blocks the event loop.
Every decision is the core's; this module only performs the steps (see
``mcpstream._http.core.steps``).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import httpx

from .._eras import Negotiated, Negotiation
from .._telemetry import Message, Negotiating
from .._timeouts import check_timeout
from ..jsonrpc import JsonRpcId, JsonRpcNotification, JsonRpcResponse
from ..oauth import AsyncMcpOAuthRedirectHandler, McpOAuthRedirectHandler
from ..oauth_store import McpOAuthTokenStore
from ..server_requests import (
    AsyncMcpServerRequestHandler,
    McpServerRequestHandler,
)
from . import wire
from .aio_io import Exchange, collect, read_limited, wait_set, within
from .auth import AsyncMcpHttpAuth, learn_dpop_nonce, resolve_async_auth, with_dpop_proof
from .core import (
    INITIALIZED_NOTIFICATION,
    CallExchange,
    ListenStream,
    Stepper,
    complete_answer,
    listen_flow,
)
from .core import steps as s
from .core.cancel import CLOSE_WAIT_S, Abandoned
from .core.sse_legacy import SseStream
from .facade import HttpTransportBase
from .httpx_clients import io_deadline, make_async_client

__all__ = ["AsyncMcpHttpTransport", "AsyncNotificationCallback"]

T = TypeVar("T")

AsyncNotificationCallback = Callable[[JsonRpcNotification], Awaitable[object] | object]
"""``on_notification`` of ``AsyncMcpHttpTransport``: called with each notification of the
server; what it returns is awaited when it is awaitable."""


class AsyncMcpHttpTransport(
    HttpTransportBase[
        httpx.AsyncClient,
        AsyncMcpHttpAuth,
        McpServerRequestHandler | AsyncMcpServerRequestHandler,
        AsyncMcpOAuthRedirectHandler | McpOAuthRedirectHandler,
        AsyncNotificationCallback,
    ]
):
    """An asyncio MCP client transport over Streamable HTTP (MCP 2026-07-28, and the
    handshake era down to 2024-11-05, with the HTTP+SSE transport of 2024-11-05 as a fallback).

    Takes the keywords of ``McpHttpTransport``, with ``client`` an ``httpx.AsyncClient`` or an
    ``httpx2.AsyncClient``.
    ``server_request_handler`` may return its result or an awaitable of it, and
    ``oauth_redirect_handler`` may be async (``AsyncHeadlessRedirectHandler``) or blocking (run in
    a worker thread). Use it from one event loop; ``close`` (or ``async with``) ends the GET
    stream task and the session.

    ``on_notification`` may be a function or a coroutine function. It receives the server's
    notifications instead of the queue of ``drain_notifications`` (which then stays empty), in
    the order of their stream, awaited one by one by the task that decoded them: a call's task
    for those on the call's answer (all delivered before the call returns), the GET stream task
    for the others. A callback that raises is logged and the call goes on.

    The limits are those of ``McpHttpTransport`` (``max_event_bytes``,
    ``max_queued_notifications``, event ids and ``retry``); deadlines hold end to end with any
    ``httpx.AsyncClient``.
    """

    def _make_client(self) -> httpx.AsyncClient:
        return make_async_client(self._stack)

    def _resolve_auth(
        self,
        store: McpOAuthTokenStore | None,
        redirect_handler: AsyncMcpOAuthRedirectHandler | McpOAuthRedirectHandler | None,
    ) -> AsyncMcpHttpAuth | None:
        return resolve_async_auth(
            self.server, client=self._client, store=store, redirect_handler=redirect_handler
        )

    def _init_driver(self) -> None:
        self._listen_task: asyncio.Task[None] | None = None
        self._listen_stream: ListenStream | SseStream | None = None
        self._listen_answered: asyncio.Event | None = None
        self._retired_tasks: set[asyncio.Task[None]] = set()
        """The GET stream tasks stopped and still running (each leaves the set as it ends, so
        that a renewal keeps nothing of the old session's stream; ``close`` awaits the rest)."""
        self._wake = asyncio.Event()
        """What ``Await`` waits on, replaced (and set) by each ``Notify``."""
        self._detached: set[asyncio.Task[None]] = set()
        """The tasks of ``Detach``ed flows still running (awaited by ``close``)."""

    def reset_session_state(self) -> None:
        """Forget the session id and protocol version, and stop the old session's GET stream
        (the task is cancelled; ``close`` awaits its end, if it has not ended by then)."""
        self._retire_listener()
        self._sse = self._listen_stream = None
        self._protocol.reset_session()

    @property
    def listening(self) -> bool:
        """True while the GET stream for server-initiated messages is open."""
        task, stream = self._listen_task, self._listen_stream
        return task is not None and not task.done() and stream is not None and stream.connected

    async def request(
        self, *, method: str, params: Any | None, timeout_s: float | None
    ) -> JsonRpcResponse:
        """Send a request and return its response (see ``McpHttpTransport.request``). A
        request whose task is cancelled is cancelled at the server as one that times out is,
        before the ``CancelledError`` goes on."""
        timeout_s = check_timeout("timeout_s", timeout_s)
        operation = None if self._telemetry is None else self._traced(Message(method, params))
        if operation is None:
            return await self._request(method, params, timeout_s)
        with operation as message:  # the span is current while the request is out
            return operation.done(await self._request(method, message.params, timeout_s))

    async def _request(self, method: str, params: Any | None, timeout_s: float) -> JsonRpcResponse:
        started = time.monotonic()  # the wait for the GET's answer is the call's time too
        if self._listen_answered is not None:  # (no coroutine made for nothing to wait for)
            await self._after_get_answered(timeout_s)
        one_shot = self._one_shot(method, params)
        if one_shot is None:
            return await self._run(self._request_flow(method, params, timeout_s, started))
        # The one-shot path (see ``McpHttpTransport._request``): a cancellation while the POST
        # is out is raised again by the flow's ``Send``, which tells the flow as always.
        request_id, body = one_shot
        try:
            sent = await self._send_once(body, timeout_s, method, request_id)
        except (Exception, asyncio.CancelledError) as exc:
            sent = self._flow_exchange(exc)
        if isinstance(sent, JsonRpcResponse):
            return sent
        flow = self._request_flow(method, params, timeout_s, started, one_shot)
        return await self._run(flow, sent)

    async def negotiate(self, negotiation: Negotiation) -> Negotiated:
        """Find the era the server speaks and open it (see ``McpHttpTransport.negotiate``)."""
        operation = self._traced(Negotiating(negotiation.era))
        if operation is None:
            return await self._negotiate(negotiation)
        with operation:
            return operation.done(await self._negotiate(negotiation))

    async def _negotiate(self, negotiation: Negotiation) -> Negotiated:
        negotiated = await self._run(self._negotiate_flow(negotiation, time.monotonic()))
        if not negotiated.modern:
            await self.send_notification(method=INITIALIZED_NOTIFICATION, params=None)
        elif self._listen_enabled and self._listen_at_open:
            self._start_listener()  # subscriptions/listen
        return negotiated

    async def send_notification(
        self, *, method: str, params: Any | None, completion_timeout_s: float | None = None
    ) -> None:
        """Send a notification (see ``McpHttpTransport.send_notification``)."""
        operation = self._traced(Message(method, params))
        if operation is None:
            await self._send_notification(method, params, completion_timeout_s)
            return
        with operation as message:
            await self._send_notification(method, message.params, completion_timeout_s)
            operation.done(None)

    async def _send_notification(
        self, method: str, params: Any | None, completion_timeout_s: float | None
    ) -> None:
        await self._after_get_answered()
        started = time.monotonic()
        body = self._one_shot_notification(method, params)
        if body is None:
            flow = self._notification_flow(method, params, completion_timeout_s, started)
            opens = await self._run(flow)
        else:  # the one-shot path, as a request's (``_request``)
            timeout_s = self._notification_timeout(completion_timeout_s)
            try:
                sent = await self._send_once(body, timeout_s, method, None)
            except (Exception, asyncio.CancelledError) as exc:
                sent = self._flow_exchange(exc)
            if isinstance(sent, JsonRpcResponse):  # accepted, nothing to read
                opens = self._opens_listener(method)
            else:
                flow = self._notification_flow(method, params, completion_timeout_s, started, body)
                opens = await self._run(flow, sent)
        if opens:
            self._start_listener()

    async def relay(
        self,
        body: bytes,
        *,
        method: str,
        expected_id: JsonRpcId | None,
        timeout_s: float,
        headers: dict[str, str] | None = None,
        checkpoint: Callable[[str], Awaitable[object] | object] | None = None,
        resume_from: str | None = None,
    ) -> JsonRpcResponse | None:
        """Carry one JSON-RPC message the host encoded itself (``body``: a request with the id
        ``expected_id``, or a notification or answer with None) and return the response (None
        for the others), for a host that runs its own MCP session (``mcpstream.sdk``).

        ``headers``: per-message headers (the host's stamps). ``checkpoint``: called (and
        awaited) with each event id the request's stream reaches, its resumption tokens.
        ``resume_from``: an event id of a request sent earlier, to go on with over GET and
        ``Last-Event-ID`` instead of POSTing ``body``. Raises the transport's errors, as
        ``request`` does."""
        timeout_s = check_timeout("timeout_s", timeout_s)
        started = time.monotonic()
        await self._after_get_answered(timeout_s)
        flow = self._relay_flow(
            body,
            method=method,
            expected_id=expected_id,
            timeout_s=timeout_s,
            headers=headers,
            checkpoint=checkpoint,
            resume_from=resume_from,
            now=started,
        )
        return await self._run(flow)

    def start_listening(self) -> None:
        """Open the GET stream for server-initiated messages now (once the host ended its
        handshake), unless the transport was made with ``listen=False`` or speaks the stateless
        era."""
        if self._listen_enabled and not self.modern and not self.http_sse:
            self._start_listener()

    async def listen_for_resources(
        self, resources: Sequence[str], *, timeout_s: float
    ) -> dict[str, Any] | None:
        """Subscribe the stateless era's listen stream to the updates of ``resources`` and
        wait for the acknowledgement (see ``McpHttpTransport.listen_for_resources``)."""
        timeout_s = check_timeout("timeout_s", timeout_s)
        if not self._resubscribe(resources):
            return None
        # Called from a callback of the stream itself, the task is left to end by itself
        # (``close`` awaits it); any other is cancelled, and awaited here.
        current, old = asyncio.current_task(), self._listen_task
        self._retire_listener(current)
        if old is not None and old is not current:
            self._retired_tasks.discard(old)
            await asyncio.wait({old})  # its end, without raising its cancellation here
        self._start_listener()
        answered, stream = self._listen_answered, self._listen_stream
        if answered is None or not isinstance(stream, ListenStream):
            return None  # (an HTTP+SSE stream is never reopened: _resubscribe said no)
        await wait_set(answered, timeout_s)
        return stream.acknowledged

    async def _after_get_answered(self, wait_s: float = ListenStream.OPEN_WAIT_S) -> None:
        """Wait until the GET that opens the stream has its answer or is over
        (``ListenStream.OPEN_WAIT_S`` at most; see ``McpHttpTransport._after_get_answered``)."""
        answered = self._listen_answered
        if answered is not None:
            await wait_set(answered, min(ListenStream.OPEN_WAIT_S, wait_s))
            self._listen_answered = None  # waited once: a GET still unanswered is left alone

    async def close(self) -> None:
        """End the session (DELETE, errors ignored), the GET stream task and, if the transport
        made it, the HTTP client. Idempotent; later calls raise ``McpHttpTransportError``."""
        if self.closed:
            return
        self._protocol.closed = True
        self._end_telemetry()
        current = asyncio.current_task()
        self._retire_listener(current)
        self._sse = self._listen_stream = None  # nothing of the session's stream is kept
        tasks, self._retired_tasks = self._retired_tasks, set()
        for task in list(tasks):  # (each leaves ``tasks`` as it ends)
            # A handler running in the GET stream task may close the transport: the task ends
            # by itself once the handler returns.
            if task is not current:
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        await self._end_detached()
        await self._run(self._delete_flow())
        if self._owns_client:
            await self._client.aclose()

    async def __aenter__(self) -> AsyncMcpHttpTransport:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    # -- the GET stream ------------------------------------------------------------------------

    def _start_listener(self) -> None:
        """Start the GET stream task, which sets ``_listen_answered`` once its first GET has an
        answer (or failed, or the task ended)."""
        stream = self._listen_stream
        if isinstance(stream, ListenStream) and stream.outlived:
            self._retire_listener()  # the lost session's: the new one gets its own
        if self.closed or (self._listen_task is not None and not self._listen_task.done()):
            return
        answered = self._listen_answered = asyncio.Event()
        stream = self._listen_stream = ListenStream(self._protocol, self._listen_resources)
        flow = listen_flow(stream, call_timeout_s=self.server.call_timeout_s)
        self._listen_task = asyncio.get_running_loop().create_task(
            self._listen(flow, Exchange(self._client, answered)),
            name=f"mcpstream-get-{self.server.id}",
        )

    async def _listen(self, flow: s.Flow[None], exchange: Exchange) -> None:
        try:
            await self._run(flow, exchange)
        finally:
            assert exchange.answered is not None
            exchange.answered.set()

    def _retire_listener(self, current: asyncio.Task[Any] | None = None) -> None:
        """Stop the GET stream task (cancelled, unless it is ``current``, the one running this),
        to be awaited by ``close``."""
        task, self._listen_task = self._listen_task, None
        if self._listen_stream is not None:
            self._listen_stream.stopping = True
            if self._end_sse(self._listen_stream):  # its task is cancelled: wake its calls
                self._notify()
        if task is not None:
            if task is not current:
                task.cancel()
            self._retired_tasks.add(task)
            task.add_done_callback(self._retired_tasks.discard)

    # -- running flows -------------------------------------------------------------------------

    async def _run(self, flow: s.Flow[T], exchange: Exchange | None = None) -> T:
        """Run ``flow`` to its end, performing each step it yields.

        When the task is cancelled during a step, the flow is told (``Abandoned``) and its
        last steps are run (a call cancels its request at the server, within
        ``CANCEL_TIMEOUT_S``); the ``CancelledError`` is raised then. A second cancellation
        meanwhile ends the flow at once."""
        ex = exchange or Exchange(self._client)
        cancelled: asyncio.CancelledError | None = None
        finished = False
        with Stepper(flow) as stepper:
            try:
                while stepper.running:
                    outcome: s.Outcome | Exception | Abandoned
                    try:
                        action = getattr(self, "_do_" + s.action(stepper.step))
                        outcome = await action(stepper.step, ex)
                    except Exception as exc:  # a hook, a handler or a nested flow: for the flow
                        outcome = exc
                    except asyncio.CancelledError as exc:
                        if cancelled is not None:
                            raise
                        cancelled, outcome = exc, Abandoned()
                    try:
                        stepper.answer(outcome, time.monotonic())  # the clock after the action
                    except Abandoned:
                        break  # the flow gave up: the cancellation is raised below
                if cancelled is not None:
                    raise cancelled
                result: T = stepper.result
                finished = True
                return result
            finally:
                if finished and ex.broken:
                    # The flow is done with a body whose last read its wait cut short (the
                    # quiet window after the response): the answer goes back now and the body
                    # is closed in the background, as a host's stream may take its time to
                    # close (httpx2 2.17's ``aiter_raw`` awaits it at the end of the body).
                    self._close_later(ex.take())
                else:
                    await ex.release()

    def _close_later(self, response: httpx.Response | None) -> None:
        """Close ``response`` in a task of its own (awaited by ``close``, as detached flows
        are)."""
        if response is None:
            return
        task = asyncio.get_running_loop().create_task(
            self._close_quietly(response), name=f"mcpstream-close-{self.server.id}"
        )
        self._detached.add(task)
        task.add_done_callback(self._detached.discard)

    async def _close_quietly(self, response: httpx.Response) -> None:
        try:
            await response.aclose()
        except Exception as exc:  # no call waits for it any more
            wire.detached_failed(self.server.id, exc)

    async def _do_send(self, step: s.Send, ex: Exchange) -> s.Head | s.Failed:
        preset = ex.preset
        if preset is not None:  # the one-shot path sent this request already
            ex.preset = None
            if isinstance(preset, BaseException):
                raise preset
            return preset
        await ex.release()
        return await self._send_request(step.request, ex)

    async def _send_once(
        self, body: bytes, timeout_s: float, method: str, request_id: Any
    ) -> JsonRpcResponse | Exchange:
        """Send the POST of a one-shot request (see ``McpHttpTransport._send_once``)."""
        lane = self._one_shot_lane(body, timeout_s)
        if lane is None:
            return await self._send_to_flow(self._one_shot_request(body, timeout_s))
        # The transport cuts each of its waits to the deadline (one timer for the call, the
        # response's own), where other sends run under ``asyncio.timeout`` (a second one).
        now = time.monotonic()
        deadline = now + timeout_s
        try:
            with io_deadline(deadline):
                answer = await lane.aexchange(
                    body, timeout_s, self._protocol.connect_within(timeout_s)
                )
        except wire.http_errors() as exc:
            return self._flow_exchange(wire.failure(exc))
        if answer is None:
            return await self._send_to_flow(self._one_shot_request(body, timeout_s))
        if isinstance(answer, tuple):
            status, fields, whole = answer
            # (positional: a class called with keywords costs twice)
            call = CallExchange(self._protocol, method, request_id, timeout_s, now)
            response = complete_answer(
                call, status_code=status, headers=fields, now=time.monotonic(), body=whole
            )
            if response is not None:
                return response  # (its connection is back in the pool)
        ex = Exchange(self._client)
        try:
            ex.preset = ex.hold(answer, deadline)
        except BaseException:
            if not isinstance(answer, tuple):
                await answer.aclose()
            raise
        return ex

    def _flow_exchange(self, preset: s.Head | s.Failed | BaseException) -> Exchange:
        """The ``Exchange`` for the flow of a one-shot request whose POST went out here,
        holding the outcome of the flow's first ``Send`` (``preset``)."""
        ex = Exchange(self._client)
        ex.preset = preset
        return ex

    async def _send_to_flow(self, request: s.HttpRequest) -> Exchange:
        """``_send_request`` of a one-shot request's POST: the ``Exchange`` for its flow,
        holding the outcome (``preset``) and the response open."""
        ex = Exchange(self._client)
        try:
            ex.preset = await self._send_request(request, ex)
        except BaseException:
            await ex.release()
            raise
        return ex

    async def _send_request(self, request: s.HttpRequest, ex: Exchange) -> s.Head | s.Failed:
        """Send ``request``; its answer is the one ``ex`` has open (a small one taken whole:
        ``Exchange.taken``)."""
        timeout_s = request.timeout_s
        request = with_dpop_proof(self._auth, request)
        answer: wire.Answer
        try:
            async with asyncio.timeout(timeout_s):
                if request.quiet_body:  # a stream's answer is open-ended: sent as is
                    answer = await wire.asend(ex.client, request)
                else:
                    answer = await wire.asend_whole(ex.client, request)
        except TimeoutError as exc:  # before http_errors(), which has OSError, its base
            return s.Failed(time.monotonic(), s.FailureKind.TIMEOUT, exc)
        except wire.http_errors() as exc:
            return wire.failure(exc)
        if request.quiet_body and not isinstance(answer, tuple):
            wire.lift_read_timeout(answer)  # before the body's reads start
        head = ex.hold(answer, time.monotonic() + timeout_s)
        learn_dpop_nonce(self._auth, request, head.headers)
        return head

    async def _do_read_body(self, step: s.ReadBody, ex: Exchange) -> s.Outcome:
        limit = None if step.limit is None else step.limit + 1
        if ex.taken is not None:
            data, ex.taken = ex.taken, b""
            return s.Bytes(time.monotonic(), data if limit is None else data[:limit])
        assert ex.chunks is not None
        read = collect(ex.chunks, limit) if ex.whole is None else ex.whole(limit)
        outcome = await within(step.wait_s, read)
        return s.Bytes(time.monotonic(), outcome) if isinstance(outcome, bytes) else outcome

    async def _do_read_chunk(self, step: s.ReadChunk, ex: Exchange) -> s.Outcome:
        if ex.taken is not None:  # a whole answer: one chunk, then its end
            data, ex.taken = ex.taken, b""
            return s.Bytes(time.monotonic(), data) if data else s.BodyEnd(time.monotonic())
        assert ex.response is not None and ex.chunks is not None
        if step.wait_s is None:
            wire.lift_read_timeout(ex.response)
        if ex.broken:
            # The body can be read no more: its wait ends it (the quiet window, the deadline).
            await asyncio.sleep(step.wait_s or 0.0)
            return s.Idle(time.monotonic())
        outcome = await within(step.wait_s, anext(ex.chunks))
        ex.broken = isinstance(outcome, s.Idle)
        return s.Bytes(time.monotonic(), outcome) if isinstance(outcome, bytes) else outcome

    async def _do_read_snippet(self, step: s.ReadSnippet, ex: Exchange) -> s.Bytes:
        data = ex.taken
        if data is None:
            assert ex.chunks is not None and ex.response is not None
            # (a body that arrived whole, as a DELETE's or a 202's does, is taken without a wait)
            data = wire.arrived_body(ex.response)
        if data is None:
            assert ex.chunks is not None
            data = await read_limited(ex.chunks, step.limit, ex.deadline)
        else:
            data = data[: step.limit]
        await ex.release()
        return s.Bytes(time.monotonic(), data)

    async def _do_authorize(self, step: s.Authorize, ex: Exchange) -> s.Authorized:
        assert self._auth is not None
        scope = step.scope or self._auth.request_auth(
            method=step.method, replay_allowed=step.replay_allowed
        )
        header = await scope.authorization_header()  # a refresh, maybe: the clock after it
        return s.Authorized(time.monotonic(), header, scope)

    async def _do_renew(self, step: s.Renew, ex: Exchange) -> s.Judged:
        retry = await step.scope.should_retry(step.status_code, step.headers, step.body)
        return s.Judged(time.monotonic(), bool(retry))

    async def _do_handle(self, step: s.Handle, ex: Exchange) -> s.Handled | s.Idle:
        assert self._handler is not None
        # Cut off at the deadline of the call waiting on it (``step.wait_s``).
        deadline = asyncio.timeout(None if step.wait_s is None else max(step.wait_s, 0.0))
        try:
            async with deadline:
                result = self._handler.handle_request(**self._handler_arguments(step.request))
                if inspect.isawaitable(result):
                    result = await result
        except Exception as exc:
            if isinstance(exc, TimeoutError) and deadline.expired():
                return s.Idle(time.monotonic())
            return s.Handled(time.monotonic(), error=exc)  # a TimeoutError of its own too
        return s.Handled(time.monotonic(), result)

    async def _do_run(self, step: s.Run, ex: Exchange) -> s.Done:
        value = await self._run(step.flow)
        return s.Done(time.monotonic(), value)

    async def _do_detach(self, step: s.Detach, ex: Exchange) -> s.Done:
        task = asyncio.get_running_loop().create_task(
            self._run_detached(step.flow), name=f"mcpstream-detached-{self.server.id}"
        )
        self._detached.add(task)
        task.add_done_callback(self._detached.discard)
        return s.Done(time.monotonic())

    async def _run_detached(self, flow: s.Flow[None]) -> None:
        try:
            await self._run(flow)
        except Exception as exc:  # the flow logs its own failures; this is a bug's last net
            wire.detached_failed(self.server.id, exc)

    async def _end_detached(self) -> None:
        """Await the detached flows (each bounds its own time: ``CANCEL_TIMEOUT_S``); one
        still running past that bound is cancelled."""
        tasks = set(self._detached)
        if not tasks:
            return
        _, late = await asyncio.wait(tasks, timeout=CLOSE_WAIT_S)
        for task in late:
            task.cancel()
        if late:
            await asyncio.wait(late)

    async def _do_deliver(self, step: s.Deliver, ex: Exchange) -> s.Done:
        assert self._on_notification is not None
        for notification in step.notifications:
            await self._host_callback(self._on_notification, notification)
        return s.Done(time.monotonic())

    async def _do_checkpoint(self, step: s.Checkpoint, ex: Exchange) -> s.Done:
        await self._host_callback(step.to, step.event_id)
        return s.Done(time.monotonic())

    async def _host_callback(self, callback: Callable[[Any], object], argument: Any) -> None:
        """Call the host's ``callback`` and await what it returns when that is awaitable; what
        it raises is logged (``wire.callback_failed``) and the stream goes on."""
        try:
            outcome = callback(argument)
            if inspect.isawaitable(outcome):
                await outcome
        except Exception:
            wire.callback_failed(self.server.id)

    async def _do_sleep(self, step: s.Sleep, ex: Exchange) -> s.Done:
        await asyncio.sleep(step.delay_s)
        return s.Done(time.monotonic())

    async def _do_open_stream(self, step: s.OpenStream, ex: Exchange) -> s.Done:
        self._retire_listener()
        if self.closed:
            raise self._protocol.closed_error()
        self._sse = self._listen_stream = step.stream
        self._listen_task = asyncio.get_running_loop().create_task(
            self._listen(step.flow, Exchange(self._client, asyncio.Event())),
            name=f"mcpstream-sse-{self.server.id}",
        )
        return s.Done(time.monotonic())

    async def _do_await(self, step: s.Await, ex: Exchange) -> s.Done | s.Idle:
        deadline = time.monotonic() + step.wait_s
        # One event loop: nothing runs between the check and the wait, so no wake is lost.
        while not step.ready():
            wait_s = deadline - time.monotonic()
            if wait_s <= 0:
                return s.Idle(time.monotonic())
            await wait_set(self._wake, wait_s)
        return s.Done(time.monotonic())

    async def _do_notify(self, step: s.Notify, ex: Exchange) -> s.Done:
        self._notify()
        return s.Done(time.monotonic())

    def _notify(self) -> None:
        wake, self._wake = self._wake, asyncio.Event()
        wake.set()

    async def _do_stream_answered(self, step: s.StreamAnswered, ex: Exchange) -> s.Done:
        if ex.answered is not None:
            ex.answered.set()
        return s.Done(time.monotonic())
