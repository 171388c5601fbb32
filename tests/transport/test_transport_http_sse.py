"""The HTTP+SSE transport of 2024-11-05 (``mcpstream._http.core.sse_legacy``) against the
official SDK's ``sse_app`` under uvicorn, with the drop-in transports (sync and async; the
suite runs once per codec backend): the fallback from the refused ``initialize`` POST, tools,
progress, a server request answered, notifications, and the end of the stream.

The hostile cases (a cross-origin, oversized or missing ``endpoint`` event, a stream that ends
under a waiting call) are in ``tests/hostile/test_http_sse_hostile.py``; the high-level clients
and the negotiation cache in ``tests/client/test_http_sse_client.py``.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import httpx
import pytest
from legacy_server import ts_sdk_2024_server
from mcpstream._http.core.sse_legacy import NEGOTIATED
from mcpstream.errors import McpHttpTransportError, McpHttpTransportProtocolError

from .helpers import ScriptedHandler, call_tool, initialize, open_sockets_to, tool_text


def stats(base: str) -> dict[str, int]:
    """The requests the SDK server saw so far, by method and path."""
    counts: dict[str, int] = httpx.get(f"{base}/stats", timeout=5).json()
    return counts


def test_a_real_2024_11_05_server_is_reached(make_transport: Any) -> None:
    """The TypeScript SDK 1.0.4, whose newest protocol is 2024-11-05, answers with it."""
    with ts_sdk_2024_server() as url:
        transport = make_transport(url)
        result = initialize(transport)
        assert result["protocolVersion"] == "2024-11-05"
        assert transport.http_sse
        assert tool_text(call_tool(transport, "add", {"a": 1, "b": 2})) == "3"
        transport.close()


def test_a_refused_initialize_post_falls_back_to_the_http_sse_transport(
    make_transport: Any, http_sse_server: str
) -> None:
    before = stats(http_sse_server)
    transport = make_transport(f"{http_sse_server}/sse")
    result = initialize(transport)
    assert result["serverInfo"]["name"] == "mcpstream-test-server"
    assert transport.http_sse
    assert transport.listening  # the one stream carries every answer
    assert tool_text(call_tool(transport, "echo", {"text": "over sse"})) == "over sse"
    after = stats(http_sse_server)
    # The spec's order: the initialize POST (405 here), then the GET; every message after it
    # goes to the endpoint (/messages/): initialize, initialized, the call.
    assert after.get("POST /sse", 0) - before.get("POST /sse", 0) == 1
    assert after["GET /sse"] - before.get("GET /sse", 0) == 1
    assert after["POST /messages/"] - before.get("POST /messages/", 0) == 3


def test_progress_notifications_come_before_the_result(
    make_transport: Any, http_sse_server: str
) -> None:
    transport = make_transport(f"{http_sse_server}/sse")
    initialize(transport)
    transport.drain_notifications()
    response = transport.request(
        method="tools/call",
        params={"name": "count", "arguments": {"steps": 3}, "_meta": {"progressToken": "p"}},
        timeout_s=10,
    )
    assert response.error is None
    progress = [
        n.params["progress"]
        for n in transport.drain_notifications()
        if n.method == "notifications/progress"
    ]
    assert progress == [1, 2, 3]


def test_an_elicitation_is_answered_on_the_endpoint(
    make_transport: Any, http_sse_server: str
) -> None:
    handler = ScriptedHandler(
        {"elicitation/create": {"action": "accept", "content": {"name": "Ada"}}}
    )
    transport = make_transport(f"{http_sse_server}/sse", server_request_handler=handler)
    initialize(transport)
    assert tool_text(call_tool(transport, "ask_name")) == "hello Ada"
    [(method, _, params)] = handler.calls
    assert method == "elicitation/create"
    assert params["message"] == "What is your name?"


def test_notifications_and_a_ping_of_the_server_on_the_stream(
    make_transport: Any, http_sse_server: str
) -> None:
    handler = ScriptedHandler({"ping": {}})
    transport = make_transport(f"{http_sse_server}/sse", server_request_handler=handler)
    initialize(transport)
    assert tool_text(call_tool(transport, "poke")) == "poked"
    deadline = time.monotonic() + 10
    while not handler.calls and time.monotonic() < deadline:
        time.sleep(0.02)
    assert [call[0] for call in handler.calls] == ["ping"]
    methods = [n.method for n in transport.drain_notifications()]
    assert "notifications/tools/list_changed" in methods


def test_without_a_handler_a_server_request_is_refused_and_the_call_goes_on(
    make_transport: Any, http_sse_server: str
) -> None:
    transport = make_transport(f"{http_sse_server}/sse")
    initialize(transport)
    # The server gets -32601 for its elicitation; its tool then fails, and says so.
    response = transport.request(
        method="tools/call", params={"name": "ask_name", "arguments": {}}, timeout_s=10
    )
    result = response.result or {}
    assert response.error is not None or result.get("isError") is True
    assert tool_text(call_tool(transport, "echo", {"text": "still here"})) == "still here"


def test_concurrent_calls_are_matched_by_id(make_transport: Any, http_sse_server: str) -> None:
    transport = make_transport(f"{http_sse_server}/sse")
    initialize(transport)
    texts: dict[int, str] = {}

    def call(index: int) -> None:
        texts[index] = tool_text(call_tool(transport, "echo", {"text": f"call {index}"}))

    threads = [threading.Thread(target=call, args=(index,)) for index in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert texts == {index: f"call {index}" for index in range(6)}


def test_a_call_times_out_and_its_late_response_is_dropped(
    make_transport: Any, http_sse_server: str
) -> None:
    transport = make_transport(f"{http_sse_server}/sse")
    initialize(transport)
    with pytest.raises(McpHttpTransportError, match="did not complete within"):
        transport.request(
            method="tools/call",
            params={"name": "sleep", "arguments": {"seconds": 1.0}},
            timeout_s=0.3,
        )
    time.sleep(1.2)  # its response comes meanwhile, to no waiting call
    assert tool_text(call_tool(transport, "echo", {"text": "next"})) == "next"


def test_closing_wakes_a_waiting_call_and_ends_the_stream(
    make_transport: Any, http_sse_server: str
) -> None:
    transport = make_transport(f"{http_sse_server}/sse", call_timeout_s=30)
    initialize(transport)
    errors: list[BaseException] = []

    def call() -> None:
        try:
            call_tool(transport, "sleep", {"seconds": 20})
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=call)
    thread.start()
    time.sleep(0.5)
    started = time.monotonic()
    transport.close()
    thread.join(15)
    assert not thread.is_alive()
    assert time.monotonic() - started < 10
    [error] = errors
    assert isinstance(error, McpHttpTransportError)
    assert "closed" in str(error)
    assert not transport.listening
    with pytest.raises(McpHttpTransportError, match="closed"):
        call_tool(transport, "echo", {"text": "after close"})


def test_a_server_without_either_transport_is_refused_with_both_reasons(
    make_transport: Any, http_sse_server: str
) -> None:
    # /messages/ answers neither the POST of initialize nor a GET with an event stream.
    transport = make_transport(f"{http_sse_server}/nothing-here")
    with pytest.raises(McpHttpTransportProtocolError) as caught:
        initialize(transport)
    message = str(caught.value)
    assert "no MCP endpoint at this path (check the URL's path: MCP servers usually" in message
    assert "HTTP 404 to the initialize POST and to the GET of an HTTP+SSE stream" in message
    assert "may only speak" not in message  # the old message contradicted itself
    assert not transport.http_sse


def test_transports_opened_and_closed_leave_no_thread_or_connection(
    make_transport: Any, http_sse_server: str, client_stack: str
) -> None:
    # With a host's client (the httpx2 runs), its pool keeps one idle keep-alive connection.
    kept = 1 if client_stack == "httpx2" else 0
    port = int(http_sse_server.rsplit(":", 1)[1])
    for index in range(10):
        transport = make_transport(f"{http_sse_server}/sse")
        initialize(transport)
        assert tool_text(call_tool(transport, "echo", {"text": str(index)})) == str(index)
        with pytest.raises(McpHttpTransportError, match="did not complete"):
            transport.request(
                method="tools/call",
                params={"name": "sleep", "arguments": {"seconds": 2}},
                timeout_s=0.05,
            )
        transport.close()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and (
        open_sockets_to(port) > kept
        or any(t.name.startswith("mcpstream-sse") for t in threading.enumerate())
    ):
        time.sleep(0.05)
    assert [t.name for t in threading.enumerate() if t.name.startswith("mcpstream-sse")] == []
    assert open_sockets_to(port) <= kept


def test_a_second_transport_goes_straight_to_the_stream(
    make_transport: Any, http_sse_server: str
) -> None:
    url = f"{http_sse_server}/sse"
    first = make_transport(url)
    initialize(first)
    before = stats(http_sse_server)
    second = make_transport(url)
    initialize(second)
    assert second.http_sse
    after = stats(http_sse_server)
    assert after.get("POST /sse", 0) == before.get("POST /sse", 0)  # no probe
    assert after["GET /sse"] == before["GET /sse"] + 1
    assert tool_text(call_tool(second, "echo", {"text": "known"})) == "known"


def test_a_stale_cached_entry_is_dropped_and_the_post_tried(
    make_transport: Any, mcp_server_urls: dict[str, str]
) -> None:
    url = mcp_server_urls["json"]  # Streamable HTTP: its GET without a session is refused
    NEGOTIATED.put(url, "http+sse")
    transport = make_transport(url)
    assert initialize(transport)["serverInfo"]["name"] == "mcpstream-test-server"
    assert not transport.http_sse
    assert NEGOTIATED.get(url) is None


def test_the_stream_may_stay_quiet_longer_than_any_timeout_of_the_handshake(
    make_transport: Any, http_sse_server: str
) -> None:
    # The stream carries the session: a read timeout on it (what was left of the handshake's
    # time, 1 s here) would lose the session whenever the server is quiet for longer, as
    # during this 2.5 s call.
    transport = make_transport(f"{http_sse_server}/sse", call_timeout_s=1.0)
    initialize(transport, timeout_s=1.0)
    response = transport.request(
        method="tools/call", params={"name": "sleep", "arguments": {"seconds": 2.5}}, timeout_s=20
    )
    assert response.error is None
    assert tool_text(response.result) == "slept"
    assert tool_text(call_tool(transport, "echo", {"text": "still on"})) == "still on"
