"""The SDK's messages to and from mcpstream's: ``SessionMessage`` built from the codec's decoded
messages, the bytes POSTed for the session's messages, and the JSON-RPC errors that stand for
the transport's failures.

Every message is built with the SDK's pydantic models (``model_validate`` of the decoded
value), so the session gets what ``jsonrpc_message_adapter`` would give it from the same bytes,
with the same refusals (``ValidationError``). Building without validation
(``model_construct``) saves nothing worth the guarantees: a result's dict is not walked either
way, and a notification costs about 10 us both ways (``benches/sdk_messages.py``).
"""

from __future__ import annotations

import logging
from typing import Any

from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from .._http.core.protocol import failed_while_streaming, stream_ended
from .._httpbase.stack import raised_on_any
from .._text import sanitize
from ..errors import (
    McpHttpTransportError,
    McpHttpTransportProtocolError,
    McpHttpTransportResponseTooLargeError,
    McpHttpTransportSessionExpiredError,
    McpHttpTransportTimeoutError,
    McpTransportError,
)
from ..jsonrpc import JsonRpcNotification, JsonRpcRequest, JsonRpcResponse
from .line import (
    CONNECTION_CLOSED,
    DUMP_OPTIONS,
    FAILED_POST_STATUS_ENDS,
    INTERNAL_ERROR,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    NOT_FOUND_TERMINATES,
    PARSE_ERROR,
    REQUEST_TIMEOUT,
    SESSION_TERMINATED_CODE,
    ErrorData,
    JSONRPCError,
    JSONRPCMessage,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
    RequestId,
    unwrap,
    wrap,
)

__all__ = [
    "Outgoing",
    "ends_transport",
    "error_message",
    "failure_message",
    "http_failure",
    "notification_message",
    "outgoing",
    "request_message",
    "response_message",
]

_MESSAGE_LIMIT = 2000
logger = logging.getLogger("mcpstream.sdk")


def response_message(response: JsonRpcResponse, request_id: RequestId) -> SessionMessage:
    """The session's message for the ``response`` to its request ``request_id`` (the id the
    session used, as the SDK's transport does). A result the SDK's models refuse (not an
    object) becomes the parse error the SDK's transport answers with."""
    error = response.error
    payload: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id}
    try:
        if error is not None:
            payload["error"] = error
            return SessionMessage(wrap(JSONRPCError.model_validate(payload)))
        payload["result"] = response.result
        return SessionMessage(wrap(JSONRPCResponse.model_validate(payload)))
    except ValidationError as exc:
        return error_message(request_id, PARSE_ERROR, f"Failed to parse the response: {exc}")


def notification_message(notification: JsonRpcNotification) -> SessionMessage | ValidationError:
    """The session's message for a server notification, or the ``ValidationError`` the SDK's
    transport hands the session for one its models refuse (``params`` not an object)."""
    payload = {"jsonrpc": "2.0", "method": notification.method, **_params(notification.params)}
    try:
        return SessionMessage(wrap(JSONRPCNotification.model_validate(payload)))
    except ValidationError as exc:
        return exc


def request_message(request: JsonRpcRequest) -> SessionMessage | ValidationError:
    """The session's message for a server-initiated request (or the ``ValidationError`` for one
    the SDK's models refuse)."""
    payload = {
        "jsonrpc": "2.0",
        "id": request.id,
        "method": request.method,
        **_params(request.params),
    }
    try:
        return SessionMessage(wrap(JSONRPCRequest.model_validate(payload)))
    except ValidationError as exc:
        return exc


def _params(params: Any) -> dict[str, Any]:
    # Absent params stay unset, as the SDK's adapter leaves them (exclude_unset omits them).
    return {} if params is None else {"params": params}


def error_message(request_id: RequestId, code: int, message: str) -> SessionMessage:
    """A JSON-RPC error for the session's request ``request_id``."""
    error = ErrorData(code=code, message=message)
    return SessionMessage(wrap(JSONRPCError(jsonrpc="2.0", id=request_id, error=error)))


def http_failure(exc: McpTransportError) -> BaseException | None:
    """The HTTP stack's exception to raise for ``exc``, as the SDK's transport raises it, or
    None when the failure is answered with a JSON-RPC error (``failure_message``).

    The SDK's transport lets what its client raises before a request has an answer (a
    connection refused, a name not resolved, a TLS failure, the host client's timeouts, a
    connection closed before the head) and while a JSON body is read out of its request's
    task: the transport's task group, and with it the session, ends with that exception (an
    ``ExceptionGroup`` of it). A failure once the answer's event stream has begun is resolved
    with a JSON-RPC error instead (``CONNECTION_CLOSED``). mcpstream's own deadline
    (``call_timeout_s``) is not the client's: it stays a ``REQUEST_TIMEOUT`` error. The 1.x
    line's transport does the same (its request tasks run in its task group too)."""
    if failed_while_streaming(exc):
        return None
    return _client_raised(exc)


