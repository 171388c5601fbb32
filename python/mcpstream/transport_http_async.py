"""The MCP Streamable HTTP client transport for asyncio, over ``httpx.AsyncClient``.

``AsyncMcpHttpTransport`` has the API of ``McpHttpTransport`` with ``request``,
``send_notification`` and ``close`` as coroutines, for hosts that run many sessions in one event
loop. Reads wait under ``asyncio.timeout`` instead of on a reader thread; the GET stream for
server messages runs as a task. Both transports drive ``mcpstream.transport_core``.

OAuth goes through an ``AsyncMcpOAuthSession``, awaited, so that renewing credentials never
blocks the event loop (a blocking redirect handler runs in a worker thread).

With an ``on_notification`` callback (a function or a coroutine function), each notification is
delivered, and awaited, by the task that decoded it: the call's own task for notifications on its
answer, the GET stream task for the others.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx

from ._http.client import make_async_client
from ._http.facade import HttpTransportBase
from .codec import DEFAULT_MAX_EVENT_BYTES
from .errors import McpAuthError, McpHttpTransportError, McpTransportError
from .jsonrpc import (
    JsonRpcNotification,
    JsonRpcRequest,
    JsonRpcResponse,
    build_jsonrpc_notification,
    build_jsonrpc_request,
)
from .models import ResolvedMcpServer
from .oauth import AsyncMcpOAuthRedirectHandler, McpOAuthRedirectHandler
from .oauth_store import McpOAuthTokenStore
from .server_requests import (
    AsyncMcpServerRequestHandler,
    McpServerRequestContext,
    McpServerRequestHandler,
)
from .transport_core import (
    AUTH_CHALLENGE_STATUSES,
    DELETE_TIMEOUT_S,
    ERROR_BODY_READ_LIMIT,
    INITIALIZED_NOTIFICATION,
    AsyncMcpHttpAuth,
    AsyncMcpHttpRequestAuth,
    BodyKind,
    CallExchange,
    ListenStream,
    ReconnectPolicy,
    Resume,
    ServerRequestReply,
    SseBody,
    resolve_async_auth,
)

logger = logging.getLogger("mcpstream.transport")

__all__ = ["AsyncMcpHttpTransport", "AsyncNotificationCallback"]

_LISTEN_HEADERS_TIMEOUT_S = 10.0
_LISTEN_OPEN_WAIT_S = 2.0
"""How long ``send_notification("notifications/initialized")`` waits for the answer to the GET
that opens the server's stream (see ``transport_http._LISTEN_OPEN_WAIT_S``)."""

AsyncNotificationCallback = Callable[[JsonRpcNotification], Awaitable[object] | object]
"""``on_notification`` of ``AsyncMcpHttpTransport``: called with each notification of the
server; what it returns is awaited when it is awaitable."""


async def read_limited(response: httpx.Response, limit: int = ERROR_BODY_READ_LIMIT) -> bytes:
    """Read at most about ``limit`` bytes of ``response`` (for error snippets); never raises."""
    parts: list[bytes] = []
    size = 0
    try:
        async for chunk in response.aiter_bytes():
            parts.append(chunk)
            size += len(chunk)
            if size >= limit:
                break
    except (httpx.HTTPError, httpx.StreamError):
        pass
    return b"".join(parts)


async def _authorization(auth: AsyncMcpHttpRequestAuth | None, call: CallExchange) -> str | None:
    """The hook's ``Authorization`` value; time spent renewing is left out of the call's budget."""
    if auth is None:
        return None
    started = time.monotonic()
    try:
        return await auth.authorization_header()
    finally:
        call.exclude(time.monotonic() - started)


async def _renewed(
    auth: AsyncMcpHttpRequestAuth,
    call: CallExchange,
    *,
    status_code: int,
    headers: httpx.Headers,
    body: bytes,
) -> bool:
    """Hand a 401/403 to the hook: True to send the request again (see ``_authorization``)."""
    started = time.monotonic()
    try:
        return await auth.should_retry(status_code, headers, body)
    finally:
        call.exclude(time.monotonic() - started)


