"""``mcpstream.sdk`` against the hostile server (what no real server does): every refused
answer reaches the session as a JSON-RPC error or as the SDK's ``ValidationError`` item, the
session goes on, nothing hangs, and no secret is in what it is told."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import mcp_types as types
import pytest
from mcp import ClientSession, MCPError
from mcpstream.codec import DEFAULT_MAX_EVENT_BYTES
from mcpstream.sdk import streamable_http_client
from pydantic import ValidationError

from tests.hostile.server import Connection, chunked, gzip_bomb, response_head, sse_event

from .conftest import run

SECRET = "sk-live-0123456789abcdef0123"
INITIALIZE = {
    "protocolVersion": "2025-11-25",
    "capabilities": {"tools": {}},
    "serverInfo": {"name": "hostile", "version": "1"},
}


def _server(on_call: Any, with_session: bool = False) -> Any:
    """A route answering the handshake as a server does, and each ``tools/call`` with
    ``on_call(connection, request_id)``."""

    def route(connection: Connection) -> None:
        if connection.method != "POST":
            connection.respond(b"", status="405 Method Not Allowed", content_type="text/plain")
            return
        message = connection.jsonrpc
        if "id" not in message:
            connection.respond(b"", status="202 Accepted", content_type="text/plain")
        elif message["method"] == "initialize":
            session = {"MCP-Session-Id": "s-1"} if with_session else {}
            answer = {"jsonrpc": "2.0", "id": message["id"], "result": INITIALIZE}
            connection.json(answer, headers=session)
        elif message["method"] == "tools/list":
            tools = [{"name": name, "inputSchema": {"type": "object"}} for name in ("bad", "echo")]
            connection.json({"jsonrpc": "2.0", "id": message["id"], "result": {"tools": tools}})
        elif message.get("params", {}).get("name") == "echo":
            text = {"content": [{"type": "text", "text": "fine"}]}
            connection.json({"jsonrpc": "2.0", "id": message["id"], "result": text})
        else:
            on_call(connection, message["id"])

    return route


def _session(url: str, **options: Any) -> Any:
    async def main(seen: list[Any]) -> tuple[Any, str]:
        async def on_message(message: Any) -> None:
            seen.append(message)

        async with (
            streamable_http_client(url, **options) as (read, write),
            ClientSession(read, write, message_handler=on_message) as session,
        ):
            await session.initialize()
            try:
                outcome: Any = await session.call_tool("bad", {})
            except MCPError as exc:
                outcome = exc
            echoed = await session.call_tool("echo", {})
            text = echoed.content[0]
            assert isinstance(text, types.TextContent)
            return outcome, text.text

    return main


def _call(
    hostile: Any, on_call: Any, with_session: bool = False, **options: Any
) -> tuple[Any, list[Any]]:
    server = hostile({"/mcp": _server(on_call, with_session)})
    seen: list[Any] = []
    outcome, after = run(_session(server.url + "/mcp", **options)(seen), 30)
    assert after == "fine"  # the session goes on
    return outcome, seen


def _sse(connection: Connection, *events: bytes) -> None:
    connection.stream_head()
    for event in events:
        connection.send(event)
    connection.end()


def test_a_500_is_an_internal_error_without_the_secret(hostile: Any) -> None:
    def on_call(connection: Connection, request_id: Any) -> None:
        echoed = connection.headers.get("authorization", "").encode()
        connection.respond(b"boom " + echoed, status="500 Oops", content_type="text/plain")

    outcome, _ = _call(hostile, on_call, headers={"Authorization": f"Bearer {SECRET}"})
    assert isinstance(outcome, MCPError) and outcome.error.code == types.INTERNAL_ERROR
    assert SECRET not in outcome.error.message and "500" in outcome.error.message


def test_malformed_json_on_the_stream_is_a_parse_error(hostile: Any) -> None:
    def on_call(connection: Connection, request_id: Any) -> None:
        _sse(connection, b'data: {"jsonrpc": "2.0", "id": \n\n')

    outcome, _ = _call(hostile, on_call)
    assert isinstance(outcome, MCPError) and outcome.error.code == types.PARSE_ERROR


def test_a_result_that_is_no_object_is_a_parse_error(hostile: Any) -> None:
    def on_call(connection: Connection, request_id: Any) -> None:
        connection.json({"jsonrpc": "2.0", "id": request_id, "result": [1, 2]})

    outcome, _ = _call(hostile, on_call)
    assert isinstance(outcome, MCPError) and outcome.error.code == types.PARSE_ERROR


def test_a_notification_the_sdk_refuses_is_its_validation_error_item(hostile: Any) -> None:
    def on_call(connection: Connection, request_id: Any) -> None:
        bad = {"jsonrpc": "2.0", "method": "notifications/message", "params": [1]}
        done = {"jsonrpc": "2.0", "id": request_id, "result": {"content": []}}
        _sse(connection, sse_event(bad), sse_event(done))

    outcome, seen = _call(hostile, on_call)
    assert isinstance(outcome, types.CallToolResult)
    assert any(isinstance(item, ValidationError) for item in seen)


def test_a_gzip_bomb_is_refused_within_the_json_budget(hostile: Any) -> None:
    # A JSON body is not capped by the event cap (as in the SDK) but by mcpstream's own
    # budget, 64 MiB: a bomb inflating past it is refused.
    def on_call(connection: Connection, request_id: Any) -> None:
        prefix = json.dumps({"jsonrpc": "2.0", "id": request_id}).encode()
        body = gzip_bomb(DEFAULT_MAX_EVENT_BYTES + (1 << 20), prefix=prefix)
        head = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
        head["Content-Length"] = str(len(body))
        connection.send(response_head("200 OK", head) + body)

    outcome, _ = _call(hostile, on_call, max_sse_event_size=1 << 20)
    assert isinstance(outcome, MCPError)
    assert outcome.error.data == {"mcpstream_error": "McpHttpTransportResponseTooLargeError"}
    assert str(DEFAULT_MAX_EVENT_BYTES) in outcome.error.message


def test_an_event_past_the_cap_is_refused(hostile: Any) -> None:
    def on_call(connection: Connection, request_id: Any) -> None:
        connection.send(
            response_head(
                "200 OK", {"Content-Type": "text/event-stream", "Transfer-Encoding": "chunked"}
            )
            + chunked(b"data: " + b"x" * (300 << 10) + b"\n\n")
        )

    outcome, _ = _call(hostile, on_call, max_sse_event_size=256 << 10)
    assert isinstance(outcome, MCPError)
    assert outcome.error.data == {"mcpstream_error": "McpHttpTransportResponseTooLargeError"}


@pytest.mark.parametrize("trickle", [False, True])
def test_a_silent_or_trickling_server_times_out(hostile: Any, trickle: bool) -> None:
    def on_call(connection: Connection, request_id: Any) -> None:
        if trickle:
            connection.trickle(b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 200, every_s=0.05)
        else:
            connection.stream_head()
            connection.send(b": keep-alive\n\n")
            import time

            time.sleep(3)

    outcome, _ = _call(hostile, on_call, call_timeout_s=1.0)
    assert isinstance(outcome, MCPError) and outcome.error.code == types.REQUEST_TIMEOUT


def test_a_404_without_a_json_rpc_error_in_a_session_is_session_terminated(hostile: Any) -> None:
    def on_call(connection: Connection, request_id: Any) -> None:
        assert connection.headers["mcp-session-id"] == "s-1"
        connection.respond(b"gone", status="404 Not Found", content_type="text/plain")

    outcome, _ = _call(hostile, on_call, with_session=True)
    assert isinstance(outcome, MCPError)
    assert outcome.error == types.ErrorData(
        code=types.INVALID_REQUEST, message="Session terminated"
    )


class _Bearer(httpx2.Auth):
    """A host's ``httpx2`` auth flow (what the SDK's ``OAuthClientProvider`` is): a token, and
    a new one after a 401."""

    def __init__(self) -> None:
        self.token = "first"

    async def async_auth_flow(self, request: httpx2.Request) -> Any:
        request.headers["Authorization"] = f"Bearer {self.token}"
        response = yield request
        if response.status_code == 401:
            self.token = "second"
            request.headers["Authorization"] = f"Bearer {self.token}"
            yield request


def test_a_host_httpx2_clients_auth_flow_is_used(hostile: Any) -> None:
    seen: list[str] = []

    def on_call(connection: Connection, request_id: Any) -> None:
        seen.append(connection.headers.get("authorization", ""))
        if seen[-1] != "Bearer second":
            connection.respond(b"{}", status="401 Unauthorized")
            return
        text = {"content": [{"type": "text", "text": "authorized"}]}
        connection.json({"jsonrpc": "2.0", "id": request_id, "result": text})

    async def main() -> tuple[Any, list[Any]]:
        async with httpx2.AsyncClient(auth=_Bearer()) as client:
            server = hostile({"/mcp": _server(on_call)})
            box: list[Any] = []
            outcome = await _session(server.url + "/mcp", http_client=client)(box)
            return outcome, box

    (outcome, after), _ = run(main(), 30)
    assert after == "fine"
    assert isinstance(outcome, types.CallToolResult)
    assert seen == ["Bearer first", "Bearer second"]