def ends_transport(exc: McpTransportError) -> bool:
    """Whether the failed POST of a notification or of an answer to a server request
    (``exc``) ends the transport, as it ends the SDK's transport: there such a POST runs in
    the writer itself, which ends on any exception out of it (the session's streams are
    closed: its requests fail with "Connection closed"). What the HTTP client raised (a
    connection refused or reset, its timeouts) is such an exception on both lines, and on
    the 1.x line an HTTP error status but 404 too (``raise_for_status``). Anything else is
    only logged: 2.x drops an HTTP error to a notification, and mcpstream's own failures
    (its deadline, OAuth) are not the client's."""
    if _client_raised(exc) is not None:
        return True
    status = exc.status_code if isinstance(exc, McpHttpTransportError) else None
    return FAILED_POST_STATUS_ENDS and status is not None and status >= 300 and status != 404


def _client_raised(exc: McpTransportError) -> BaseException | None:
    """What the HTTP client raised that ``exc`` stands for (its ``TransportError``: a
    connection refused, one of the client's timeouts...), or None (mcpstream's own)."""
    cause = exc.__cause__
    return cause if isinstance(cause, raised_on_any(lambda r: r.TransportError)) else None


def failure_message(request_id: RequestId, exc: McpTransportError) -> SessionMessage:
    """The JSON-RPC error that tells the session its request ``request_id`` failed with
    ``exc``, coded as the SDK's transport codes the same failure: an expired session (on the
    1.x line, any 404) is "Session terminated" with the line's code (``INVALID_REQUEST``; 1.x:
    32600) and the SDK's words alone (mcpstream's message is logged), a message past the byte cap
    ``CONNECTION_CLOSED`` (the SDK's "SSE stream failed"), a 404 without a session
    ``METHOD_NOT_FOUND``, a 2xx without a response or a redirect ``INVALID_REQUEST``, another
    HTTP status ``INTERNAL_ERROR``, mcpstream's deadline ``REQUEST_TIMEOUT``, an answer that
    is not JSON-RPC ``PARSE_ERROR``, and a connection lost or an event stream silent past the
    client's read timeout (and not resumed) ``CONNECTION_CLOSED``. The message is
    mcpstream's (secrets redacted) and ``data`` names the ``mcpstream.errors`` class, but for
    an expired session."""
    text = sanitize(exc, _MESSAGE_LIMIT)
    status = exc.status_code if isinstance(exc, McpHttpTransportError) else None
    if isinstance(exc, McpHttpTransportSessionExpiredError) or (
        status == 404 and NOT_FOUND_TERMINATES
    ):
        # The SDK's own signal, word for word: a host may test for it.
        logger.info("%s", text)
        return error_message(request_id, SESSION_TERMINATED_CODE, "Session terminated")
    elif isinstance(exc, McpHttpTransportResponseTooLargeError):
        code, text = CONNECTION_CLOSED, f"SSE stream failed: {text}"  # the SDK's words
    elif status == 404:
        code = METHOD_NOT_FOUND
    elif status is not None and status < 400:
        code = INVALID_REQUEST  # a 202 to a request, a redirect not followed
    elif status is not None:
        code = INTERNAL_ERROR
    elif isinstance(exc, McpHttpTransportTimeoutError) and _client_raised(exc) is None:
        # mcpstream's own deadline; the client's read timeout on an event stream is the
        # stream broken off (CONNECTION_CLOSED, below), as the SDK's transport has it.
        code = REQUEST_TIMEOUT
    elif stream_ended(exc):
        # The stream ended before the response (the SDK's "SSE stream ended without a
        # response"), not a message that could not be read.
        code = CONNECTION_CLOSED
    elif isinstance(exc, McpHttpTransportProtocolError):
        code = PARSE_ERROR
    else:
        code = CONNECTION_CLOSED
    error = ErrorData(code=code, message=text, data={"mcpstream_error": type(exc).__name__})
    return SessionMessage(wrap(JSONRPCError(jsonrpc="2.0", id=request_id, error=error)))


class Outgoing:
    """One message of the session, as the transport carries it: the POST body, and what the
    relay rules need (``method`` None for an answer, ``request_id`` None for a notification)."""

    __slots__ = ("body", "method", "params", "request_id")

    def __init__(
        self, body: bytes, method: str | None, request_id: RequestId | None, params: Any
    ) -> None:
        self.body, self.method, self.request_id, self.params = body, method, request_id, params


def outgoing(wrapped: JSONRPCMessage) -> Outgoing:
    """The body and parts of a message the session wrote (``SessionMessage.message``), encoded
    as the SDK's transport of this line encodes it (``line.DUMP_OPTIONS``)."""
    message = unwrap(wrapped)
    body = message.model_dump_json(**DUMP_OPTIONS).encode("utf-8")
    if isinstance(message, JSONRPCRequest):
        return Outgoing(body, message.method, message.id, message.params)
    if isinstance(message, JSONRPCNotification):
        return Outgoing(body, message.method, None, message.params)
    return Outgoing(body, None, message.id, None)


def answer_payload(wrapped: JSONRPCMessage) -> dict[str, Any]:
    """The ``result`` or ``error`` member of the session's answer to a server request
    (``SessionMessage.message``)."""
    message = unwrap(wrapped)
    if isinstance(message, JSONRPCError):
        return {"error": message.error.model_dump(by_alias=True, mode="json", exclude_unset=True)}
    assert isinstance(message, JSONRPCResponse)
    return {"result": message.result}
