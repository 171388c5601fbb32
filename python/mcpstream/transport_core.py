"""The Streamable HTTP protocol core, shared by the sync and the async transport (sans-I/O).

Nothing here sends or receives bytes. The drivers (``transport_http`` with ``httpx.Client`` and a
reader thread, ``transport_http_async`` with ``httpx.AsyncClient``) do the I/O and tell the core
what happened: "this response arrived with this status and these headers", "these body bytes
arrived", "the stream ended", "the stream failed". The core answers with what to do next, which
messages to deliver, which server requests to answer, and which error to raise.

Pieces:

* ``McpHttpProtocol``: one per transport. Headers, session state, status mapping, error
  messages (server id and redacted URL), the queue of notifications, answers to server requests.
* ``CallExchange``: one per call (a request or a notification). Matches the response, enforces the
  call's deadline, decides about resumption (SEP-1699).
* ``SseBody``: one per SSE response body. Feeds the codec's ``SseDecoder`` and applies the
  quiet-window rule of open-ended streams.
* ``ListenStream``: the GET stream for server-initiated messages and its reconnection rule.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol

import httpx

from . import __version__, codec
from .errors import (
    CodecError,
    McpHttpTransportAuthRequiredError,
    McpHttpTransportError,
    McpHttpTransportProtocolError,
    McpHttpTransportRemoteError,
    McpHttpTransportSessionExpiredError,
    McpHttpTransportTimeoutError,
)
from .jsonrpc import (
    JsonRpcId,
    JsonRpcNotification,
    JsonRpcRequest,
    JsonRpcResponse,
    build_jsonrpc_error_response,
    build_jsonrpc_result_response,
    encode_jsonrpc_message,
    parse_jsonrpc_line,
)
from .models import ResolvedMcpServer
from .redaction import body_snippet, redact_url
from .server_requests import (
    JSONRPC_INTERNAL_ERROR,
    JSONRPC_METHOD_NOT_FOUND,
    McpServerRequestHandlerError,
    McpUnsupportedServerRequestError,
)

__all__ = [
    "ACCEPT_HEADER",
    "ERROR_BODY_READ_LIMIT",
    "INITIALIZED_NOTIFICATION",
    "QUIET_WINDOW_S",
    "USER_AGENT",
    "BodyKind",
    "CallExchange",
    "ListenStream",
    "McpHttpAuth",
    "McpHttpProtocol",
    "ReconnectPolicy",
    "Resume",
    "ServerRequestReply",
    "SseBody",
]

logger = logging.getLogger("mcpstream.transport")

ACCEPT_HEADER = "application/json, text/event-stream"
USER_AGENT = f"mcpstream/{__version__}"
QUIET_WINDOW_S = 0.1
"""After the response of an open-ended SSE stream, the stream is read on until it has been quiet
(no bytes, no event half-received) for this long, so that trailing notifications are not lost."""
ERROR_BODY_READ_LIMIT = 16 * 1024
"""At most this many bytes of an error response are read, for the snippet in the message."""
DELETE_TIMEOUT_S = 2.0
INITIALIZED_NOTIFICATION = "notifications/initialized"
_SESSION_ID_CHARS = frozenset(chr(code) for code in range(0x21, 0x7F))


class McpHttpAuth(Protocol):
    """The hook through which an authentication scheme (OAuth, issue 4) plugs into a transport.

    ``request_headers`` gives the headers to add to each request (an ``Authorization`` header).
    ``on_unauthorized`` is told about a 401 answer; it returns True when it obtained fresh
    credentials, and the transport then sends the request once more, unless a replay could
    repeat a side effect (``tools/call``).
    """

    def request_headers(self, *, method: str) -> Mapping[str, str]:
        """Headers to add to the HTTP request that carries ``method``."""
        ...

    def on_unauthorized(self, *, method: str, www_authenticate: str | None) -> bool:
        """React to a 401; True means "credentials refreshed, send again"."""
        ...


def resolve_auth(server: ResolvedMcpServer) -> McpHttpAuth | None:
    """The auth hook for ``server``: none for static headers; OAuth is not available yet."""
    if server.oauth is not None:
        raise McpHttpTransportError(
            f"MCP server '{server.id}' is configured for OAuth, which is not supported by this "
            "build of mcpstream yet; configure a static Authorization header instead."
        )
    return None


@dataclass(frozen=True, slots=True)
class ReconnectPolicy:
    """How an SSE stream that ended early is resumed (SEP-1699).

    The server's ``retry`` field, when it sent one, is the delay before reconnecting; otherwise
    the delay starts at ``initial_delay_s`` and is multiplied by ``multiplier`` per attempt, up
    to ``max_delay_s``. At most ``max_attempts`` reconnections in a row may bring nothing new
    (no new event id) before the stream is given up.
    """

    max_attempts: int = 5
    initial_delay_s: float = 0.5
    max_delay_s: float = 8.0
    multiplier: float = 2.0

    def delay_s(self, *, attempt: int, retry_ms: int | None) -> float:
        """The delay before reconnection number ``attempt`` (1 for the first)."""
        if retry_ms is not None:
            return retry_ms / 1000.0
        delay = self.initial_delay_s * self.multiplier ** max(attempt - 1, 0)
        return float(min(delay, self.max_delay_s))


@dataclass(frozen=True, slots=True)
class Resume:
    """Reconnect with GET and ``Last-Event-ID: last_event_id`` after ``delay_s`` seconds."""

    delay_s: float
    last_event_id: str


class BodyKind(Enum):
    """What to do with the answer to a POST, from its status and content type."""

    RETRY = "retry"
    """Send the POST again: the auth hook refreshed the credentials after a 401."""
    ERROR = "error"
    """A non-2xx status: read a snippet of the body and raise ``status_error``."""
    NONE = "none"
    """No body to read: a 202 or 204 answer to a notification."""
    UNTYPED = "untyped"
    """No content type: acceptable for a notification if the body is empty."""
    JSON = "json"
    SSE = "sse"


@dataclass(frozen=True, slots=True)
class ServerRequestReply:
    """The answer to a server-initiated request: ``body`` (encoded JSON-RPC) to POST back, and
    ``failure``, the error that a call which was waiting when the request came raises once the
    answer is sent (None when the handler answered with a result)."""

    body: bytes
    failure: McpHttpTransportError | None


def normalized_content_type(value: str | None) -> str:
    """The media type of a Content-Type header value, lower case, without parameters."""
    if not value:
        return ""
    return value.split(";", 1)[0].strip().lower()


class McpHttpProtocol:
    """Per-transport protocol state and rules: headers, session, errors, notifications."""

    def __init__(
        self,
        server: ResolvedMcpServer,
        *,
        max_event_bytes: int | None,
        reconnect_policy: ReconnectPolicy,
    ) -> None:
        if server.transport != "http":
            raise McpHttpTransportError(
                f"MCP server '{server.id}' uses the '{server.transport}' transport, not 'http'."
            )
        if not server.url:
            raise McpHttpTransportError(f"MCP server '{server.id}' has no HTTP URL configured.")
        self.server = server
        self.url: str = server.url
        self.redacted_url = redact_url(server.url)
        self.max_event_bytes = max_event_bytes
        self.reconnect_policy = reconnect_policy
        self.auth = resolve_auth(server)
        self.session_id: str | None = None
        self.protocol_version: str | None = None
        self._notifications: deque[JsonRpcNotification] = deque()
        self._state_lock = threading.Lock()

    # -- messages and errors -------------------------------------------------------------------

    def error(
        self, message: str, kind: type[McpHttpTransportError] = McpHttpTransportError
    ) -> McpHttpTransportError:
        """An error of class ``kind`` whose message names the server (id, redacted URL)."""
        return kind(f"MCP server '{self.server.id}' at {self.redacted_url}: {message}")

    def scrub(self, text: str) -> str:
        """``text`` with the server's full URL replaced by its redacted form."""
        if self.url in text:
            text = text.replace(self.url, self.redacted_url)
        return text

    def timeout_error(self, method: str, timeout_s: float) -> McpHttpTransportError:
        """The error for a call that ran out of time."""
        return self.error(
            f"'{method}' did not complete within {timeout_s:.3f}s",
            McpHttpTransportTimeoutError,
        )

    def map_http_error(
        self, exc: BaseException, *, method: str, timeout_s: float, during: str = "request"
    ) -> McpHttpTransportError:
        """Turn an exception from httpx (or from a reader) into a transport error."""
        if isinstance(exc, McpHttpTransportError):
            return exc
        if isinstance(exc, httpx.TimeoutException):
            return self.timeout_error(method, timeout_s)
        if isinstance(exc, CodecError):
            return self.error(
                f"the event stream of '{method}' could not be decoded: {exc}",
                McpHttpTransportProtocolError,
            )
        detail = self.scrub(str(exc)) or type(exc).__name__
        return self.error(f"the HTTP {during} for '{method}' failed: {detail}")

    def closed_error(self) -> McpHttpTransportError:
        """The error for any work asked of a closed transport."""
        return self.error("the transport is closed")

    # -- session state -------------------------------------------------------------------------

    @property
    def session_negotiated(self) -> bool:
        """True once the server assigned a session id."""
        return bool(self.session_id)

    def set_protocol_version(self, protocol_version: str | None) -> None:
        """Record the protocol version the host negotiated (sent as MCP-Protocol-Version)."""
        cleaned = str(protocol_version or "").strip()
        self.protocol_version = cleaned or None

    def reset_session(self) -> None:
        """Forget the session id and the negotiated protocol version."""
        with self._state_lock:
            self.session_id = None
            self.protocol_version = None

    def capture_session(self, *, method: str, headers: Mapping[str, str]) -> None:
        """Take the session id from the answer to ``initialize``."""
        if method != "initialize":
            return
        session_id = (headers.get("mcp-session-id") or "").strip()
        if not session_id:
            return
        if not set(session_id) <= _SESSION_ID_CHARS:
            raise self.error(
                "the server assigned a session id with characters outside visible ASCII",
                McpHttpTransportProtocolError,
            )
        with self._state_lock:
            self.session_id = session_id

    # -- headers -------------------------------------------------------------------------------

    def _common_headers(self, *, method: str) -> dict[str, str]:
        headers = dict(self.server.headers)
        headers["User-Agent"] = USER_AGENT
        if self.auth is not None:
            headers.update(self.auth.request_headers(method=method))
        session_id = self.session_id
        if session_id:
            headers["MCP-Session-Id"] = session_id
        protocol_version = self.protocol_version
        if protocol_version:
            headers["MCP-Protocol-Version"] = protocol_version
        return headers

    def post_headers(self, *, method: str) -> dict[str, str]:
        """Headers of a POST carrying a JSON-RPC message."""
        headers = self._common_headers(method=method)
        headers["Accept"] = ACCEPT_HEADER
        headers["Content-Type"] = "application/json"
        return headers

    def get_headers(self, *, method: str, last_event_id: str | None) -> dict[str, str]:
        """Headers of a GET opening (or resuming) an SSE stream."""
        headers = self._common_headers(method=method)
        headers["Accept"] = "text/event-stream"
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        return headers

    def delete_headers(self) -> dict[str, str]:
        """Headers of the DELETE that ends the session."""
        return self._common_headers(method="session/delete")

    def encode(self, payload: dict[str, Any]) -> bytes:
        """A JSON-RPC payload as the UTF-8 body of a POST."""
        return encode_jsonrpc_message(payload).encode("utf-8")

    # -- answers -------------------------------------------------------------------------------

    def status_error(
        self, *, status_code: int, body: bytes, method: str, had_session_id: bool
    ) -> McpHttpTransportError | None:
        """The error for a non-2xx answer to ``method`` (None for 2xx)."""
        if 200 <= status_code < 300:
            return None
        snippet = body_snippet(self.scrub(body.decode("utf-8", errors="replace")))
        suffix = f": {snippet}" if snippet else ""
        if status_code == 401:
            return self.error(
                "the server requires authentication; give this server an Authorization header "
                f"(or OAuth, where supported) (HTTP 401){suffix}",
                McpHttpTransportAuthRequiredError,
            )
        if status_code == 404 and had_session_id:
            return self.error(
                f"the session expired: the server answered 404 to '{method}'",
                McpHttpTransportSessionExpiredError,
            )
        if method == "initialize" and not had_session_id and status_code in (400, 404, 405):
            return self.error(
                f"the server rejected the initialize POST (HTTP {status_code}); it may only "
                f"support the older HTTP+SSE transport, which mcpstream does not speak{suffix}",
                McpHttpTransportProtocolError,
            )
        if status_code >= 500:
            return self.error(
                f"server error HTTP {status_code} for '{method}'{suffix}",
                McpHttpTransportRemoteError,
            )
        return self.error(
            f"'{method}' was refused with HTTP {status_code}{suffix}",
            McpHttpTransportProtocolError,
        )

    def classify_post_answer(
        self,
        call: CallExchange,
        *,
        status_code: int,
        headers: Mapping[str, str],
        auth_retried: bool,
    ) -> BodyKind:
        """What to do with the answer to the POST of ``call`` (captures the session id)."""
        method = call.method
        if (
            status_code == 401
            and self.auth is not None
            and not auth_retried
            and method != "tools/call"  # a replay could repeat the tool's side effects
            and self.auth.on_unauthorized(
                method=method, www_authenticate=headers.get("www-authenticate")
            )
        ):
            return BodyKind.RETRY
        if not 200 <= status_code < 300:
            return BodyKind.ERROR
        self.capture_session(method=method, headers=headers)
        return self.body_kind(
            method=method,
            status_code=status_code,
            content_type=normalized_content_type(headers.get("content-type")),
            expects_response=call.expects_response,
        )

    def body_kind(
        self, *, method: str, status_code: int, content_type: str, expects_response: bool
    ) -> BodyKind:
        """How to read the body of a 2xx answer to a POST."""
        if not content_type:
            if not expects_response and status_code in (202, 204):
                return BodyKind.NONE
            if not expects_response:
                return BodyKind.UNTYPED
            raise self.error(
                f"the answer to '{method}' has no content type", McpHttpTransportProtocolError
            )
        if content_type == "application/json":
            return BodyKind.JSON
        if content_type == "text/event-stream":
            return BodyKind.SSE
        raise self.error(
            f"the answer to '{method}' has the unsupported content type {content_type!r}",
            McpHttpTransportProtocolError,
        )

    def untyped_body_error(self, method: str) -> McpHttpTransportError:
        """The error for a non-empty body without a content type."""
        return self.error(
            f"the answer to '{method}' has a body but no content type",
            McpHttpTransportProtocolError,
        )

    # -- notifications -------------------------------------------------------------------------

    def queue_notification(self, notification: JsonRpcNotification) -> None:
        """Keep a notification from the server for ``drain_notifications``."""
        self._notifications.append(notification)

    def drain_notifications(self) -> tuple[JsonRpcNotification, ...]:
        """Take every queued notification, oldest first."""
        drained: list[JsonRpcNotification] = []
        while True:
            try:
                drained.append(self._notifications.popleft())
            except IndexError:
                return tuple(drained)

    # -- server-initiated requests -------------------------------------------------------------

    def reply_to_server_request(
        self,
        request: JsonRpcRequest,
        *,
        during: str,
        outcome: Any = None,
        error: BaseException | None = None,
        handled: bool = True,
    ) -> ServerRequestReply:
        """The answer to ``request``, from what the handler returned (``outcome``) or raised
        (``error``); ``handled=False`` when no handler is set."""
        request_id = request.id
        if not handled or isinstance(error, McpUnsupportedServerRequestError):
            reason = "no handler for server requests is set" if not handled else "unsupported"
            failure = self.error(
                f"the server sent the request '{request.method}' during '{during}', which "
                f"this client refused ({reason})",
                McpHttpTransportProtocolError,
            )
            return self._reply(
                build_jsonrpc_error_response(
                    request_id=request_id,
                    code=JSONRPC_METHOD_NOT_FOUND,
                    message=f"Method not found: {request.method}",
                ),
                failure,
            )
        if error is None:
            try:
                body = self.encode(
                    build_jsonrpc_result_response(request_id=request_id, result=outcome)
                )
            except (TypeError, ValueError) as exc:
                error = exc
            else:
                return ServerRequestReply(body, None)
        if isinstance(error, McpServerRequestHandlerError):
            payload = build_jsonrpc_error_response(
                request_id=request_id, code=error.code, message=error.message
            )
        else:
            payload = build_jsonrpc_error_response(
                request_id=request_id,
                code=JSONRPC_INTERNAL_ERROR,
                message="Internal error in the MCP client while handling the request.",
            )
        failure = self.error(
            f"the handler failed on the server request '{request.method}' during '{during}'",
            McpHttpTransportProtocolError,
        )
        failure.__cause__ = error
        return self._reply(payload, failure)

    def _reply(self, payload: dict[str, Any], failure: McpHttpTransportError) -> ServerRequestReply:
        try:
            body = self.encode(payload)
        except (TypeError, ValueError):
            # A handler's error message or code that JSON cannot carry: send a plain one.
            body = self.encode(
                build_jsonrpc_error_response(
                    request_id=payload["id"],
                    code=JSONRPC_INTERNAL_ERROR,
                    message="Internal error in the MCP client while handling the request.",
                )
            )
        return ServerRequestReply(body, failure)

    def reply_post_failed(
        self, request_method: str, exc: McpHttpTransportError
    ) -> McpHttpTransportError:
        """The error for an answer to a server request that could not be POSTed."""
        failure = self.error(
            f"could not POST the answer to the server request '{request_method}'", type(exc)
        )
        failure.__cause__ = exc
        return failure

    # -- calls ---------------------------------------------------------------------------------

    def new_call(
        self, *, method: str, expected_id: JsonRpcId | None, timeout_s: float, now: float
    ) -> CallExchange:
        """Start the bookkeeping of one call."""
        return CallExchange(
            self, method=method, expected_id=expected_id, timeout_s=timeout_s, now=now
        )


