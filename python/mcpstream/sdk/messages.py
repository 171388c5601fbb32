"""The SDK's messages to and from mcpstream's: ``SessionMessage`` built from the codec's decoded
messages, the bytes POSTed for the session's messages, and the JSON-RPC errors that stand for
the transport's failures.

The codec has checked the JSON-RPC envelope already (an ``id`` of int or str, a ``method`` of
str, an error's int ``code`` and str ``message``, exactly one of ``result`` and ``error``), so a
message whose members also have the types the SDK's models declare (a ``result`` and ``params``
of dict) is built without pydantic (``model_construct``), with the guarantees
``jsonrpc_message_adapter`` gives; any other goes through ``model_validate``, which raises the
SDK's own ``ValidationError`` for it. ``validate=True`` validates every message with pydantic.
"""

from __future__ import annotations

import logging
from typing import Any

from mcp.shared.message import SessionMessage
from mcp_types import (
    CONNECTION_CLOSED,
    INTERNAL_ERROR,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    REQUEST_TIMEOUT,
    ErrorData,
    JSONRPCError,
    JSONRPCMessage,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
    RequestId,
)
from pydantic import ValidationError

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

__all__ = [
    "Outgoing",
    "error_message",
    "failure_message",
    "notification_message",
    "outgoing",
    "request_message",
    "response_message",
]

_MESSAGE_LIMIT = 2000
logger = logging.getLogger("mcpstream.sdk")


def response_message(
    response: JsonRpcResponse, request_id: RequestId, *, validate: bool
) -> SessionMessage:
    """The session's message for the ``response`` to its request ``request_id`` (the id the
    session used, as the SDK's transport does). A result the SDK's models refuse (not an
    object) becomes the parse error the SDK's transport answers with."""
    error = response.error
    try:
        if error is not None:
            return SessionMessage(_error(request_id, error, validate=validate))
        result = response.result
        if not validate and type(result) is dict:
            return SessionMessage(
                JSONRPCResponse.model_construct(jsonrpc="2.0", id=request_id, result=result)
            )
        return SessionMessage(
            JSONRPCResponse.model_validate({"jsonrpc": "2.0", "id": request_id, "result": result})
        )
    except ValidationError as exc:
        return error_message(request_id, PARSE_ERROR, f"Failed to parse the response: {exc}")


def _error(request_id: RequestId | None, error: dict[str, Any], *, validate: bool) -> JSONRPCError:
    if validate:
        return JSONRPCError.model_validate({"jsonrpc": "2.0", "id": request_id, "error": error})
    data = ErrorData.model_construct(**error) if set(error) <= {"code", "message", "data"} else None
    if data is None:  # members the model does not declare: pydantic decides
        return JSONRPCError.model_validate({"jsonrpc": "2.0", "id": request_id, "error": error})
    return JSONRPCError.model_construct(jsonrpc="2.0", id=request_id, error=data)


def notification_message(
    notification: JsonRpcNotification, *, validate: bool
) -> SessionMessage | ValidationError:
    """The session's message for a server notification, or the ``ValidationError`` the SDK's
    transport hands the session for one its models refuse (``params`` not an object)."""
    params = notification.params
    try:
        if not validate and (params is None or type(params) is dict):
            built: JSONRPCMessage = JSONRPCNotification.model_construct(
                jsonrpc="2.0", method=notification.method, **_params(params)
            )
        else:
            built = JSONRPCNotification.model_validate(
                {"jsonrpc": "2.0", "method": notification.method, **_params(params)}
            )
    except ValidationError as exc:
        return exc
    return SessionMessage(built)


def request_message(request: JsonRpcRequest, *, validate: bool) -> SessionMessage | ValidationError:
    """The session's message for a server-initiated request (or the ``ValidationError`` for one
    the SDK's models refuse)."""
    params = request.params
    try:
        if not validate and (params is None or type(params) is dict):
            built: JSONRPCMessage = JSONRPCRequest.model_construct(
                jsonrpc="2.0", id=request.id, method=request.method, **_params(params)
            )
        else:
            built = JSONRPCRequest.model_validate(
                {"jsonrpc": "2.0", "id": request.id, "method": request.method, **_params(params)}
            )
    except ValidationError as exc:
        return exc
    return SessionMessage(built)


