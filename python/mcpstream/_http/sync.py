"""The sync driver: ``McpHttpTransport`` runs the core's flows over ``httpx.Client``.

Every request is sent, and its head and error bodies read, under the deadline of its
operation (``io_deadline``: with the clients the transport makes, every connect, TLS handshake,
write and read is bounded by it, so a trickle of header bytes cannot stretch a call; so are
the reads and writes of a host's client on its default transport, whose HTTP/1.1 connection
is given a ``DeadlineStream``). The first reads of an SSE body (from a stream so bounded)
happen on the calling thread, each bounded by the wait of its step, so
that a small answer starts no thread; the rest of a longer body is read on a reader thread
(``ChunkPump``), joined before the call returns, so that a wait for bytes has a timeout and a
call's deadline holds end to end. The GET stream runs on a thread of its own (``Listener``).
Every decision is the core's; this module only performs the steps (see
``mcpstream._http.core.steps``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import httpx

from .._eras import Negotiated, Negotiation
from .._httpbase.stack import stack_of
from .._telemetry import Message, Negotiating
from .._timeouts import check_timeout
from ..jsonrpc import JsonRpcNotification, JsonRpcResponse
from ..oauth import McpOAuthRedirectHandler
from ..oauth_store import McpOAuthTokenStore
from ..server_requests import McpServerRequestHandler
from . import wire
from .auth import McpHttpAuth, learn_dpop_nonce, resolve_auth, with_dpop_proof
from .core import (
    INITIALIZED_NOTIFICATION,
    CallExchange,
    ListenStream,
    Stepper,
    complete_answer,
)
from .core import steps as s
from .core.cancel import CLOSE_WAIT_S
from .deadline import DEADLINE
from .facade import HttpTransportBase
from .host_view import own_connection, speaks_http2
from .httpx_clients import deadline_bound, deadline_trace, io_deadline, make_client
from .sync_io import ChunkKind, ChunkPump, Exchange, Listener, read_limited

__all__ = ["McpHttpTransport", "NotificationCallback"]

T = TypeVar("T")

INLINE_READS = 4
"""How many reads of an SSE body the calling thread makes itself before a reader thread takes
over (a small answer is complete by then; a large one is read and decoded side by side)."""

NotificationCallback = Callable[[JsonRpcNotification], object]
"""``on_notification`` of ``McpHttpTransport``: called with each notification of the server
(what it returns is ignored)."""


class McpHttpTransport(
    HttpTransportBase[
        httpx.Client,
        McpHttpAuth,
        McpServerRequestHandler,
        McpOAuthRedirectHandler,
        NotificationCallback,
    ]
):
    """A sync MCP client transport over Streamable HTTP (MCP 2026-07-28, and the
    handshake era down to 2024-11-05, with the HTTP+SSE transport of 2024-11-05 as a fallback).

    ``server``: the resolved server (``transport="http"``, ``url``, static ``headers``,
    ``call_timeout_s``). ``workspace_root``: the host's workspace. ``client``: an
    ``httpx.Client`` or an ``httpx2.Client`` to use (the transport closes only a client it
    created itself; with a host's client, ``close`` waits for a GET stream the server has not
    answered yet, 10 s at most, while a transport that made its client ends that GET at once).
    ``http_stack``: the line of httpx of the client the transport makes when given none,
    ``"httpx"`` (the default) or ``"httpx2"`` (needs ``mcpstream[httpx2]``); a host's client
    brings its own (see ``http_stack``, the property).
    ``server_request_handler`` answers server-initiated requests such as ``elicitation/create``,
    with ``server_request_context`` passed to it (a context naming this server is made when none
    is given). Beyond the reference: ``max_event_bytes`` caps one SSE event (``None``: no cap),
    ``listen`` opens the server's GET stream after initialization, ``reconnect_policy`` bounds
    SSE resumption. For a server with ``oauth`` settings, ``oauth_store`` replaces the token
    store file (``McpOAuthMemoryTokenStore`` for tests and one-shot clients) and
    ``oauth_redirect_handler`` lets the transport log in by itself when it has no usable
    credentials (``LoopbackRedirectHandler`` for a person, ``HeadlessRedirectHandler`` for
    servers that approve without one); without it, only stored credentials (``mcpstream auth
    login``) and the client-credentials grant are used. Both are ignored without ``oauth``.

    ``connect_timeout_s`` bounds establishing each HTTP connection (TCP and TLS), so that an
    unreachable server fails fast while a call's ``timeout_s`` stays its end-to-end deadline;
    ``None`` (the default) bounds connecting by the call's deadline alone. Deadlines hold end to
    end (connect, TLS, the wait for the head, every read) with the client the transport makes,
    and with a host's ``httpx.Client`` or ``httpx2.Client`` on its default transport (the
    HTTP/1.1 connection carrying a call is given a stream bounded by the call's deadline:
    ``deadline_trace``); with a host's client on another transport, or on versions of
    httpcore/httpcore2 and h11 that hook was not written for, each read of the head is bounded
    by the time left, not the whole wait.

    Limits (the documentation's "Limits and errors" page has them all): ``max_event_bytes``
    (64 MiB by default) is the byte budget of one SSE event and of one JSON body, counted after
    decompression (a larger ``Content-Length`` is refused before reading;
    ``McpHttpTransportResponseTooLargeError``).
    ``max_queued_notifications`` (10,000; None: no bound) bounds the queue of
    ``drain_notifications``: when it is full the oldest notification is dropped, the drops are
    counted (``dropped_notifications``) and the first one is logged (a warning of the
    ``mcpstream.transport`` logger). An SSE event id that is not printable ASCII or is longer
    than 1024 characters is ignored for resumption (``Last-Event-ID``), and the server's
    ``retry`` is clamped by ``reconnect_policy`` (``min_delay_s`` .. ``max_retry_s``).

    ``on_notification`` receives the server's notifications instead of the queue of
    ``drain_notifications`` (which then stays empty, and no bound applies), as soon as each is
    decoded, in the order
    of its stream: notifications on the answer to a call are delivered on the thread that made
    the call, before that call returns; those on the GET stream on the GET stream's thread.
    Callbacks on different threads may therefore run at the same time. A callback that raises
    is logged and the call goes on; one that blocks holds up the stream it was called from.

    OpenTelemetry (the documentation's "OpenTelemetry" page): while the host has a tracer or
    meter provider configured, each ``request``, ``send_notification`` and ``negotiate`` is a
    span and a duration measurement by the MCP semantic conventions, and carries its span's
    trace context in ``params._meta`` (keys already there are kept); ``telemetry=False`` records
    and sends none (``Client`` makes its transport so, and records its messages itself).

    Safe to share between threads: calls may run concurrently.
    """

    def _make_client(self) -> httpx.Client:
        return make_client(self._stack)

    def _resolve_auth(
        self, store: McpOAuthTokenStore | None, redirect_handler: McpOAuthRedirectHandler | None
    ) -> McpHttpAuth | None:
        return resolve_auth(
            self.server, client=self._client, store=store, redirect_handler=redirect_handler
        )

    def _init_driver(self) -> None:
        self._listener: Listener | None = None
        self._get_answered: threading.Event | None = None
        """The event of the GET the next call waits for (None: none to wait for)."""
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._signal = threading.Condition()
        """What ``Await`` waits on and ``Notify`` wakes (the HTTP+SSE stream's responses)."""
        self._detached: set[threading.Thread] = set()
        """The threads of ``Detach``ed flows still running (joined by ``close``)."""
        self._serial: threading.RLock | None = None
        """Over a host's HTTP/2 client (``host_view.speaks_http2``): held by every flow on the
        host's client, so that one thread at a time reads or writes its connection (httpcore's
        sync HTTP/2 connection reads and writes one TLS socket from the threads of concurrent
        requests, which OpenSSL does not allow). The GET stream has a connection of its own."""
        if not self._owns_client and speaks_http2(self._client, self._stack):
            self._serial = threading.RLock()

    def reset_session_state(self) -> None:
        """Forget the session id and protocol version (after the session expired), and stop
        the GET stream of the old session."""
        self._stop_listener()
        self._sse = None
        self._protocol.reset_session()

    @property
    def listening(self) -> bool:
        """True while the GET stream for server-initiated messages is open."""
        listener = self._listener
        return listener is not None and listener.stream.connected

    def request(
        self, *, method: str, params: Any | None, timeout_s: float | None
    ) -> JsonRpcResponse:
        """Send a request and return its response (a JSON-RPC error response is returned, not
        raised). Raises an ``McpHttpTransportError`` subclass when no response can be had.

        ``timeout_s`` covers all of it, the host's handlers of server requests included (the
        docs' "What a timeout covers"). A request that runs past it raises
        ``McpHttpTransportTimeoutError`` and is cancelled at the server: its stream is closed
        and, below 2026-07-28, ``notifications/cancelled`` is POSTed beside the error (2 s at
        most; ``close`` waits for it; the docs' "Cancellation"). ``timeout_s`` None (or
        ``math.inf``) is no limit; zero, a negative value or NaN raises ``ValueError``."""
        timeout_s = check_timeout("timeout_s", timeout_s)
        operation = None if self._telemetry is None else self._traced(Message(method, params))
        if operation is None:
            return self._request(method, params, timeout_s)
        with operation as message:  # the span is current while the request is out
            return operation.done(self._request(method, message.params, timeout_s))

    def _request(self, method: str, params: Any | None, timeout_s: float) -> JsonRpcResponse:
        serial = self._serial
        if serial is None:
            return self._call(method, params, timeout_s)
        with serial:  # (a host's HTTP/2 client: see ``_serial``)
            return self._call(method, params, timeout_s)

    def _call(self, method: str, params: Any | None, timeout_s: float) -> JsonRpcResponse:
        started = time.monotonic()  # the wait for the GET's answer is the call's time too
        if self._get_answered is not None:  # (no call made for nothing to wait for)
            self._after_get_answered(timeout_s)
        one_shot = self._one_shot(method, params)
        if one_shot is None:
            return self._run(self._request_flow(method, params, timeout_s, started))
        # The one-shot path: the flow's first step (the POST) done here; a plain answer that
        # arrived whole is the call's response, anything else goes on in the flow.
        request_id, body = one_shot
        try:
            sent = self._send_once(body, timeout_s, method, request_id)
        except Exception as exc:  # the flow's to handle, as an action's exception
            sent = self._flow_exchange(exc)
        if isinstance(sent, JsonRpcResponse):
            return sent
        return self._run(self._request_flow(method, params, timeout_s, started, one_shot), sent)

    def negotiate(self, negotiation: Negotiation) -> Negotiated:
        """Find the era the server speaks and open it: ``server/discover`` for the stateless
        era (2026-07-28), else the ``initialize`` handshake (and ``notifications/initialized``,
        which opens the GET stream). ``negotiation.era`` may pin an era or a version."""
        operation = self._traced(Negotiating(negotiation.era))
        if operation is None:
            return self._negotiate(negotiation)
        with operation:
            return operation.done(self._negotiate(negotiation))

    def _negotiate(self, negotiation: Negotiation) -> Negotiated:
        negotiated = self._run(self._negotiate_flow(negotiation, time.monotonic()))
        if not negotiated.modern:
            self.send_notification(method=INITIALIZED_NOTIFICATION, params=None)
        elif self._listen_enabled and self._listen_at_open:
            self._start_listener()  # subscriptions/listen
        return negotiated

    def send_notification(
        self, *, method: str, params: Any | None, completion_timeout_s: float | None = None
    ) -> None:
        """Send a notification; returns once the server accepted it. After
        ``notifications/initialized`` the GET stream for server messages is opened on a thread
        of its own; the next call waits for its answer (see ``_after_get_answered``)."""
        operation = self._traced(Message(method, params))
        if operation is None:
            self._send_notification(method, params, completion_timeout_s)
            return
        with operation as message:
            self._send_notification(method, message.params, completion_timeout_s)
            operation.done(None)

    def _send_notification(
        self, method: str, params: Any | None, completion_timeout_s: float | None
    ) -> None:
        self._after_get_answered()
        started = time.monotonic()
        body = self._one_shot_notification(method, params)
        if body is None:
            flow = self._notification_flow(method, params, completion_timeout_s, started)
            opens = self._run(flow)
        else:  # the one-shot path, as a request's (``_call``)
            timeout_s = self._notification_timeout(completion_timeout_s)
            try:
                sent = self._send_once(body, timeout_s, method, None)
            except Exception as exc:  # the flow's to handle, as an action's exception
                sent = self._flow_exchange(exc)
            if isinstance(sent, JsonRpcResponse):  # accepted, nothing to read
                opens = self._opens_listener(method)
            else:
                flow = self._notification_flow(method, params, completion_timeout_s, started, body)
                opens = self._run(flow, sent)
        if opens:
            self._start_listener()

    def close(self) -> None:
        """End the session (DELETE, errors ignored), the GET stream and, if the transport made
        it, the HTTP client. Idempotent; later calls raise ``McpHttpTransportError``."""
        with self._lock:
            if self.closed:
                return
            self._protocol.closed = True
            self._closing.set()
        self._end_telemetry()
        self._stop_listener()
        self._join_detached()
        self._run(self._delete_flow())
        if self._owns_client:
            self._client.close()

    def __enter__(self) -> McpHttpTransport:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- the GET stream ------------------------------------------------------------------------

    def _start_listener(self) -> None:
        stream = self._listener.stream if self._listener is not None else None
        if isinstance(stream, ListenStream) and stream.outlived:
            self._stop_listener(wait=False)  # the lost session's: the new one gets its own
        with self._lock:
            if self.closed or (self._listener is not None and self._listener.alive):
                return
            client = self._stream_client()
            if client is None:  # (``own_connection`` said why, once)
                return
            listener = self._listener = Listener(
                self._run,
                ListenStream(self._protocol, self._listen_resources),
                **client,
                call_timeout_s=self.server.call_timeout_s,
            )
            self._get_answered = listener.answered

    def _stream_client(self) -> dict[str, Any] | None:
        """The ``client`` a stream's ``Listener`` sends through, whether it is the stream's own
        (``owns_client``) and how to close it (``close``): a client of its own when the
        transport made its client; a view of a host's HTTP/2 client over a connection of its
        own (``host_view.own_connection``: the stream's thread never reads a socket the calls'
        threads write to); else the host's client itself. None for a host's HTTP/2 client
        that cannot have a connection of its own (a hook on its way, a pool of another shape):
        no GET stream then, whose thread would read the socket the calls write to (server
        messages still arrive in the answers to the calls)."""
        if self._owns_client:
            # (not the process's pool: ``stop`` shuts down the connection the stream's
            # client opened, which a pooled connection taken again would not be)
            return {"client": make_client(self._stack, shared=False), "owns_client": True}
        own = own_connection(self._client, self._stack)
        if own is None:
            if self._serial is not None:
                # An HTTP/2 client whose connection cannot be copied, or with a hook on its
                # way: the stream would read the socket the calls write to (see ``_serial``).
                return None
            return {"client": self._client, "owns_client": False}
        view, transport = own
        return {"client": view, "owns_client": True, "close": transport.close}

    def listen_for_resources(
        self, resources: Sequence[str], *, timeout_s: float
    ) -> dict[str, Any] | None:
        """Subscribe the stateless era's ``subscriptions/listen`` stream to the updates of
        ``resources`` (the list changes too): the stream is reopened with them in its filter,
        and this waits for the server's acknowledgement (``timeout_s`` at most). Returns the
        filter acknowledged, or None (none in time, the stream refused, ``listen=False``, or
        the handshake era, whose ``resources/subscribe`` is a request). Updates sent while the
        stream is reopened are lost: there is no replay."""
        timeout_s = check_timeout("timeout_s", timeout_s)
        if not self._resubscribe(resources):
            return None
        # Not joined: the old stream's thread may be in a callback that waits for the client
        # (which holds its session lock while this runs); it ends once the callback returns.
        self._stop_listener(wait=False)
        self._start_listener()
        listener = self._listener
        if listener is None or not isinstance(listener.stream, ListenStream):
            return None  # (an HTTP+SSE stream is never reopened: _resubscribe said no)
        listener.answered.wait(timeout_s)
        return listener.stream.acknowledged

    def _after_get_answered(self, wait_s: float = ListenStream.OPEN_WAIT_S) -> None:
        """Wait until the GET that opens the stream has its answer (or failed;
        ``ListenStream.OPEN_WAIT_S`` and ``wait_s`` at most), so that the server has seen it
        before the call about to be sent (see ``OPEN_WAIT_S``). ``initialized`` returns as soon
        as the server accepted it; the GET is under way meanwhile, while the host prepares its
        first call."""
        answered = self._get_answered
        if answered is not None:
            answered.wait(min(ListenStream.OPEN_WAIT_S, wait_s))
            self._get_answered = None  # waited once: a GET still unanswered is left alone

    def _stop_listener(self, *, wait: bool = True) -> None:
        with self._lock:
            listener, self._listener = self._listener, None
        if listener is not None:
            listener.stop(wait=wait)
            if self._end_sse(listener.stream):
                self._do_notify(s.Notify(), None)

    # -- running flows -------------------------------------------------------------------------

    def _run(self, flow: s.Flow[T], exchange: Exchange | None = None) -> T:
        """Run ``flow`` to its end, performing each step it yields (one at a time on a host's
        HTTP/2 client, but for the GET stream's, on its own connection: ``_serial``)."""
        serial = self._serial
        if serial is None or (exchange is not None and exchange.client is not self._client):
            return self._steps(flow, exchange)
        with serial:
            return self._steps(flow, exchange)

    def _steps(self, flow: s.Flow[T], exchange: Exchange | None) -> T:
        with Stepper(flow) as stepper, exchange or Exchange(self._client, self._closing) as ex:
            while stepper.running:
                try:
                    outcome = getattr(self, "_do_" + s.action(stepper.step))(stepper.step, ex)
                except Exception as exc:  # a hook, a handler or a nested flow: the flow's call
                    outcome = exc
                stepper.answer(outcome, time.monotonic())  # the clock after the action
            result: T = stepper.result
            return result

    def _do_send(self, step: s.Send, ex: Exchange) -> s.Head | s.Failed:
        preset = ex.preset
        if preset is not None:  # the one-shot path sent this request already
            ex.preset = None
            if isinstance(preset, Exception):
                raise preset
            return preset
        ex.release()
        return self._send_request(step.request, ex)

    def _send_once(
        self, body: bytes, timeout_s: float, method: str, request_id: Any
    ) -> JsonRpcResponse | Exchange:
        """Send the POST of a one-shot request of ``body`` (on its ``wire.Lane``, else
        ``_send_request``): the response to ``request_id`` when a plain answer arrived whole
        with the head (``complete_answer``), else the ``Exchange`` for the flow, holding the
        outcome of its first ``Send`` (``preset``) and the answer. (The ``Exchange`` is made
        only then: a plain answer needs none.)"""
        lane = self._one_shot_lane(body, timeout_s)
        if lane is None:
            return self._send_to_flow(self._one_shot_request(body, timeout_s))
        sent_at = time.monotonic()
        deadline = sent_at + timeout_s
        token = DEADLINE.set(deadline)  # (``io_deadline``, without its object)
        try:
            sent = lane.send(body, timeout_s, self._protocol.connect_within(timeout_s))
            if sent is not None:
                try:  # made while the server works on the request (a class called with
                    # keywords costs twice: positional here)
                    call = CallExchange(self._protocol, method, request_id, timeout_s, sent_at)
                except BaseException:
                    sent.abandon()
                    raise
                answer = lane.receive(sent)
        except wire.http_errors() as exc:
            return self._flow_exchange(wire.failure(exc))
        finally:
            DEADLINE.reset(token)
        if sent is None:
            return self._send_to_flow(self._one_shot_request(body, timeout_s))
        if isinstance(answer, tuple):
            status, fields, whole = answer
            response = complete_answer(
                call, status_code=status, headers=fields, now=time.monotonic(), body=whole
            )
            if response is not None:
                return response  # (its connection is back in the pool)
        ex = Exchange(self._client, self._closing)
        try:
            ex.preset = ex.hold(answer, deadline)
        except BaseException:
            ex.release()
            if not isinstance(answer, tuple):
                answer.close()
            raise
        return ex

    def _flow_exchange(self, preset: s.Head | s.Failed | Exception) -> Exchange:
        """The ``Exchange`` for the flow of a one-shot request whose POST went out here,
        holding the outcome of the flow's first ``Send`` (``preset``)."""
        ex = Exchange(self._client, self._closing)
        ex.preset = preset
        return ex

    def _send_to_flow(self, request: s.HttpRequest) -> Exchange:
        """``_send_request`` of a one-shot request's POST: the ``Exchange`` for its flow,
        holding the outcome (``preset``) and the response open."""
        ex = Exchange(self._client, self._closing)
        try:
            ex.preset = self._send_request(request, ex)
        except BaseException:
            ex.release()
            raise
        return ex

    def _send_request(self, request: s.HttpRequest, ex: Exchange) -> s.Head | s.Failed:
        """Send ``request``; its answer is the one ``ex`` has open (a small one taken whole:
        ``Exchange.taken``)."""
        listener = ex.listener
        trace: Callable[[str, dict[str, Any]], None] | None
        if listener is not None and listener.owns_client:
            trace = listener.trace  # the stream's own connection, for ``stop`` to cut
        elif self._owns_client:
            trace = None
        else:  # a host's client: its connection obeys the deadline too, where it can
            trace = deadline_trace(self._stack)
        extensions = {"trace": trace} if trace is not None else None
        request = with_dpop_proof(self._auth, request)
        deadline = time.monotonic() + request.timeout_s
        # A stream's answer is open-ended (and the listener tracks its response): sent as is.
        whole = not request.quiet_body and listener is None
        answer: wire.Answer
        try:
            with io_deadline(deadline):
                if whole:
                    answer = wire.send_whole(
                        ex.client, request, extensions, host=not self._owns_client
                    )
                else:
                    answer = wire.send(ex.client, request, extensions, host=not self._owns_client)
        except wire.http_errors() as exc:
            return wire.failure(exc)
        if request.quiet_body and not isinstance(answer, tuple):
            wire.lift_read_timeout(answer)  # before the body's reads start
        head = ex.hold(answer, deadline)
        learn_dpop_nonce(self._auth, request, head.headers)
        return head

    def _do_read_body(self, step: s.ReadBody, ex: Exchange) -> s.Bytes | s.Idle | s.Failed:
        limit = None if step.limit is None else step.limit + 1
        if ex.taken is not None:
            data, ex.taken = ex.taken, b""
            return s.Bytes(time.monotonic(), data if limit is None else data[:limit])
        assert ex.chunks is not None
        deadline = time.monotonic() + step.wait_s
        if ex.whole is not None and ex.pump is None:
            try:
                with io_deadline(deadline):
                    return s.Bytes(time.monotonic(), ex.whole(limit))
            except wire.http_errors() as exc:
                return wire.failure(exc)
        body = wire.Snippet(limit)
        try:
            with io_deadline(deadline):
                for chunk in ex.chunks:
                    if time.monotonic() >= deadline:
                        return s.Idle(time.monotonic())
                    if body.full_with(chunk):
                        break
        except wire.http_errors() as exc:
            return wire.failure(exc)
        return s.Bytes(time.monotonic(), body.data)

    def _do_read_chunk(self, step: s.ReadChunk, ex: Exchange) -> s.Outcome:
        if ex.taken is not None:  # a whole answer: one chunk, then its end
            data, ex.taken = ex.taken, b""
            return s.Bytes(time.monotonic(), data) if data else s.BodyEnd(time.monotonic())
        assert ex.response is not None and ex.chunks is not None
        if step.wait_s is None and ex.pump is not None:
            # Bounded reads started a reader (the HTTP+SSE stream's wait for its endpoint):
            # it reads on, without a bound (``stop`` wakes it up).
            wire.lift_read_timeout(ex.response)
            return self._pumped(ex.pump.get(None))
        if step.wait_s is None:  # no bound: read on this thread (``stop`` wakes it up)
            wire.lift_read_timeout(ex.response)
            try:
                data = next(ex.chunks)
            except StopIteration:
                return s.BodyEnd(time.monotonic())
            except wire.http_errors() as exc:
                return wire.failure(exc)
            return s.Bytes(time.monotonic(), data)
        if ex.broken:
            # A read ran out of its wait, which ends the body: the flow's clock ends the stream.
            ex.wake.wait(step.wait_s)
            return s.Idle(time.monotonic())
        inline = ex.pump is None and ex.inline_reads < INLINE_READS
        if inline and deadline_bound(ex.response):
            ex.inline_reads += 1
            return self._read_inline(ex, step.wait_s)
        if ex.pump is None:
            ex.pump = ChunkPump(ex.response, ex.chunks, name=f"mcpstream-sse-{self.server.id}")
        return self._pumped(ex.pump.get(step.wait_s))

    @staticmethod
    def _pumped(item: tuple[ChunkKind, bytes | BaseException | None] | None) -> s.Outcome:
        """The outcome of what the reader thread handed over (None: nothing in time)."""
        if item is None:
            return s.Idle(time.monotonic())
        kind, value = item
        if kind is ChunkKind.DATA:
            assert isinstance(value, bytes)
            return s.Bytes(time.monotonic(), value)
        if kind is ChunkKind.END:
            return s.BodyEnd(time.monotonic())
        assert isinstance(value, BaseException)
        return wire.failure(value)

    @staticmethod
    def _read_inline(ex: Exchange, wait_s: float) -> s.Outcome:
        """The next bytes of the body, read on this thread within ``wait_s``."""
        assert ex.chunks is not None
        try:
            with io_deadline(time.monotonic() + wait_s):
                data = next(ex.chunks)
        except StopIteration:
            return s.BodyEnd(time.monotonic())
        except stack_of(ex.client).httpx.ReadTimeout:
            ex.broken = True
            return s.Idle(time.monotonic())
        except wire.http_errors() as exc:
            return wire.failure(exc)
        return s.Bytes(time.monotonic(), data)  # the clock after the read, never before

    def _do_read_snippet(self, step: s.ReadSnippet, ex: Exchange) -> s.Bytes:
        if ex.taken is not None:
            data = ex.taken
            ex.release()
            return s.Bytes(time.monotonic(), data)
        assert ex.chunks is not None
        with io_deadline(ex.deadline):
            data = read_limited(ex.chunks, step.limit)
        ex.release()
        return s.Bytes(time.monotonic(), data)

    def _do_authorize(self, step: s.Authorize, ex: Exchange) -> s.Authorized:
        assert self._auth is not None
        scope = step.scope or self._auth.request_auth(
            method=step.method, replay_allowed=step.replay_allowed
        )
        return s.Authorized(time.monotonic(), scope.authorization_header(), scope)

    def _do_renew(self, step: s.Renew, ex: Exchange) -> s.Judged:
        retry = step.scope.should_retry(step.status_code, step.headers, step.body)
        return s.Judged(time.monotonic(), bool(retry))

    def _do_handle(self, step: s.Handle, ex: Exchange) -> s.Handled:
        # On the caller's thread, which nothing can interrupt: ``step.wait_s`` is not enforced
        # here (the flow raises the call's timeout once the handler returns past it).
        assert self._handler is not None
        try:
            result = self._handler.handle_request(**self._handler_arguments(step.request))
        except Exception as exc:
            return s.Handled(time.monotonic(), error=exc)
        return s.Handled(time.monotonic(), result)

    def _do_detach(self, step: s.Detach, ex: Exchange) -> s.Done:
        thread = threading.Thread(
            target=self._run_detached,
            args=(step.flow,),
            name=f"mcpstream-detached-{self.server.id}",
            daemon=True,
        )
        with self._lock:
            self._detached.add(thread)
        thread.start()
        return s.Done(time.monotonic())

    def _run_detached(self, flow: s.Flow[None]) -> None:
        try:
            self._run(flow)
        except Exception as exc:  # the flow logs its own failures; this is a bug's last net
            wire.detached_failed(self.server.id, exc)
        finally:
            with self._lock:
                self._detached.discard(threading.current_thread())

    def _join_detached(self) -> None:
        """Wait for the detached flows (each bounds its own time: ``CANCEL_TIMEOUT_S``)."""
        with self._lock:
            threads = list(self._detached)
        for thread in threads:
            thread.join(CLOSE_WAIT_S)

    def _do_run(self, step: s.Run, ex: Exchange) -> s.Done:
        if self._serial is not None and ex.client is not self._client:
            # The GET stream's answer to a server request, over its own connection (on the
            # host's, it would wait for ``_serial`` held by a call that waits for this answer).
            return s.Done(
                time.monotonic(), self._run(step.flow, Exchange(ex.client, self._closing))
            )
        value = self._run(step.flow)
        return s.Done(time.monotonic(), value)

    def _do_deliver(self, step: s.Deliver, ex: Exchange) -> s.Done:
        assert self._on_notification is not None
        for notification in step.notifications:
            try:
                self._on_notification(notification)
            except Exception:
                wire.callback_failed(self.server.id)
        return s.Done(time.monotonic())

    def _do_sleep(self, step: s.Sleep, ex: Exchange) -> s.Done:
        ex.wake.wait(step.delay_s)
        return s.Done(time.monotonic())

    def _do_open_stream(self, step: s.OpenStream, ex: Exchange) -> s.Done:
        self._stop_listener()
        with self._lock:
            if self.closed:
                raise self._protocol.closed_error()
            self._sse = step.stream
            # (The HTTP+SSE transport's session is its stream: it reads on the host's client
            # when there is no connection of its own to be had.)
            client = self._stream_client() or {"client": self._client, "owns_client": False}
            self._listener = Listener(
                self._run,
                step.stream,
                **client,
                call_timeout_s=self.server.call_timeout_s,
                flow=step.flow,
            )
        return s.Done(time.monotonic())

    def _do_await(self, step: s.Await, ex: Exchange) -> s.Done | s.Idle:
        with self._signal:
            ready = self._signal.wait_for(step.ready, max(step.wait_s, 0.0))
        return s.Done(time.monotonic()) if ready else s.Idle(time.monotonic())

    def _do_notify(self, step: s.Notify, ex: Exchange | None) -> s.Done:
        with self._signal:
            self._signal.notify_all()
        return s.Done(time.monotonic())

    def _do_stream_answered(self, step: s.StreamAnswered, ex: Exchange) -> s.Done:
        if ex.listener is not None:
            ex.listener.answered.set()
        return s.Done(time.monotonic())