class CallExchange:
    """One call from its POST to its end: the response it waits for, its deadline, resumption."""

    def __init__(
        self,
        protocol: McpHttpProtocol,
        *,
        method: str,
        expected_id: JsonRpcId | None,
        timeout_s: float,
        now: float,
    ) -> None:
        self.protocol = protocol
        self.method = method
        self.expected_id = expected_id
        self.timeout_s = timeout_s
        self.deadline = now + timeout_s
        self.response: JsonRpcResponse | None = None
        self.last_event_id: str | None = None
        self.retry_ms: int | None = None
        self._idle_reconnects = 0

    @property
    def expects_response(self) -> bool:
        """True for a request, False for a notification."""
        return self.expected_id is not None

    def remaining_s(self, now: float) -> float:
        """Seconds left before the deadline (at least a millisecond, for HTTP timeouts)."""
        return max(self.deadline - now, 0.001)

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
            self.protocol.queue_notification(message)
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
        if message.id != self.expected_id:
            raise self._protocol_error(
                f"the server answered with the JSON-RPC id {message.id!r} while '{method}' "
                f"waits for {self.expected_id!r}"
            )
        self.response = message
        return []

    def take_json_body(self, body: bytes) -> None:
        """Process an ``application/json`` body (server requests are not accepted there)."""
        if not body.strip():
            if self.expects_response:
                raise self._protocol_error(f"the JSON answer to '{self.method}' is empty")
            return
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
        """Start reading one SSE body answering this call: the POST's (``headers`` of its
        answer; without a Content-Length the stream is open-ended) or a resumed GET's (None,
        always treated as open-ended)."""
        open_ended = headers is None or headers.get("content-length") is None
        return SseBody(self, open_ended=open_ended, now=now)

    def is_resumable_answer(self, *, status_code: int, headers: Mapping[str, str]) -> bool:
        """True when the answer to a reconnection GET is an event stream to read."""
        content_type = normalized_content_type(headers.get("content-type"))
        return 200 <= status_code < 300 and content_type == "text/event-stream"

    def _note_ids(self, decoder: codec.SseDecoder) -> bool:
        """Copy the decoder's last event id and retry; True when the event id moved on."""
        advanced = False
        event_id = decoder.last_event_id
        if event_id is not None and event_id != self.last_event_id:
            self.last_event_id = event_id
            advanced = True
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

    def resume_failed(self, exc: BaseException, now: float) -> Resume:
        """A reconnection GET failed on the network: try again later, or raise."""
        return self._resume_or_raise(
            now,
            self.protocol.map_http_error(exc, method=self.method, timeout_s=self.timeout_s),
        )

    def resume_refused(
        self, *, status_code: int, headers: Mapping[str, str], body: bytes
    ) -> McpHttpTransportError:
        """The error for an answer to a reconnection GET that is not an event stream."""
        content_type = normalized_content_type(headers.get("content-type"))
        error = self.protocol.status_error(
            status_code=status_code,
            body=body,
            method=self.method,
            had_session_id=self.protocol.session_negotiated,
        )
        if error is not None:
            return error
        return self._protocol_error(
            f"the server answered the reconnection GET of '{self.method}' with the content "
            f"type {content_type!r} instead of an event stream"
        )