class AsyncMcpHttpTransport(HttpTransportBase):
    """An asyncio MCP client transport over Streamable HTTP (MCP 2025-11-25).

    Takes the keywords of ``McpHttpTransport``, with ``client`` an ``httpx.AsyncClient``.
    ``server_request_handler`` may return its result or an awaitable of it, and
    ``oauth_redirect_handler`` may be async (``AsyncHeadlessRedirectHandler``) or blocking (run in
    a worker thread). Use it from one event loop; ``close`` (or ``async with``) ends the GET
    stream task and the session.

    ``on_notification`` may be a function or a coroutine function. It receives the server's
    notifications instead of the queue of ``drain_notifications`` (which then stays empty), in
    the order of their stream, awaited one by one by the task that decoded them: a call's task
    for those on the call's answer (all delivered before the call returns), the GET stream task
    for the others. A callback that raises is logged and the call goes on.
    """

    def __init__(
        self,
        *,
        server: ResolvedMcpServer,
        workspace_root: Path,
        client: httpx.AsyncClient | None = None,
        server_request_context: McpServerRequestContext | None = None,
        server_request_handler: McpServerRequestHandler
        | AsyncMcpServerRequestHandler
        | None = None,
        max_event_bytes: int | None = DEFAULT_MAX_EVENT_BYTES,
        listen: bool = True,
        reconnect_policy: ReconnectPolicy | None = None,
        oauth_store: McpOAuthTokenStore | None = None,
        oauth_redirect_handler: AsyncMcpOAuthRedirectHandler
        | McpOAuthRedirectHandler
        | None = None,
        connect_timeout_s: float | None = None,
        on_notification: AsyncNotificationCallback | None = None,
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
        # Notifications decoded by the (synchronous) core, for the task that decoded them to
        # deliver right after: nothing else runs in between, so each task takes its own.
        self._pending: deque[JsonRpcNotification] = deque()
        if on_notification is not None:
            self._protocol.notification_sink = self._pending.append
        self._handler = server_request_handler
        self._owns_client = client is None
        self._client = client if client is not None else make_async_client()
        self._auth: AsyncMcpHttpAuth | None = resolve_async_auth(
            server, client=self._client, store=oauth_store, redirect_handler=oauth_redirect_handler
        )
        self._listen_task: asyncio.Task[None] | None = None
        self._listen_stream: ListenStream | None = None
        self._retired_tasks: list[asyncio.Task[None]] = []
        self._closed = False

    def __repr__(self) -> str:
        return (
            f"AsyncMcpHttpTransport(server_id={self.server.id!r}, "
            f"url={self._protocol.redacted_url!r}, closed={self.closed})"
        )

    # -- state ---------------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        """True once ``close`` was called."""
        return self._closed

    def reset_session_state(self) -> None:
        """Forget the session id and protocol version, and stop the old session's GET stream
        (the task is cancelled; ``close`` awaits its end)."""
        task, self._listen_task = self._listen_task, None
        if task is not None:
            task.cancel()
            self._retired_tasks.append(task)
        self._protocol.reset_session()

    @property
    def listening(self) -> bool:
        """True while the GET stream for server-initiated messages is open."""
        task, stream = self._listen_task, self._listen_stream
        return task is not None and not task.done() and stream is not None and stream.connected

    def stderr_tail(self) -> str:
        """An HTTP server has no stderr: always ``""``."""
        return ""

    def drain_notifications(self) -> tuple[JsonRpcNotification, ...]:
        """Take every notification received so far, oldest first (always empty when the
        transport was given ``on_notification``)."""
        return self._protocol.drain_notifications()

    async def _deliver_pending(self) -> None:
        """Deliver the notifications the core just decoded to ``on_notification``, in order."""
        callback = self._on_notification
        if callback is None:
            return
        pending = list(self._pending)
        self._pending.clear()
        for notification in pending:
            try:
                outcome = callback(notification)
                if inspect.isawaitable(outcome):
                    await outcome
            except Exception:
                logger.warning(
                    "the notification callback of server %r raised", self.server.id, exc_info=True
                )

    # -- calls ---------------------------------------------------------------------------------

    async def request(
        self, *, method: str, params: Any | None, timeout_s: float
    ) -> JsonRpcResponse:
        """Send a request and return its response (see ``McpHttpTransport.request``)."""
        request_id = self._ids.next()
        payload = build_jsonrpc_request(request_id=request_id, method=method, params=params)
        response = await self._call(
            self._protocol.encode(payload),
            method=method,
            expected_id=request_id,
            timeout_s=timeout_s,
        )
        assert response is not None
        return response

    async def send_notification(
        self, *, method: str, params: Any | None, completion_timeout_s: float | None = None
    ) -> None:
        """Send a notification (see ``McpHttpTransport.send_notification``)."""
        timeout_s = completion_timeout_s or self.server.call_timeout_s
        payload = build_jsonrpc_notification(method=method, params=params)
        await self._call(
            self._protocol.encode(payload), method=method, expected_id=None, timeout_s=timeout_s
        )
        if method == INITIALIZED_NOTIFICATION:
            answered = self._start_listener()
            if answered is not None:
                # The GET reaches the server before the requests the caller sends next.
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(answered.wait(), _LISTEN_OPEN_WAIT_S)

    async def _call(
        self, body: bytes, *, method: str, expected_id: int | None, timeout_s: float
    ) -> JsonRpcResponse | None:
        if self._closed:
            raise self._protocol.closed_error()
        call = CallExchange(
            self._protocol,
            method=method,
            expected_id=expected_id,
            timeout_s=timeout_s,
            now=time.monotonic(),
        )
        try:
            resume = await self._post(call, body)
            while resume is not None:
                resume = await self._resume(call, resume)
        except McpTransportError:
            raise  # transport errors, and OAuth errors as they are
        except (httpx.HTTPError, httpx.StreamError, OSError) as exc:
            raise self._protocol.map_http_error(exc, method=method, timeout_s=timeout_s) from exc
        finally:
            if self._pending:
                # Notifications decoded just before an error broke the call off.
                await self._deliver_pending()
        return call.result()

    def _request_auth(
        self, method: str, *, replay_allowed: bool | None = None
    ) -> AsyncMcpHttpRequestAuth | None:
        auth = self._auth
        if auth is None:
            return None
        return auth.request_auth(method=method, replay_allowed=replay_allowed)

    async def _post(self, call: CallExchange, body: bytes) -> Resume | None:
        protocol = self._protocol
        had_session_id = protocol.session_negotiated
        auth = self._request_auth(call.method)
        while True:
            authorization = await _authorization(auth, call)
            async with self._client.stream(
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
                    return await self._take_post_answer(response, call, kind, had_session_id)
                status_code, headers = response.status_code, response.headers
                error_body = await read_limited(response)
            # The 401/403 is closed before the hook renews the credentials.
            assert auth is not None
            renewed = await _renewed(
                auth, call, status_code=status_code, headers=headers, body=error_body
            )
            if not renewed:
                error = protocol.status_error(
                    status_code=status_code,
                    body=error_body,
                    method=call.method,
                    had_session_id=had_session_id,
                )
                assert error is not None
                raise error
            call.check_deadline(time.monotonic())

    async def _take_post_answer(
        self, response: httpx.Response, call: CallExchange, kind: BodyKind, had_session_id: bool
    ) -> Resume | None:
        protocol = self._protocol
        if kind is BodyKind.ERROR:
            error = protocol.status_error(
                status_code=response.status_code,
                body=await read_limited(response),
                method=call.method,
                had_session_id=had_session_id,
            )
            assert error is not None
            raise error
        if kind is BodyKind.UNTYPED and (await read_limited(response)).strip():
            raise protocol.untyped_body_error(call.method)
        if kind is BodyKind.JSON:
            call.take_json_body(await self._read_body(response, call))
            if self._pending:
                await self._deliver_pending()
        if kind is not BodyKind.SSE:
            return None
        return await self._read_sse(
            response, call, call.open_sse(headers=response.headers, now=time.monotonic())
        )

    async def _read_body(self, response: httpx.Response, call: CallExchange) -> bytes:
        parts: list[bytes] = []
        chunks = response.aiter_bytes()
        while True:
            try:
                async with asyncio.timeout(call.remaining_s(time.monotonic())):
                    parts.append(await anext(chunks))
            except StopAsyncIteration:
                return b"".join(parts)
            except TimeoutError:
                raise call.timeout_error() from None

    async def _read_sse(
        self, response: httpx.Response, call: CallExchange, sse: SseBody
    ) -> Resume | None:
        chunks: AsyncIterator[bytes] = response.aiter_bytes()
        while True:
            wait_s = sse.wait_s(time.monotonic())
            if wait_s is None:
                return None
            try:
                async with asyncio.timeout(wait_s):
                    chunk = await anext(chunks)
            except TimeoutError:
                # The read was cancelled, and the body iterator with it: this wait ends the
                # stream, by the quiet window or by the deadline (``wait_s`` raises then).
                while (wait_s := sse.wait_s(time.monotonic())) is not None:
                    await asyncio.sleep(wait_s)
                return None
            except StopAsyncIteration:
                requests, resume = sse.ended(time.monotonic())
                if self._pending:
                    await self._deliver_pending()
                for server_request in requests:
                    await self._answer_during_call(server_request, call)
                return resume
            except (httpx.HTTPError, httpx.StreamError, OSError) as exc:
                return sse.failed(exc, time.monotonic())
            requests = sse.feed(chunk, time.monotonic())
            if self._pending:
                await self._deliver_pending()
            for server_request in requests:
                await self._answer_during_call(server_request, call)

    async def _resume(self, call: CallExchange, resume: Resume) -> Resume | None:
        await asyncio.sleep(resume.delay_s)
        if self._closed:
            raise self._protocol.closed_error()
        call.check_deadline(time.monotonic())
        protocol = self._protocol
        # A reconnection GET repeats nothing on the server: it may always be sent again.
        auth = self._request_auth(call.method, replay_allowed=True)
        try:
            while True:
                authorization = await _authorization(auth, call)
                async with self._client.stream(
                    "GET",
                    protocol.url,
                    headers=protocol.get_headers(
                        last_event_id=resume.last_event_id, authorization=authorization
                    ),
                    timeout=call.http_timeout(time.monotonic()),
                ) as response:
                    status_code, headers = response.status_code, response.headers
                    if call.is_resumable_answer(status_code=status_code, headers=headers):
                        return await self._read_sse(
                            response, call, call.open_sse(headers=None, now=time.monotonic())
                        )
                    error_body = await read_limited(response)
                if (
                    auth is None
                    or status_code not in AUTH_CHALLENGE_STATUSES
                    or not await _renewed(
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

    async def _reply_for(self, request: JsonRpcRequest, *, during: str) -> ServerRequestReply:
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
            if inspect.isawaitable(outcome):
                outcome = await outcome
        except Exception as exc:
            return self._protocol.reply_to_server_request(request, during=during, error=exc)
        return self._protocol.reply_to_server_request(request, during=during, outcome=outcome)

    async def _send_reply(
        self, reply: ServerRequestReply, request: JsonRpcRequest, timeout_s: float
    ) -> None:
        try:
            await self._call(
                reply.body,
                method=f"{request.method} response",
                expected_id=None,
                timeout_s=timeout_s,
            )
        except McpHttpTransportError as exc:
            if reply.failure is not None:
                raise reply.failure from exc
            raise self._protocol.reply_post_failed(request.method, exc) from exc

    async def _answer_during_call(self, request: JsonRpcRequest, call: CallExchange) -> None:
        reply = await self._reply_for(request, during=call.method)
        await self._send_reply(reply, request, call.remaining_s(time.monotonic()))
        if reply.failure is not None:
            raise reply.failure

    async def _answer_in_background(self, request: JsonRpcRequest) -> None:
        reply = await self._reply_for(request, during=ListenStream.METHOD)
        try:
            await self._send_reply(reply, request, self.server.call_timeout_s)
        except McpTransportError as exc:
            logger.warning("%s", exc)
            return
        if reply.failure is not None:
            logger.warning("%s", reply.failure)

    # -- GET stream ----------------------------------------------------------------------------

    def _start_listener(self) -> asyncio.Event | None:
        """Start the GET stream task; the event it sets once its first GET has an answer (or
        failed, or the task ended), or None when no task was started."""
        if not self._listen_enabled or self._closed:
            return None
        if self._listen_task is not None and not self._listen_task.done():
            return None
        answered = asyncio.Event()
        self._listen_stream = ListenStream(self._protocol)
        self._listen_task = asyncio.get_running_loop().create_task(
            self._listen(self._listen_stream, answered),
            name=f"mcpstream-get-{self.server.id}",
        )
        return answered

    async def _listen(self, stream: ListenStream, answered: asyncio.Event) -> None:
        try:
            await self._listen_streams(stream, answered)
        finally:
            answered.set()

    async def _listen_streams(self, stream: ListenStream, answered: asyncio.Event) -> None:
        while not self._closed:
            failed = False
            try:
                if not await self._listen_once(stream, answered):
                    return
            except McpAuthError as exc:
                # No credentials for the stream, and none to be had without the user.
                logger.info("GET stream of server %r stopped: %s", self.server.id, exc)
                return
            except Exception as exc:
                if self._closed:
                    return
                logger.info(
                    "GET stream of server %r broke off: %s", self.server.id, type(exc).__name__
                )
                failed = True
            answered.set()  # a GET that failed without an answer counts as one
            delay_s = stream.next_delay_s(failed=failed)
            if delay_s is None:
                return
            await asyncio.sleep(delay_s)

    async def _listen_once(self, stream: ListenStream, answered: asyncio.Event) -> bool:
        """One GET stream from request to end; False when the server offers none (or refuses
        it for credentials that cannot be renewed). ``answered`` is set when its answer came."""
        protocol = self._protocol
        timeout = protocol.http_timeout(min(self.server.call_timeout_s, _LISTEN_HEADERS_TIMEOUT_S))
        auth = self._request_auth(ListenStream.METHOD)
        authorization = await auth.authorization_header() if auth is not None else None
        async with self._client.stream(
            "GET",
            protocol.url,
            headers=stream.headers(authorization=authorization),
            timeout=timeout,
        ) as response:
            answered.set()
            if auth is not None and stream.asks_for_renewal(
                status_code=response.status_code, authorized=authorization is not None
            ):
                body = await read_limited(response)
                renewed = await auth.should_retry(response.status_code, response.headers, body)
                logger.info(
                    "GET stream of server %r: HTTP 401, credentials %s",
                    self.server.id,
                    "renewed, reconnecting" if renewed else "not renewed, giving up",
                )
                return renewed
            if not stream.accept(status_code=response.status_code, headers=response.headers):
                return False
            try:
                # The body may be idle for as long as the server likes: no read timeout for it.
                timeouts = response.request.extensions.get("timeout")
                if isinstance(timeouts, dict):
                    timeouts["read"] = None
                async for chunk in response.aiter_bytes():
                    requests = stream.feed(chunk)
                    if self._pending:
                        await self._deliver_pending()
                    for server_request in requests:
                        await self._answer_in_background(server_request)
                    if self._closed:
                        return False
                requests = stream.finish()
                if self._pending:
                    await self._deliver_pending()
                for server_request in requests:
                    await self._answer_in_background(server_request)
            finally:
                stream.disconnected()
        return True

    async def _stop_listener(self) -> None:
        tasks = self._retired_tasks
        self._retired_tasks = []
        if self._listen_task is not None:
            tasks.append(self._listen_task)
            self._listen_task = None
        current = asyncio.current_task()
        for task in tasks:
            if task is current:
                # A handler running in the GET stream task closes the transport: the task ends
                # by itself once the handler returns.
                continue
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    # -- closing -------------------------------------------------------------------------------

    async def close(self) -> None:
        """End the session (DELETE, errors ignored), the GET stream task and, if the transport
        made it, the HTTP client. Idempotent; later calls raise ``McpHttpTransportError``."""
        if self._closed:
            return
        self._closed = True
        await self._stop_listener()
        if self._protocol.session_id:
            try:
                auth = self._auth
                authorization = auth.stored_authorization_header() if auth is not None else None
                async with self._client.stream(
                    "DELETE",
                    self._protocol.url,
                    headers=self._protocol.delete_headers(authorization=authorization),
                    timeout=self._protocol.http_timeout(
                        min(self.server.call_timeout_s, DELETE_TIMEOUT_S)
                    ),
                ) as response:
                    await read_limited(response)
            except Exception as exc:
                logger.debug("DELETE of the session failed: %s", type(exc).__name__)
        if self._owns_client:
            await self._client.aclose()

    async def __aenter__(self) -> AsyncMcpHttpTransport:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()
