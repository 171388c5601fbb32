"""Both transports against a real MCP server: the official SDK's, in SSE mode and JSON mode."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest
from mcpstream.errors import (
    McpHttpTransportProtocolError,
    McpHttpTransportSessionExpiredError,
    McpHttpTransportTimeoutError,
)
from mcpstream.server_requests import McpServerRequestHandlerError

from .helpers import ScriptedHandler, call_tool, initialize, tool_text

MODES = ["sse", "json"]


def wait_until(predicate: Any, timeout_s: float = 5.0) -> None:
    """Poll ``predicate`` until it is true; fail after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.01)


@pytest.mark.parametrize("mode", MODES)
def test_initialize_negotiates_a_session_and_a_tool_call_echoes(
    make_transport: Any, mcp_server_urls: dict[str, str], mode: str
) -> None:
    transport = make_transport(mcp_server_urls[mode])
    result = initialize(transport)
    assert result["protocolVersion"] == "2025-11-25"
    assert transport.session_negotiated
    assert transport.negotiated_protocol_version == "2025-11-25"
    text = "h\u00e9llo \u2028 w\u00f6rld \U0001f600"
    assert tool_text(call_tool(transport, "echo", {"text": text})) == text


@pytest.mark.parametrize("size", [3_000_000, 16 * 1024 * 1024])
@pytest.mark.parametrize("mode", MODES)
def test_a_large_tool_result_arrives_intact_with_the_default_limits(
    make_transport: Any, mcp_server_urls: dict[str, str], mode: str, size: int
) -> None:
    # 16 Mi characters are about 23 MiB of UTF-8, which the SDK repeats in structuredContent.
    transport = make_transport(mcp_server_urls[mode])
    initialize(transport)
    result = call_tool(transport, "big_text", {"size": size}, timeout_s=120)
    text = tool_text(result)
    assert len(text) == size
    assert "\u2028" in text and "\U0001f600" in text
    assert result["structuredContent"]["result"] == text


def test_progress_notifications_are_queued_in_order_before_the_response(
    make_transport: Any, mcp_server_urls: dict[str, str]
) -> None:
    transport = make_transport(mcp_server_urls["sse"])
    initialize(transport)
    transport.drain_notifications()
    result = call_tool(transport, "count", {"steps": 50}, progress_token="tok")
    assert tool_text(result) == "counted 50"
    progress = [
        n.params["progress"]
        for n in transport.drain_notifications()
        if n.method == "notifications/progress"
    ]
    assert progress == list(range(1, 51))
    assert transport.drain_notifications() == ()


def test_an_elicitation_is_answered_through_the_handler(
    make_transport: Any, mcp_server_urls: dict[str, str]
) -> None:
    handler = ScriptedHandler(
        {"elicitation/create": {"action": "accept", "content": {"name": "Ada"}}}
    )
    transport = make_transport(mcp_server_urls["sse"], server_request_handler=handler)
    initialize(transport)
    assert tool_text(call_tool(transport, "ask_name")) == "hello Ada"
    [(method, _, params)] = handler.calls
    assert method == "elicitation/create"
    assert params["message"] == "What is your name?"
    assert handler.contexts[0].server_id == "test"


def test_an_elicitation_handler_error_is_sent_to_the_server_and_fails_the_call(
    make_transport: Any, mcp_server_urls: dict[str, str]
) -> None:
    handler = ScriptedHandler({"elicitation/create": McpServerRequestHandlerError(-32000, "nope")})
    transport = make_transport(mcp_server_urls["sse"], server_request_handler=handler)
    initialize(transport)
    with pytest.raises(McpHttpTransportProtocolError, match="elicitation/create"):
        transport.request(
            method="tools/call", params={"name": "ask_name", "arguments": {}}, timeout_s=10
        )
    # The session is still usable afterwards.
    assert tool_text(call_tool(transport, "echo", {"text": "still here"})) == "still here"


def test_an_elicitation_without_a_handler_is_refused_clearly(
    make_transport: Any, mcp_server_urls: dict[str, str]
) -> None:
    transport = make_transport(mcp_server_urls["sse"])
    initialize(transport)
    with pytest.raises(McpHttpTransportProtocolError, match="no handler for server requests"):
        transport.request(
            method="tools/call", params={"name": "ask_name", "arguments": {}}, timeout_s=10
        )


@pytest.mark.parametrize("mode", MODES)
def test_the_get_stream_delivers_notifications_and_server_requests(
    make_transport: Any, mcp_server_urls: dict[str, str], mode: str
) -> None:
    handler = ScriptedHandler({"ping": {}})
    transport = make_transport(mcp_server_urls[mode], server_request_handler=handler)
    initialize(transport)
    wait_until(lambda: transport.listening)
    assert tool_text(call_tool(transport, "poke")) == "poked"
    assert [call[0] for call in handler.calls] == ["ping"]
    wait_until(
        lambda: any(
            n.method == "notifications/tools/list_changed" for n in transport.drain_notifications()
        )
    )


def test_a_stream_closed_before_the_response_is_resumed_with_last_event_id(
    make_transport: Any, mcp_server_urls: dict[str, str]
) -> None:
    transport = make_transport(mcp_server_urls["sse"])
    initialize(transport)
    transport.drain_notifications()
    result = call_tool(transport, "resumable", progress_token="resume")
    assert tool_text(result) == "resumed"
    messages = [n.params.get("message") for n in transport.drain_notifications()]
    assert messages == ["before the break", "after the break"]


@pytest.mark.parametrize("mode", MODES)
def test_a_call_times_out_end_to_end(
    make_transport: Any, mcp_server_urls: dict[str, str], mode: str
) -> None:
    transport = make_transport(mcp_server_urls[mode])
    initialize(transport)
    started = time.monotonic()
    with pytest.raises(McpHttpTransportTimeoutError):
        transport.request(
            method="tools/call",
            params={"name": "sleep", "arguments": {"seconds": 5}},
            timeout_s=0.5,
        )
    assert time.monotonic() - started < 2.0


@pytest.mark.parametrize("mode", MODES)
def test_close_deletes_the_session_on_the_server(
    make_transport: Any, mcp_server_urls: dict[str, str], mode: str
) -> None:
    transport = make_transport(mcp_server_urls[mode])
    initialize(transport)
    session_id = transport._protocol.session_id
    transport.close()
    answer = httpx.post(
        mcp_server_urls[mode],
        headers={
            "MCP-Session-Id": session_id,
            "MCP-Protocol-Version": "2025-11-25",
            "Accept": "application/json, text/event-stream",
        },
        json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
    )
    assert answer.status_code == 404


def test_a_session_deleted_by_someone_else_is_reported_as_expired(
    make_transport: Any, mcp_server_urls: dict[str, str]
) -> None:
    transport = make_transport(mcp_server_urls["json"])
    initialize(transport)
    httpx.delete(
        mcp_server_urls["json"],
        headers={
            "MCP-Session-Id": transport._protocol.session_id,
            "MCP-Protocol-Version": "2025-11-25",
        },
    )
    with pytest.raises(McpHttpTransportSessionExpiredError):
        transport.request(method="ping", params=None, timeout_s=5)
    transport.reset_session_state()
    assert not transport.session_negotiated
    initialize(transport)
    assert transport.request(method="ping", params=None, timeout_s=5).result == {}