class SseBody:
    """One SSE body answering a call: decoding, message handling, quiet window, its end."""

    def __init__(self, call: CallExchange, *, open_ended: bool, now: float) -> None:
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
        """Take body bytes; return the server requests they completed, to be answered."""
        self.last_activity = now
        try:
            events = self._decoder.feed_jsonrpc(chunk)
        except CodecError as exc:
            raise self._decode_error(exc) from exc
        return self._take_events(events)

    def _decode_error(self, exc: CodecError) -> McpHttpTransportError:
        return self.call.protocol.error(
            f"the event stream of '{self.call.method}' could not be decoded: {exc}",
            McpHttpTransportProtocolError,
        )

    def wait_s(self, now: float) -> float | None:
        """How long to wait for more bytes; None when the call is complete (quiet window over).

        Raises the call's timeout error once its deadline has passed without a response, or
        with an event still half-received after it.
        """
        call = self.call
        remaining = call.deadline - now
        if call.response is None or not self.open_ended:
            if remaining <= 0:
                raise call.timeout_error()
            return remaining
        if remaining <= 0:
            raise call.timeout_error()
        if self._decoder.event_in_progress:
            return remaining
        quiet_until = self.last_activity + QUIET_WINDOW_S
        if quiet_until <= now:
            return None
        return min(quiet_until - now, remaining)

    def ended(self, now: float) -> tuple[list[JsonRpcRequest], Resume | None]:
        """The body ended cleanly. Returns the requests of a last event, and None when the call
        is complete or a ``Resume`` when it must go on over a reconnection GET."""
        try:
            events = self._decoder.finish_jsonrpc()
        except CodecError as exc:
            raise self._decode_error(exc) from exc
        requests = self._take_events(events)
        return requests, self._after_stream(now, None)

    def failed(self, exc: BaseException, now: float) -> Resume | None:
        """The body broke off (a network error). None if the response had already arrived;
        a ``Resume`` if the stream can be resumed; otherwise the mapped error is raised."""
        if isinstance(exc, CodecError):
            raise self._decode_error(exc) from exc
        if isinstance(exc, McpHttpTransportError):
            raise exc
        call = self.call
        error = call.protocol.map_http_error(
            exc, method=call.method, timeout_s=call.timeout_s, during="event stream"
        )
        if isinstance(exc, httpx.TimeoutException):
            if call.response is not None:
                return None
            raise error
        return self._after_stream(now, error)

    def _after_stream(self, now: float, error: McpHttpTransportError | None) -> Resume | None:
        call = self.call
        if call.response is not None or not call.expects_response:
            return None
        if self._progress:
            call._idle_reconnects = 0
        failure = error or call._protocol_error(
            f"the event stream ended before the response to '{call.method}' arrived"
        )
        return call._resume_or_raise(now, failure)


