"""The MCP Streamable HTTP client transport (sync), a drop-in for the reference transport.

``McpHttpTransport`` sends each JSON-RPC message in its own POST and reads the answer: 202/204
for notifications, an ``application/json`` body, or an SSE stream that may carry notifications
and requests of the server before the response. SSE bodies (with or without a Content-Length)
are read on a reader thread, joined before the call returns, so that the call's timeout holds
end to end and an open-ended stream can be left once it is quiet after the response. After
``notifications/initialized`` it opens the server's GET stream (when offered) on a background
thread. Closing it ends every thread and response it started, and DELETEs the session.

A server with ``oauth`` settings is authorized through an ``McpOAuthSession`` (the hook of
``mcpstream.transport_core``): every POST and GET carries its bearer token, 401 and 403 answers
go to the session, which renews the credentials and says whether to send the request again, and
its OAuth errors (``McpOAuthError``, which name ``mcpstream auth login``) reach the caller as
they are.

Notifications from the server are queued for ``drain_notifications``, or, with an
``on_notification`` callback, pushed to it as soon as they are decoded: on the thread that called
``request`` / ``send_notification`` for those on a call's answer, and on the GET stream's thread
(``mcpstream-get-<server id>``) for those on the GET stream.

``AsyncMcpHttpTransport`` (re-exported here) is the same over ``httpx.AsyncClient``. Both drive
the protocol core in ``mcpstream.transport_core``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx

from ._http.client import make_client
from ._http.facade import HttpTransportBase
from ._sync_io import ChunkKind, ChunkPump, abort_network_stream, abort_response
from .codec import DEFAULT_MAX_EVENT_BYTES
from .errors import (
    McpAuthError,
    McpHttpTransportAuthRequiredError,
    McpHttpTransportError,
    McpHttpTransportProtocolError,
    McpHttpTransportRemoteError,
    McpHttpTransportSessionExpiredError,
    McpHttpTransportTimeoutError,
    McpTransportError,
)
from .jsonrpc import (
    JsonRpcNotification,
    JsonRpcRequest,
    JsonRpcResponse,
    build_jsonrpc_notification,
    build_jsonrpc_request,
)
from .models import ResolvedMcpServer
from .oauth import McpOAuthRedirectHandler
from .oauth_store import McpOAuthTokenStore
from .server_requests import McpServerRequestContext, McpServerRequestHandler
from .transport_core import (
    AUTH_CHALLENGE_STATUSES,
    DELETE_TIMEOUT_S,
    ERROR_BODY_READ_LIMIT,
    INITIALIZED_NOTIFICATION,
    BodyKind,
    CallExchange,
    ListenStream,
    McpHttpAuth,
    McpHttpRequestAuth,
    ReconnectPolicy,
    Resume,
    ServerRequestReply,
    SseBody,
    resolve_auth,
)
from .transport_http_async import AsyncMcpHttpTransport

logger = logging.getLogger("mcpstream.transport")

__all__ = [
    "AsyncMcpHttpTransport",
    "McpHttpTransport",
    "McpHttpTransportAuthRequiredError",
    "McpHttpTransportError",
    "McpHttpTransportProtocolError",
    "McpHttpTransportRemoteError",
    "McpHttpTransportSessionExpiredError",
    "McpHttpTransportTimeoutError",
    "NotificationCallback",
    "ReconnectPolicy",
]

_LISTEN_HEADERS_TIMEOUT_S = 10.0
_LISTEN_OPEN_WAIT_S = 2.0
"""How long ``send_notification("notifications/initialized")`` waits for the server to answer
the GET that opens its stream (any answer, 405 included). Without the wait the GET, sent from
its own thread, can reach the server after the next requests of the caller; a server that takes
a GET as the place for a pending response (the conformance suite's ``sse-retry`` server does)
then puts a call's response there, which is not the call's stream. A server slower than this
to answer the GET gets it in the background, as before."""

NotificationCallback = Callable[[JsonRpcNotification], object]
"""``on_notification`` of ``McpHttpTransport``: called with each notification of the server
(what it returns is ignored)."""


def read_limited(response: httpx.Response, limit: int = ERROR_BODY_READ_LIMIT) -> bytes:
    """Read at most about ``limit`` bytes of ``response`` (for error snippets); never raises."""
    parts: list[bytes] = []
    size = 0
    try:
        for chunk in response.iter_bytes():
            parts.append(chunk)
            size += len(chunk)
            if size >= limit:
                break
    except (httpx.HTTPError, httpx.StreamError):
        pass
    return b"".join(parts)


def _authorization(auth: McpHttpRequestAuth | None, call: CallExchange) -> str | None:
    """The hook's ``Authorization`` value; time spent renewing is left out of the call's budget."""
    if auth is None:
        return None
    started = time.monotonic()
    try:
        return auth.authorization_header()
    finally:
        call.exclude(time.monotonic() - started)


def _renewed(
    auth: McpHttpRequestAuth,
    call: CallExchange,
    *,
    status_code: int,
    headers: httpx.Headers,
    body: bytes,
) -> bool:
    """Hand a 401/403 to the hook: True to send the request again (see ``_authorization``)."""
    started = time.monotonic()
    try:
        return auth.should_retry(status_code, headers, body)
    finally:
        call.exclude(time.monotonic() - started)


class McpHttpTransport(HttpTransportBase):
    """A sync MCP client transport over Streamable HTTP (MCP 2025-11-25).

    ``server``: the resolved server (``transport="http"``, ``url``, static ``headers``,
    ``call_timeout_s``). ``workspace_root``: the host's workspace. ``client``: an
    ``httpx.Client`` to use (the transport closes only a client it created itself; with a
    host's client, ``close`` waits for a GET stream the server has not answered yet, 10 s at
    most, while a transport that made its client ends that GET at once).
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
    ``None`` (the default) bounds connecting by the call's deadline alone.

    ``on_notification`` receives the server's notifications instead of the queue of
    ``drain_notifications`` (which then stays empty), as soon as each is decoded, in the order
    of its stream: notifications on the answer to a call are delivered on the thread that made
    the call, before that call returns; those on the GET stream on the GET stream's thread.
    Callbacks on different threads may therefore run at the same time. A callback that raises
    is logged and the call goes on; one that blocks holds up the stream it was called from.

    Safe to share between threads: calls may run concurrently.
    """

    def __init__(
        self,
        *,
        server: ResolvedMcpServer,
        workspace_root: Path,
        client: httpx.Client | None = None,
        server_request_context: McpServerRequestContext | None = None,
        server_request_handler: McpServerRequestHandler | None = None,
        max_event_bytes: int | None = DEFAULT_MAX_EVENT_BYTES,
        listen: bool = True,
        reconnect_policy: ReconnectPolicy | None = None,
        oauth_store: McpOAuthTokenStore | None = None,
        oauth_redirect_handler: McpOAuthRedirectHandler | None = None,
        connect_timeout_s: float | None = None,
        on_notification: NotificationCallback | None = None,
    ) -> None:
        self._init_core(
            server=server,
            workspace_root=workspace_root,
            server_request_context=server_request_context,
            max_event_bytes=max_event_bytes,
            listen=listen,
            reconnect_policy=reconnect_policy,
            connect_timeout_s=connect_timeout_s,
        )
        self._on_notification = on_notification
        if on_notification is not None:
            self._protocol.notification_sink = self._deliver_notification
        self._handler = server_request_handler
        self._owns_client = client is None
        self._client = client if client is not None else make_client()
        self._auth: McpHttpAuth | None = resolve_auth(
            server, client=self._client, store=oauth_store, redirect_handler=oauth_redirect_handler
        )
        self._listener: _Listener | None = None
        self._lock = threading.Lock()
        self._closed = threading.Event()

    def __repr__(self) -> str:
        return (
            f"McpHttpTransport(server_id={self.server.id!r}, "
            f"url={self._protocol.redacted_url!r}, closed={self.closed})"
        )

    # -- state ---------------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        """True once ``close`` was called."""
        return self._closed.is_set()

    def reset_session_state(self) -> None:
        """Forget the session id and protocol version (after the session expired), and stop
        the GET stream of the old session."""
        self._stop_listener()
        self._protocol.reset_session()

    @property
    def listening(self) -> bool:
        """True while the GET stream for server-initiated messages is open."""
        listener = self._listener
        return listener is not None and listener.connected

    def stderr_tail(self) -> str:
        """An HTTP server has no stderr: always ``""`` (kept for hosts that also run stdio)."""
        return ""

    def drain_notifications(self) -> tuple[JsonRpcNotification, ...]:
        """Take every notification received so far, oldest first (always empty when the
        transport was given ``on_notification``: they went to it)."""
        return self._protocol.drain_notifications()

    def _deliver_notification(self, notification: JsonRpcNotification) -> None:
        callback = self._on_notification
        assert callback is not None
        try:
            callback(notification)
        except Exception:
            logger.warning(
                "the notification callback of server %r raised", self.server.id, exc_info=True
            )

    # -- calls ---------------------------------------------------------------------------------

    def request(self, *, method: str, params: Any | None, timeout_s: float) -> JsonRpcResponse:
        """Send a request and return its response (a JSON-RPC error response is returned, not
        raised). Raises an ``McpHttpTransportError`` subclass when no response can be had."""
        request_id = self._ids.next()
        payload = build_jsonrpc_request(request_id=request_id, method=method, params=params)
        response = self._call(
            self._protocol.encode(payload),
            method=method,
            expected_id=request_id,
            timeout_s=timeout_s,
        )
        assert response is not None
        return response

    def send_notification(
        self, *, method: str, params: Any | None, completion_timeout_s: float | None = None
    ) -> None:
        """Send a notification; returns once the server accepted it. After
        ``notifications/initialized`` the GET stream for server messages is opened, and this
        returns once the server answered its GET (2 s at most)."""
        timeout_s = completion_timeout_s or self.server.call_timeout_s
        payload = build_jsonrpc_notification(method=method, params=params)
        self._call(
            self._protocol.encode(payload), method=method, expected_id=None, timeout_s=timeout_s
        )
        if method == INITIALIZED_NOTIFICATION:
            self._start_listener()

    def _call(
        self, body: bytes, *, method: str, expected_id: int | None, timeout_s: float
    ) -> JsonRpcResponse | None:
        if self.closed:
            raise self._protocol.closed_error()
        call = CallExchange(
            self._protocol,
            method=method,
            expected_id=expected_id,
            timeout_s=timeout_s,
            now=time.monotonic(),
        )
        try:
            resume = self._post(call, body)
            while resume is not None:
                resume = self._resume(call, resume)
        except McpTransportError:
            raise  # transport errors, and OAuth errors as they are
        except (httpx.HTTPError, httpx.StreamError, OSError) as exc:
            raise self._protocol.map_http_error(exc, method=method, timeout_s=timeout_s) from exc
        return call.result()

    def _request_auth(
        self, method: str, *, replay_allowed: bool | None = None
    ) -> McpHttpRequestAuth | None:
        auth = self._auth
        if auth is None:
            return None
        return auth.request_auth(method=method, replay_allowed=replay_allowed)

    def _post(self, call: CallExchange, body: bytes) -> Resume | None:
        protocol = self._protocol
        had_session_id = protocol.session_negotiated
        auth = self._request_auth(call.method)
        while True:
            authorization = _authorization(auth, call)
            with self._client.stream(
                "POST",
                protocol.url,
                headers=protocol.post_headers(authorization=authorization),
                content=body,
                timeout=call.http_timeout(time.monotonic()),
            ) as response:
                kind = protocol.classify_post_answer(
                    call,
                    status_code=response.status_code,
                    headers=response.headers,
                    challengeable=auth is not None,
                )
                if kind is not BodyKind.CHALLENGE:
                    return self._take_post_answer(response, call, kind, had_session_id)
                status_code, headers = response.status_code, response.headers
                error_body = read_limited(response)
            # The 401/403 is closed before the hook renews the credentials.
            assert auth is not None
            if not _renewed(auth, call, status_code=status_code, headers=headers, body=error_body):
                error = protocol.status_error(
                    status_code=status_code,
                    body=error_body,
                    method=call.method,
                    had_session_id=had_session_id,
                )
                assert error is not None
                raise error
            call.check_deadline(time.monotonic())

    def _take_post_answer(
        self, response: httpx.Response, call: CallExchange, kind: BodyKind, had_session_id: bool
    ) -> Resume | None:
        protocol = self._protocol
        if kind is BodyKind.ERROR:
            error = protocol.status_error(
                status_code=response.status_code,
                body=read_limited(response),
                method=call.method,
                had_session_id=had_session_id,
            )
            assert error is not None
            raise error
        if kind is BodyKind.UNTYPED and read_limited(response).strip():
            raise protocol.untyped_body_error(call.method)
        if kind is BodyKind.JSON:
            call.take_json_body(self._read_body(response, call))
        if kind is not BodyKind.SSE:
            return None
        return self._read_sse(
            response, call, call.open_sse(headers=response.headers, now=time.monotonic())
        )

    def _read_body(self, response: httpx.Response, call: CallExchange) -> bytes:
        parts: list[bytes] = []
        for chunk in response.iter_bytes():
            call.check_deadline(time.monotonic())
            parts.append(chunk)
        return b"".join(parts)

    def _read_sse(
        self, response: httpx.Response, call: CallExchange, sse: SseBody
    ) -> Resume | None:
        pump = ChunkPump(response, name=f"mcpstream-sse-{self.server.id}")
        try:
            while True:
                wait_s = sse.wait_s(time.monotonic())
                if wait_s is None:
                    return None
                item = pump.get(wait_s)
                if item is None:
                    continue
                kind, value = item
                now = time.monotonic()
                if kind is ChunkKind.DATA:
                    assert isinstance(value, bytes)
                    requests = sse.feed(value, now)
                    resume = None
                    done = False
                elif kind is ChunkKind.END:
                    requests, resume = sse.ended(now)
                    done = True
                else:
                    assert isinstance(value, BaseException)
                    return sse.failed(value, now)
                for server_request in requests:
                    self._answer_during_call(server_request, call)
                if done:
                    return resume
        finally:
            pump.stop()

    def _resume(self, call: CallExchange, resume: Resume) -> Resume | None:
        if self._closed.wait(resume.delay_s):
            raise self._protocol.closed_error()
        call.check_deadline(time.monotonic())
        protocol = self._protocol
        # A reconnection GET repeats nothing on the server: it may always be sent again.
        auth = self._request_auth(call.method, replay_allowed=True)
        try:
            while True:
                authorization = _authorization(auth, call)
                with self._client.stream(
                    "GET",
                    protocol.url,
                    headers=protocol.get_headers(
                        last_event_id=resume.last_event_id, authorization=authorization
                    ),
                    timeout=call.http_timeout(time.monotonic()),
                ) as response:
                    status_code, headers = response.status_code, response.headers
                    if call.is_resumable_answer(status_code=status_code, headers=headers):
                        return self._read_sse(
                            response, call, call.open_sse(headers=None, now=time.monotonic())
                        )
                    error_body = read_limited(response)
                if (
                    auth is None
                    or status_code not in AUTH_CHALLENGE_STATUSES
                    or not _renewed(
                        auth, call, status_code=status_code, headers=headers, body=error_body
                    )
                ):
                    raise call.resume_refused(
                        status_code=status_code, headers=headers, body=error_body
                    )
                call.check_deadline(time.monotonic())
        except httpx.ConnectTimeout as exc:
            # The connect timeout ran out, maybe long before the call's deadline: a failed
            # attempt, like any other network error.
            return call.resume_failed(exc, time.monotonic())
        except httpx.TimeoutException as exc:
            raise call.timeout_error() from exc
        except httpx.TransportError as exc:
            return call.resume_failed(exc, time.monotonic())

    # -- server-initiated requests -------------------------------------------------------------

    def _reply_for(self, request: JsonRpcRequest, *, during: str) -> ServerRequestReply:
        handler = self._handler
        if handler is None:
            return self._protocol.reply_to_server_request(request, during=during, handled=False)
        try:
            outcome = handler.handle_request(
                context=self._context,
                method=request.method,
                request_id=request.id,
                params=request.params,
            )
        except Exception as exc:
            return self._protocol.reply_to_server_request(request, during=during, error=exc)
        return self._protocol.reply_to_server_request(request, during=during, outcome=outcome)

    def _send_reply(
        self, reply: ServerRequestReply, request: JsonRpcRequest, timeout_s: float
    ) -> None:
        try:
            self._call(
                reply.body,
                method=f"{request.method} response",
                expected_id=None,
                timeout_s=timeout_s,
            )
        except McpHttpTransportError as exc:
            if reply.failure is not None:
                raise reply.failure from exc
            raise self._protocol.reply_post_failed(request.method, exc) from exc

    def _answer_during_call(self, request: JsonRpcRequest, call: CallExchange) -> None:
        reply = self._reply_for(request, during=call.method)
        self._send_reply(reply, request, call.remaining_s(time.monotonic()))
        if reply.failure is not None:
            raise reply.failure

    def _answer_in_background(self, request: JsonRpcRequest) -> None:
        reply = self._reply_for(request, during=ListenStream.METHOD)
        try:
            self._send_reply(reply, request, self.server.call_timeout_s)
        except McpTransportError as exc:
            logger.warning("%s", exc)
            return
        if reply.failure is not None:
            logger.warning("%s", reply.failure)

    # -- GET stream ----------------------------------------------------------------------------

    def _start_listener(self) -> None:
        if not self._listen_enabled:
            return
        with self._lock:
            if self.closed or (self._listener is not None and self._listener.alive):
                return
            listener = self._listener = _Listener(self)
        # The GET is answered before the caller sends anything else, so that a server sees it
        # before the requests that follow the initialization (see ``_LISTEN_OPEN_WAIT_S``).
        listener.wait_answered(_LISTEN_OPEN_WAIT_S)

    def _stop_listener(self) -> None:
        with self._lock:
            listener, self._listener = self._listener, None
        if listener is not None:
            listener.stop()

    # -- closing -------------------------------------------------------------------------------

    def close(self) -> None:
        """End the session (DELETE, errors ignored), the GET stream and, if the transport made
        it, the HTTP client. Idempotent; later calls raise ``McpHttpTransportError``."""
        with self._lock:
            if self.closed:
                return
            self._closed.set()
        self._stop_listener()
        if self._protocol.session_id:
            self._delete_session()
        if self._owns_client:
            self._client.close()

    def _delete_session(self) -> None:
        try:
            auth = self._auth
            authorization = auth.stored_authorization_header() if auth is not None else None
            with self._client.stream(
                "DELETE",
                self._protocol.url,
                headers=self._protocol.delete_headers(authorization=authorization),
                timeout=self._protocol.http_timeout(
                    min(self.server.call_timeout_s, DELETE_TIMEOUT_S)
                ),
            ) as response:
                read_limited(response)
        except Exception as exc:
            logger.debug("DELETE of the session failed: %s", type(exc).__name__)

    def __enter__(self) -> McpHttpTransport:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


class _Listener:
    """The background thread that keeps the server's GET stream open and reconnects it.

    When the transport made its HTTP client, the GET stream has a client of its own, so that
    every connection of that client is the stream's: the last one it opened (seen through
    httpcore's ``trace`` extension) is the GET's from the moment it connects, and ``stop`` shuts
    its socket down even while the GET still waits for the server's answer. A host's client is
    shared with the calls, so that only a GET with an answer can be stopped at once; ``stop``
    then waits for the answer (``_LISTEN_HEADERS_TIMEOUT_S`` at most).
    """

    def __init__(self, transport: McpHttpTransport) -> None:
        self._transport = transport
        self._stream = ListenStream(transport._protocol)
        self._stopping = threading.Event()
        self._answered = threading.Event()
        self._owns_client = transport._owns_client
        self._client = make_client() if self._owns_client else transport._client
        self._response: httpx.Response | None = None
        self._network_stream: object | None = None
        """The connection of the stream's own client (None with a host's client)."""
        self._response_lock = threading.Lock()
        self._thread = threading.Thread(
            target=self._run, name=f"mcpstream-get-{transport.server.id}", daemon=True
        )
        self._thread.start()

    @property
    def connected(self) -> bool:
        """True while a GET stream is open."""
        return self._stream.connected

    @property
    def alive(self) -> bool:
        """True while the thread runs."""
        return self._thread.is_alive()

    def wait_answered(self, timeout_s: float) -> None:
        """Return once the first GET has an answer (or failed, or the thread ended), or after
        ``timeout_s``."""
        self._answered.wait(timeout_s)

    def _run(self) -> None:
        try:
            self._run_streams()
        finally:
            self._answered.set()
            if self._owns_client:
                self._client.close()

    def _trace(self, event: str, info: dict[str, Any]) -> None:
        """httpcore's ``trace`` callback for the stream's own client: keep the network stream of
        each connection it opens (``connection.connect_tcp.complete`` and the like)."""
        network_stream = info.get("return_value")
        if not hasattr(network_stream, "get_extra_info"):
            return
        with self._response_lock:
            self._network_stream = network_stream
        if self._stopping.is_set():
            abort_network_stream(network_stream)

    def _run_streams(self) -> None:
        while not self._stopping.is_set():
            failed = False
            try:
                if not self._connect_once():
                    return
            except McpAuthError as exc:
                # No credentials for the stream, and none to be had without the user.
                logger.info("GET stream of server %r stopped: %s", self._transport.server.id, exc)
                return
            except Exception as exc:
                if self._stopping.is_set():
                    return
                logger.info(
                    "GET stream of server %r broke off: %s",
                    self._transport.server.id,
                    type(exc).__name__,
                )
                failed = True
            self._answered.set()  # a GET that failed without an answer counts as one
            delay_s = self._stream.next_delay_s(failed=failed)
            if delay_s is None or self._stopping.wait(delay_s):
                return

    def _connect_once(self) -> bool:
        """One GET stream from request to end; False when the server offers none (or refuses
        it for credentials that cannot be renewed)."""
        transport = self._transport
        protocol = transport._protocol
        timeout = protocol.http_timeout(
            min(transport.server.call_timeout_s, _LISTEN_HEADERS_TIMEOUT_S)
        )
        auth = transport._request_auth(ListenStream.METHOD)
        authorization = auth.authorization_header() if auth is not None else None
        with self._client.stream(
            "GET",
            protocol.url,
            headers=self._stream.headers(authorization=authorization),
            timeout=timeout,
            extensions={"trace": self._trace} if self._owns_client else None,
        ) as response:
            self._answered.set()
            with self._response_lock:
                self._response = response
            try:
                if self._stopping.is_set():
                    return False
                if auth is not None and self._stream.asks_for_renewal(
                    status_code=response.status_code, authorized=authorization is not None
                ):
                    body = read_limited(response)
                    renewed = auth.should_retry(response.status_code, response.headers, body)
                    logger.info(
                        "GET stream of server %r: HTTP 401, credentials %s",
                        transport.server.id,
                        "renewed, reconnecting" if renewed else "not renewed, giving up",
                    )
                    return renewed
                if not self._stream.accept(
                    status_code=response.status_code, headers=response.headers
                ):
                    return False
                _lift_body_read_timeout(response)
                for chunk in response.iter_bytes():
                    for server_request in self._stream.feed(chunk):
                        transport._answer_in_background(server_request)
                    if self._stopping.is_set():
                        return False
                for server_request in self._stream.finish():
                    transport._answer_in_background(server_request)
            finally:
                self._stream.disconnected()
                with self._response_lock:
                    self._response = None
        return True

    def stop(self) -> None:
        """End the thread: wake a blocked read (or a wait for the answer, see the class) by
        shutting the socket down, then join."""
        self._stopping.set()
        self._answered.set()
        with self._response_lock:
            response, network_stream = self._response, self._network_stream
        if network_stream is not None:
            abort_network_stream(network_stream)
        if response is not None and not abort_response(response):
            response.close()
        if threading.current_thread() is not self._thread:
            # A handler running on this thread may close the transport; the thread then ends
            # on its own once the handler returns.
            self._thread.join(_LISTEN_HEADERS_TIMEOUT_S + 1.0)


def _lift_body_read_timeout(response: httpx.Response) -> None:
    """Let the body of a GET stream be idle for as long as the server likes.

    The request's read timeout bounds the wait for the headers; httpcore reads the ``timeout``
    request extension again when the body is read, so clearing ``read`` here lifts the bound for
    the body only. A client whose transport ignores the extension keeps its read timeout, and the
    stream is then reconnected after an idle spell.
    """
    timeouts = response.request.extensions.get("timeout")
    if isinstance(timeouts, dict):
        timeouts["read"] = None
