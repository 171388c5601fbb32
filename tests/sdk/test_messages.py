"""``mcpstream.sdk.messages``: the SDK's messages built from the codec's, with and without
pydantic, equal to what the SDK's own ``jsonrpc_message_adapter`` builds; refused shapes as the
SDK refuses them; the transport's failures as JSON-RPC errors; the bytes POSTed."""

from __future__ import annotations

import json
from typing import Any

import httpx
import mcp_types as types
import pytest
from mcp.shared.message import SessionMessage
from mcp_types import jsonrpc_message_adapter
from mcpstream import errors
from mcpstream._http.core.protocol import mark_streaming
from mcpstream.jsonrpc import JsonRpcNotification, JsonRpcRequest, JsonRpcResponse
from mcpstream.sdk.messages import (
    answer_payload,
    ends_transport,
    failure_message,
    notification_message,
    outgoing,
    request_message,
    response_message,
)
from pydantic import ValidationError

RESULTS: list[Any] = [{}, {"content": [{"type": "text", "text": "h\u00e9"}], "isError": False}]


def _sdk(payload: dict[str, Any]) -> Any:
    """What the SDK's transport builds from the same JSON."""
    return jsonrpc_message_adapter.validate_json(json.dumps(payload), by_name=False)


@pytest.mark.parametrize("result", RESULTS)
def test_a_response_equals_the_sdks(result: Any) -> None:
    built = response_message(JsonRpcResponse(id=3, result=result), 3)
    expected = _sdk({"jsonrpc": "2.0", "id": 3, "result": result})
    assert built.message == expected
    assert built.message.model_dump(by_alias=True, exclude_unset=True) == expected.model_dump(
        by_alias=True, exclude_unset=True
    )


def test_an_error_response_equals_the_sdks() -> None:
    error = {"code": -32602, "message": "bad", "data": {"x": [1]}}
    built = response_message(JsonRpcResponse(id="a", error=error), "a")
    assert built.message == _sdk({"jsonrpc": "2.0", "id": "a", "error": error})


@pytest.mark.parametrize("result", [None, [1, 2], "text", 5])
def test_a_result_the_sdk_refuses_is_its_parse_error(result: Any) -> None:
    with pytest.raises(ValidationError):
        _sdk({"jsonrpc": "2.0", "id": 1, "result": result})
    built = response_message(JsonRpcResponse(id=1, result=result), 1)
    assert isinstance(built.message, types.JSONRPCError)
    assert built.message.error.code == types.PARSE_ERROR and built.message.id == 1


@pytest.mark.parametrize("params", [None, {"progressToken": 1, "progress": 0.5}])
def test_a_notification_equals_the_sdks(params: Any) -> None:
    built = notification_message(
        JsonRpcNotification(method="notifications/progress", params=params)
    )
    payload: dict[str, Any] = {"jsonrpc": "2.0", "method": "notifications/progress"}
    if params is not None:
        payload["params"] = params
    assert isinstance(built, SessionMessage)
    assert built.message == _sdk(payload)
    assert built.message.model_dump(exclude_unset=True) == _sdk(payload).model_dump(
        exclude_unset=True
    )


def test_a_notification_the_sdk_refuses_is_its_validation_error() -> None:
    built = notification_message(JsonRpcNotification(method="m", params=[1]))
    assert isinstance(built, ValidationError)
    with pytest.raises(ValidationError):
        _sdk({"jsonrpc": "2.0", "method": "m", "params": [1]})


def test_a_server_request_equals_the_sdks() -> None:
    params = {"message": "name?", "requestedSchema": {"type": "object"}}
    built = request_message(JsonRpcRequest(id=9, method="elicitation/create", params=params))
    assert isinstance(built, SessionMessage)
    expected = {"jsonrpc": "2.0", "id": 9, "method": "elicitation/create", "params": params}
    assert built.message == _sdk(expected)
    refused = request_message(JsonRpcRequest(id=9, method="m", params=[1]))
    assert isinstance(refused, ValidationError)


def _error(exc: errors.McpTransportError) -> types.ErrorData:
    message = failure_message(7, exc).message
    assert isinstance(message, types.JSONRPCError) and message.id == 7
    return message.error


def _with_status(exc: errors.McpHttpTransportError, status: int) -> errors.McpHttpTransportError:
    exc.status_code = status
    return exc


def test_failures_are_coded_as_the_sdks_transport_codes_them() -> None:
    expired = _error(errors.McpHttpTransportSessionExpiredError("gone"))
    assert expired.code == types.INVALID_REQUEST and expired.message == "Session terminated"
    not_found = _error(_with_status(errors.McpHttpTransportProtocolError("404"), 404))
    assert not_found.code == types.METHOD_NOT_FOUND
    remote = _error(_with_status(errors.McpHttpTransportRemoteError("500"), 500))
    assert remote.code == types.INTERNAL_ERROR
    assert _error(errors.McpHttpTransportTimeoutError("late")).code == types.REQUEST_TIMEOUT
    # The client's read timeout on an event stream (not resumed) is the stream broken off.
    stalled = mark_streaming(errors.McpHttpTransportTimeoutError("silent"))
    stalled.__cause__ = httpx.ReadTimeout("read")
    assert _error(stalled).code == types.CONNECTION_CLOSED
    assert _error(errors.McpHttpTransportProtocolError("junk")).code == types.PARSE_ERROR
    lost = _error(errors.McpHttpTransportError("reset"))
    assert lost.code == types.CONNECTION_CLOSED
    assert lost.data == {"mcpstream_error": "McpHttpTransportError"}


def test_a_failed_post_of_a_notification_ends_the_transport_where_the_client_raised() -> None:
    refused = errors.McpHttpTransportError("refused")
    refused.__cause__ = httpx.ConnectError("refused")
    assert ends_transport(refused)
    # 2.x drops an HTTP error to a notification; mcpstream's own failures are only logged.
    assert not ends_transport(_with_status(errors.McpHttpTransportRemoteError("500"), 500))
    assert not ends_transport(errors.McpHttpTransportTimeoutError("deadline"))


def test_outgoing_bytes_are_the_sdks_encoding() -> None:
    request = types.JSONRPCRequest(
        jsonrpc="2.0", id=4, method="tools/call", params={"name": "echo", "arguments": {}}
    )
    carried = outgoing(request)
    sdk = request.model_dump(by_alias=True, mode="json", exclude_unset=True)
    assert json.loads(carried.body) == sdk
    assert (carried.method, carried.request_id) == ("tools/call", 4)
    note = outgoing(types.JSONRPCNotification(jsonrpc="2.0", method="notifications/initialized"))
    assert json.loads(note.body) == {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert note.request_id is None
    answer = outgoing(types.JSONRPCResponse(jsonrpc="2.0", id=5, result={}))
    assert answer.method is None and answer.request_id == 5


def test_answer_payloads() -> None:
    assert answer_payload(types.JSONRPCResponse(jsonrpc="2.0", id=1, result={"a": 1})) == {
        "result": {"a": 1}
    }
    error = types.JSONRPCError(
        jsonrpc="2.0", id=1, error=types.ErrorData(code=-32601, message="no")
    )
    assert answer_payload(error) == {"error": {"code": -32601, "message": "no"}}