class ListenStream:
    """The GET stream on which the server sends requests and notifications of its own.

    One ``ListenStream`` lives as long as the session; each connection gets a new decoder via
    ``connect``. The last event id is carried over for ``Last-Event-ID`` on reconnection.
    """

    METHOD = "GET stream"

    def __init__(self, protocol: McpHttpProtocol) -> None:
        self.protocol = protocol
        self.last_event_id: str | None = None
        self.retry_ms: int | None = None
        self.failures = 0
        self.connected = False
        self._decoder: codec.SseDecoder | None = None
        self._delivered = False

    def headers(self) -> dict[str, str]:
        """Headers for the next GET."""
        return self.protocol.get_headers(method=self.METHOD, last_event_id=self.last_event_id)

    def accept(self, *, status_code: int, headers: Mapping[str, str]) -> bool:
        """Whether to read the answer to a GET; False (give up, quietly) for 405 and the like."""
        content_type = normalized_content_type(headers.get("content-type"))
        if status_code == 405:
            logger.debug("server %r offers no GET stream (405)", self.protocol.server.id)
            return False
        if not 200 <= status_code < 300 or content_type != "text/event-stream":
            logger.info(
                "server %r refused the GET stream (HTTP %s, %r)",
                self.protocol.server.id,
                status_code,
                content_type,
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
                    self.protocol.queue_notification(message)
                elif isinstance(message, JsonRpcRequest):
                    requests.append(message)
                else:
                    logger.debug(
                        "server %r sent a response on its GET stream; ignored",
                        self.protocol.server.id,
                    )
        if self._decoder.last_event_id is not None:
            if self._decoder.last_event_id != self.last_event_id:
                self._delivered = True
            self.last_event_id = self._decoder.last_event_id
        if self._decoder.retry_ms is not None:
            self.retry_ms = self._decoder.retry_ms
        return requests

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
