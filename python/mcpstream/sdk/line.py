"""What differs between the SDK's release lines, looked up here once: the 2.x line (``mcp`` 2.x,
its types in the ``mcp_types`` distribution, on httpx2) and the 1.x line (``mcp`` 1.24 to 1.30,
its types in ``mcp.types``, on httpx).

The rest of ``mcpstream.sdk`` is written once against these names:

* the JSON-RPC models and error codes (``JSONRPCRequest`` ... ``REQUEST_TIMEOUT``);
* ``wrap`` / ``unwrap``: a session's ``SessionMessage.message`` is the model itself on 2.x and a
  ``JSONRPCMessage`` root model around it on 1.x;
* ``message_headers``: per-message HTTP headers (``ClientMessageMetadata.headers``, 2.x only);
* ``DUMP_OPTIONS``: how the SDK's transport encodes a message it POSTs;
* ``ERROR_BODIES_ANSWER``: whether a non-2xx answer's JSON-RPC error is the request's response
  (2.x reads it; 1.x does not);
* ``SESSION_TERMINATED_CODE``: the code of the SDK's "Session terminated" error, and
  ``NOT_FOUND_TERMINATES``: whether every 404 to a request is that error (1.x), or only one on
  a session the transport holds (2.x: without one, a 404 is ``METHOD_NOT_FOUND``);
* ``FAILED_POST_STATUS_ENDS``: whether an HTTP error status (but 404) to a POSTed
  notification or answer ends the transport (1.x raises it out of its writer; 2.x drops it);
* ``TRANSPORT_SETS_PROTOCOL_VERSION``: whether the transport itself takes the negotiated
  protocol version from the answer to ``initialize`` for its ``MCP-Protocol-Version`` header
  (1.x; on 2.x the session sends it with each message's headers);
* ``MAJOR``: 2 or 1, for the transport's shape (2.x yields ``(read, write)``, 1.x
  ``(read, write, get_session_id)``).
"""

from __future__ import annotations

from importlib.metadata import version
from typing import TYPE_CHECKING, Any

__all__ = [
    "CONNECTION_CLOSED",
    "DUMP_OPTIONS",
    "ERROR_BODIES_ANSWER",
    "FAILED_POST_STATUS_ENDS",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "MAJOR",
    "METHOD_NOT_FOUND",
    "NOT_FOUND_TERMINATES",
    "PARSE_ERROR",
    "REQUEST_TIMEOUT",
    "SESSION_TERMINATED_CODE",
    "TRANSPORT_SETS_PROTOCOL_VERSION",
    "ErrorData",
    "JSONRPCError",
    "JSONRPCMessage",
    "JSONRPCNotification",
    "JSONRPCRequest",
    "JSONRPCResponse",
    "RequestId",
    "message_headers",
    "unwrap",
    "wrap",
]

MAJOR = 1 if version("mcp").startswith("1.") else 2
"""The SDK's major version: 2 for ``mcp`` 2.x, 1 for 1.24-1.30."""

if TYPE_CHECKING or MAJOR == 2:
    from mcp_types import (
        CONNECTION_CLOSED,
        INTERNAL_ERROR,
        INVALID_PARAMS,
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

    DUMP_OPTIONS: dict[str, Any] = {"by_alias": True, "exclude_unset": True}
    ERROR_BODIES_ANSWER = True
    # 2.x's writer returns on a status >= 400 to anything but a request
    # (mcp/client/streamable_http.py, _handle_post_request).
    FAILED_POST_STATUS_ENDS = False
    SESSION_TERMINATED_CODE = INVALID_REQUEST
    NOT_FOUND_TERMINATES = False
    TRANSPORT_SETS_PROTOCOL_VERSION = False

    def wrap(model: JSONRPCMessage) -> JSONRPCMessage:
        """``SessionMessage.message`` for ``model`` (2.x: the model itself)."""
        return model

    def unwrap(message: JSONRPCMessage) -> JSONRPCMessage:
        """The request, notification, response or error model in ``SessionMessage.message``."""
        return message

else:  # pragma: no cover - run by the 1.x environment (scripts/sdk-peer-tests.sh)
    from mcp.types import (
        CONNECTION_CLOSED,
        INTERNAL_ERROR,
        INVALID_PARAMS,
        INVALID_REQUEST,
        METHOD_NOT_FOUND,
        PARSE_ERROR,
        ErrorData,
        JSONRPCError,
        JSONRPCMessage,
        JSONRPCNotification,
        JSONRPCRequest,
        JSONRPCResponse,
        RequestId,
    )

    # 1.x defines no code for a timed-out request; 2.x's (and the TypeScript SDK's) is -32001.
    REQUEST_TIMEOUT = -32001
    # The 1.x transport encodes with model_dump(mode="json", exclude_none=True).
    DUMP_OPTIONS = {"by_alias": True, "exclude_none": True}
    ERROR_BODIES_ANSWER = False
    # 1.x's writer returns on a 404 and calls raise_for_status() after it, which ends the
    # writer (its post_writer) for any other status outside 2xx.
    FAILED_POST_STATUS_ENDS = True
    # The 1.x transport's code, positive as it sends it (INVALID_REQUEST is -32600).
    SESSION_TERMINATED_CODE = 32600
    NOT_FOUND_TERMINATES = True
    TRANSPORT_SETS_PROTOCOL_VERSION = True

    def wrap(model: Any) -> Any:
        """``SessionMessage.message`` for ``model`` (1.x: a ``JSONRPCMessage`` root model)."""
        return JSONRPCMessage(model)

    def unwrap(message: Any) -> Any:
        """The request, notification, response or error model in ``SessionMessage.message``."""
        return message.root


def message_headers(metadata: object) -> dict[str, str] | None:
    """The per-message HTTP headers a session attached to a message (``ClientMessageMetadata``
    has them on 2.x; 1.x has none)."""
    headers: dict[str, str] | None = getattr(metadata, "headers", None)
    return headers
