"""``mcpstream.sdk.line`` on the 2.x line this environment has (the 1.x line's values are run by
the SDK 1.x's own tests over mcpstream: scripts/sdk-peer-tests.sh with MCP_VERSION=1.30.0)."""

from __future__ import annotations

from importlib.metadata import version

import mcp_types
from mcp.shared.message import ClientMessageMetadata
from mcpstream.sdk import line
from mcpstream.sdk.messages import outgoing


def test_the_line_is_read_from_the_installed_sdk() -> None:
    assert line.MAJOR == int(version("mcp").split(".")[0]) == 2
    assert line.JSONRPCRequest is mcp_types.JSONRPCRequest
    assert line.REQUEST_TIMEOUT == mcp_types.REQUEST_TIMEOUT
    assert line.SESSION_TERMINATED_CODE == mcp_types.INVALID_REQUEST
    assert line.ERROR_BODIES_ANSWER and not line.NOT_FOUND_TERMINATES
    assert not line.TRANSPORT_SETS_PROTOCOL_VERSION


def test_messages_are_not_wrapped_on_2x_and_are_encoded_as_the_sdk_encodes_them() -> None:
    request = mcp_types.JSONRPCRequest(jsonrpc="2.0", id=7, method="tools/list")
    assert line.wrap(request) is request and line.unwrap(request) is request
    out = outgoing(request)
    # Unset members (params) left out, as the SDK's 2.x transport sends it.
    assert out.body == b'{"jsonrpc":"2.0","id":7,"method":"tools/list"}'
    assert (out.method, out.request_id) == ("tools/list", 7)


def test_per_message_headers_are_read_where_the_line_has_them() -> None:
    metadata = ClientMessageMetadata(headers={"X-Trace": "1"})
    assert line.message_headers(metadata) == {"X-Trace": "1"}
    assert line.message_headers(None) is None