def _params(params: Any) -> dict[str, Any]:
    # Absent params stay unset, as pydantic leaves them (a dump with exclude_unset omits them).
    return {} if params is None else {"params": params}


def error_message(request_id: RequestId, code: int, message: str) -> SessionMessage:
    """A JSON-RPC error for the session's request ``request_id``."""
    error = ErrorData(code=code, message=message)
    return SessionMessage(JSONRPCError(jsonrpc="2.0", id=request_id, error=error))


def failure_message(request_id: RequestId, exc: McpTransportError) -> SessionMessage:
    """The JSON-RPC error that tells the session its request ``request_id`` failed with
    ``exc``, coded as the SDK's transport codes the same failure: an expired session is
    ``INVALID_REQUEST`` "Session terminated" (the SDK's words alone; mcpstream's message is
    logged), a message past the byte cap
    ``CONNECTION_CLOSED`` (the SDK's "SSE stream failed"), a 404 without a session
    ``METHOD_NOT_FOUND``, a 2xx without a response or a redirect ``INVALID_REQUEST``, another
    HTTP status ``INTERNAL_ERROR``, a timeout ``REQUEST_TIMEOUT``, an answer that is not
    JSON-RPC ``PARSE_ERROR``, and a connection lost ``CONNECTION_CLOSED``. The message is
    mcpstream's (secrets redacted) and ``data`` names the ``mcpstream.errors`` class, but for
    an expired session."""
    text = sanitize(exc, _MESSAGE_LIMIT)
    status = exc.status_code if isinstance(exc, McpHttpTransportError) else None
    if isinstance(exc, McpHttpTransportSessionExpiredError):
        # The SDK's own signal, word for word: a host may test for it.
        logger.info("%s", text)
        return error_message(request_id, INVALID_REQUEST, "Session terminated")
    elif isinstance(exc, McpHttpTransportResponseTooLargeError):
        code, text = CONNECTION_CLOSED, f"SSE stream failed: {text}"  # the SDK's words
    elif status == 404:
        code = METHOD_NOT_FOUND
    elif status is not None and status < 400:
        code = INVALID_REQUEST  # a 202 to a request, a redirect not followed
    elif status is not None:
        code = INTERNAL_ERROR
    elif isinstance(exc, McpHttpTransportTimeoutError):
        code = REQUEST_TIMEOUT
    elif isinstance(exc, McpHttpTransportProtocolError):
        code = PARSE_ERROR
    else:
        code = CONNECTION_CLOSED
    error = ErrorData(code=code, message=text, data={"mcpstream_error": type(exc).__name__})
    return SessionMessage(JSONRPCError(jsonrpc="2.0", id=request_id, error=error))


class Outgoing:
    """One message of the session, as the transport carries it: the POST body, and what the
    relay rules need (``method`` None for an answer, ``request_id`` None for a notification)."""

    __slots__ = ("body", "method", "params", "request_id")

    def __init__(
        self, body: bytes, method: str | None, request_id: RequestId | None, params: Any
    ) -> None:
        self.body, self.method, self.request_id, self.params = body, method, request_id, params


def outgoing(message: JSONRPCMessage) -> Outgoing:
    """The body and parts of a message the session wrote (encoded as the SDK's transport
    encodes it: by alias, unset members left out)."""
    body = message.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8")
    if isinstance(message, JSONRPCRequest):
        return Outgoing(body, message.method, message.id, message.params)
    if isinstance(message, JSONRPCNotification):
        return Outgoing(body, message.method, None, message.params)
    return Outgoing(body, None, message.id, None)


def answer_payload(message: JSONRPCMessage) -> dict[str, Any]:
    """The ``result`` or ``error`` member of the session's answer to a server request."""
    if isinstance(message, JSONRPCError):
        return {"error": message.error.model_dump(by_alias=True, mode="json", exclude_unset=True)}
    assert isinstance(message, JSONRPCResponse)
    return {"result": message.result}
