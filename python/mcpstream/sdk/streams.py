"""The driver of a relayed session: the SDK's transport streams over ``AsyncMcpHttpTransport``.

``SessionRelay`` reads what the session writes and carries it as the core's relay rules say
(``mcpstream._http.core.relay``): each request in a task of its own (its stream read by the
transport's flows, its response handed back), notifications and answers POSTed, cancellations
at 2026-07-28 closing the request's stream. What the server sends comes back through the
transport's hooks: notifications (``on_notification``) and server requests (the handler, which
hands each to the session and waits for its answer) onto the session's read stream.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import anyio
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import ClientMessageMetadata, SessionMessage

from .._http.core.protocol import ForwardedAnswer
from .._http.core.relay import Route
from .._text import sanitize
from ..errors import McpTransportError
from ..jsonrpc import JsonRpcNotification, JsonRpcRequest
from ..server_requests import McpServerRequestContext
from ..transport_http_async import AsyncMcpHttpTransport
from .host import HostClient
from .line import (
    ERROR_BODIES_ANSWER,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    TRANSPORT_SETS_PROTOCOL_VERSION,
    RequestId,
    message_headers,
)
from .messages import (
    Outgoing,
    answer_payload,
    ends_transport,
    error_message,
    failure_message,
    http_failure,
    notification_message,
    outgoing,
    request_message,
    response_message,
)
from .options import RelayOptions

__all__ = ["SessionRelay"]

logger = logging.getLogger("mcpstream.sdk")

ReadWriter = MemoryObjectSendStream[SessionMessage | Exception]
WriteReader = MemoryObjectReceiveStream[SessionMessage]
WriteStream = MemoryObjectSendStream[SessionMessage]
_Key = tuple[type, RequestId]


class SessionRelay:
    """Carries one session's messages over an ``AsyncMcpHttpTransport``; ``run`` is its loop,
    ``close`` ends it (the DELETE when ``terminate``)."""

    def __init__(
        self, url: str, options: RelayOptions, http_client: Any, read_writer: ReadWriter
    ) -> None:
        self._read = read_writer
        self._timeout_s = options.call_timeout_s
        self.host_client = None if http_client is None else HostClient(http_client)
        """The host's client as the transport sends through it (None: the transport's own)."""
        self.transport: AsyncMcpHttpTransport = options.transport(
            url, client=self.host_client, handler=self, on_notification=self._notify
        )
        self._rules = self.transport.relay_rules(error_bodies_answer=ERROR_BODIES_ANSWER)
        # The SDK caps SSE events only ("JSON responses are not affected"): a JSON body keeps
        # mcpstream's own budget, or the event cap where that is larger.
        self._rules.protocol.max_json_bytes = options.max_json_bytes
        # The SDK's transport sets no User-Agent: the HTTP client's headers supply it (the
        # host's client's, or the default of the SDK's stack). Only one in ``headers`` is sent
        # over them.
        self._rules.protocol.user_agent = None
        self._calls: dict[_Key, anyio.CancelScope] = {}
        self._answers: dict[_Key, asyncio.Future[ForwardedAnswer]] = {}

    async def run(
        self, write_reader: WriteReader, write_stream: WriteStream, tg: TaskGroup
    ) -> None:
        """Carry every message the session writes until it closes its write stream, or until
        the POST of a notification or an answer fails as ends the SDK's transport
        (``messages.ends_transport``): then, as the SDK's writer does on its way out, the
        session's streams are closed (its read stream ends, so its requests fail with
        "Connection closed"; its write stream refuses more)."""
        async with write_reader:
            async for message in write_reader:
                try:
                    await self._carry(message, tg)
                except McpTransportError as exc:  # a POST of a notification or an answer
                    if ends_transport(exc):
                        logger.error("the transport ends: %s", sanitize(exc, 2000))
                        break
                    logger.warning("%s", sanitize(exc, 2000))
                except Exception as exc:  # not the transport's: the loop goes on
                    logger.warning("a message could not be sent: %s", type(exc).__name__)
            else:
                return
        # Requests in flight are left to end (their answers have nowhere to go), as the SDK's
        # request tasks are: the transport's task group ends them when the host leaves.
        self._read.close()
        write_stream.close()

    def session_id(self) -> str | None:
        """The session id the server assigned (None before ``initialize`` is answered, and in
        the 2026-07-28 era): the ``get_session_id`` the SDK's 1.x transport yields."""
        return self.transport.session_id

    async def close(self, *, terminate: bool) -> None:
        """End the transport: the GET stream, the DELETE of the session (``terminate``), the
        client it made, or what was made for the host's client (``HostClient.release``). The
        requests still in flight end with the "closed" error."""
        for future in self._answers.values():
            future.cancel()
        if not terminate:
            self.transport.reset_session_state()
        try:
            await self.transport.close()
        finally:
            if self.host_client is not None:
                await self.host_client.release()

    # -- the session's messages ----------------------------------------------------------------

    async def _carry(self, message: SessionMessage, tg: TaskGroup) -> None:
        out = outgoing(message.message)
        metadata = message.metadata if isinstance(message.metadata, ClientMessageMetadata) else None
        route = self._rules.outbound(
            method=out.method,
            request_id=out.request_id,
            params=out.params,
            headers=message_headers(metadata),
            resumption_token=metadata.resumption_token if metadata is not None else None,
        )
        kind = route.route
        if kind is Route.CALL or kind is Route.RESUME:
            assert route.request_id is not None
            key = _key(route.request_id)
            if route.supersedes:
                # A reused id: the session's waiter is the new request's, so the old stream
                # may neither answer nor fail it.
                self._calls[key].cancel()
            scope = self._calls[key] = anyio.CancelScope()
            tg.start_soon(self._call, out, route.request_id, route.headers, metadata, scope, kind)
        elif kind is Route.ANSWER:
            assert route.request_id is not None
            # POSTed here, as the SDK's writer POSTs it, so that its failure ends the transport
            # as it ends the SDK's (``run``); the stream waiting for it then goes on, whatever
            # became of the POST (it is not POSTed again).
            try:
                await self._post(out, route.headers)
            finally:
                future = self._answers.get(_key(route.request_id))
                if future is not None and not future.done():
                    answer = ForwardedAnswer(answer_payload(message.message), posted=True)
                    future.set_result(answer)
        elif kind is Route.ABORT:
            assert route.request_id is not None
            scope_ = self._calls.get(_key(route.request_id))
            if scope_ is not None:
                scope_.cancel()
        elif kind is Route.POST:
            try:
                await self._post(out, route.headers)
            except McpTransportError as exc:
                # The SDK's writer opens the GET stream before this POST, whatever becomes of
                # it: here it opens unless the failure ends the transport.
                if route.starts_listening and not ends_transport(exc):
                    self.transport.start_listening()
                raise
            if route.starts_listening:
                self.transport.start_listening()
        # Route.DROP: nothing goes on the wire.

    async def _post(self, out: Outgoing, headers: dict[str, str]) -> None:
        """POST a notification or an answer (nothing comes back for it)."""
        await self.transport.relay(
            out.body,
            method=out.method or "response",
            expected_id=None,
            timeout_s=self._timeout_s,
            headers=headers,
        )

    async def _call(
        self,
        out: Outgoing,
        request_id: RequestId,
        headers: dict[str, str],
        metadata: ClientMessageMetadata | None,
        scope: anyio.CancelScope,
        kind: Route,
    ) -> None:
        key = _key(request_id)
        reply: SessionMessage | None = None
        raised: BaseException | None = None
        try:
            with scope:
                try:
                    response = await self.transport.relay(
                        out.body,
                        method=out.method or "request",
                        expected_id=request_id,
                        timeout_s=self._timeout_s,
                        headers=headers,
                        checkpoint=metadata.on_resumption_token_update if metadata else None,
                        resume_from=metadata.resumption_token
                        if metadata and kind is Route.RESUME
                        else None,
                    )
                except McpTransportError as exc:
                    raised = http_failure(exc)
                    if raised is None:
                        reply = failure_message(request_id, exc)
                except Exception as exc:  # not the transport's (a host's client, a callback)
                    logger.warning("request %r failed: %s", request_id, type(exc).__name__)
                    reply = error_message(
                        request_id, INTERNAL_ERROR, f"the transport failed: {type(exc).__name__}"
                    )
                else:
                    assert response is not None
                    if TRANSPORT_SETS_PROTOCOL_VERSION and out.method == "initialize":
                        self._take_protocol_version(response.result)
                    reply = response_message(response, request_id)
                if raised is not None:
                    # As the SDK's transport: the session's task group ends with the client's
                    # exception (raised outside the handler: no cycle of contexts).
                    raise raised
        finally:
            if self._calls.get(key) is scope:
                del self._calls[key]
                self._rules.finished(request_id)
        if reply is not None and not scope.cancel_called:
            await self._send(reply)

    def _take_protocol_version(self, result: Any) -> None:
        # The 1.x line's transport sends the version the server chose from then on.
        version = result.get("protocolVersion") if isinstance(result, dict) else None
        if isinstance(version, str):
            self.transport.set_negotiated_protocol_version(version)

    # -- what the server sends -----------------------------------------------------------------

    async def handle_request(
        self,
        *,
        context: McpServerRequestContext,
        method: str,
        request_id: RequestId,
        params: Any,
    ) -> ForwardedAnswer:
        """Hand a server-initiated request to the session and wait until its answer is POSTed
        (by ``_carry``, as the SDK's writer POSTs it): the transport's server request handler,
        whose stream then goes on."""
        built = request_message(JsonRpcRequest(id=request_id, method=method, params=params))
        if not isinstance(built, SessionMessage):
            # The session is told what its models refused, as by the SDK's transport; the
            # server gets an error instead of waiting for an answer that cannot come.
            await self._send(built)
            return ForwardedAnswer(
                {"error": {"code": INVALID_PARAMS, "message": "Invalid request parameters"}}
            )
        key = _key(request_id)
        future: asyncio.Future[ForwardedAnswer] = asyncio.get_running_loop().create_future()
        self._answers[key] = future
        self._rules.server_request_waiting(request_id)
        try:
            await self._send(built)
            return await future
        finally:
            if self._answers.get(key) is future:
                del self._answers[key]
            self._rules.server_request_given_up(request_id)

    async def _notify(self, notification: JsonRpcNotification) -> None:
        await self._send(notification_message(notification))

    async def _send(self, item: SessionMessage | Exception) -> None:
        try:
            await self._read.send(item)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            logger.debug("the session's read stream is closed; a message was dropped")


def _key(request_id: RequestId) -> _Key:
    return (type(request_id), request_id)
