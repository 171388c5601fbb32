"""The SDK 1.x's own session, as every framework of the line drives it: its answer to a server
request whose POST fails, over the SDK's 1.x transport and over mcpstream.sdk, must end the
same way (the 1.x transport raises an HTTP error but 404 out of its writer, which ends it)."""

from __future__ import annotations

import warnings
from typing import Any

import anyio
import pytest
from mcp import ClientSession, types
from mcp.client.streamable_http import streamablehttp_client as sdk_streamablehttp_client
from mcp.shared.context import RequestContext
from mcp.shared.exceptions import McpError
from mcpstream.sdk import streamablehttp_client

from tests.hostile.server import Connection, HostileServer, sse_event

TRANSPORTS: dict[str, Any] = {"sdk": sdk_streamablehttp_client, "mcpstream": streamablehttp_client}

INITIALIZE = {
    "protocolVersion": "2025-06-18",
    "capabilities": {"tools": {}},
    "serverInfo": {"name": "hostile", "version": "1"},
}


def _route(answer_failure: Any) -> Any:
    """A server answering the handshake, ``tools/list`` and ``echo``; any other call asks for
    a name on its stream and stays silent; the POST of the answer meets ``answer_failure``."""

    def route(connection: Connection) -> None:
        message = connection.jsonrpc
        if connection.method != "POST":
            connection.respond(b"", status="405 Method Not Allowed", content_type="text/plain")
        elif "method" not in message:  # the session's answer
            answer_failure(connection)
        elif "id" not in message:
            connection.respond(b"", status="202 Accepted", content_type="text/plain")
        elif message["method"] == "initialize":
            connection.json({"jsonrpc": "2.0", "id": message["id"], "result": INITIALIZE})
        elif message["method"] == "tools/list":  # the 1.x session's, to check a result
            tools = [{"name": name, "inputSchema": {"type": "object"}} for name in ("ask", "echo")]
            connection.json({"jsonrpc": "2.0", "id": message["id"], "result": {"tools": tools}})
        elif message.get("params", {}).get("name") == "echo":
            text = {"content": [{"type": "text", "text": "fine"}]}
            connection.json({"jsonrpc": "2.0", "id": message["id"], "result": text})
        else:
            params = {"message": "What is your name?", "requestedSchema": {"type": "object"}}
            ask = {"jsonrpc": "2.0", "id": 41, "method": "elicitation/create", "params": params}
            if connection.stream_head() and connection.send(sse_event(ask)):
                connection.stopping.wait(8)
            connection.end()

    return route


async def _outcome(factory: Any, url: str, error: bool) -> list[str]:
    """What the session shows of the call that was asked, a call after it, and leaving."""
    seen: list[str] = []

    async def elicited(
        context: RequestContext[Any, Any], params: Any
    ) -> types.ElicitResult | types.ErrorData:
        if error:
            return types.ErrorData(code=types.INVALID_REQUEST, message="no names here")
        return types.ElicitResult(action="accept", content={"name": "Ada"})

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # streamablehttp_client
            transport = factory(url)
        async with (
            transport as (read, write, _),
            ClientSession(read, write, elicitation_callback=elicited) as session,
        ):
            await session.initialize()
            for tool in ("ask", "echo"):
                try:
                    with anyio.fail_after(4):
                        await session.call_tool(tool, {})
                    seen.append("call ok")
                except TimeoutError:
                    seen.append("call waits")
                except McpError as exc:
                    seen.append(f"call McpError({exc.error.code}) {exc.error.message}")
        seen.append("left")
    except Exception as exc:
        seen.append(f"session {type(exc).__name__}")
    return seen


FAILURES: dict[str, Any] = {
    "500": lambda c: c.respond(b"boom", status="500 Oops", content_type="text/plain"),
    "404": lambda c: c.respond(b"gone", status="404 Not Found", content_type="text/plain"),
    "closed without an answer": lambda c: c.end(),
}
CLOSED = f"call McpError({types.CONNECTION_CLOSED}) Connection closed"
EXPECTED = {
    # raise_for_status() out of the writer: the transport ends, and the session's next call
    # meets its closed stream.
    "500": [CLOSED, "session ExceptionGroup"],
    # The one status the 1.x writer drops: the call waits on, the session goes on.
    "404": ["call waits", "call ok", "left"],
    "closed without an answer": [CLOSED, "session ExceptionGroup"],
}


@pytest.mark.parametrize("answer", ["result", "error"])
@pytest.mark.parametrize("failure", sorted(FAILURES))
def test_a_failed_answer_post_ends_as_over_the_sdks_1x_transport(failure: str, answer: str) -> None:
    async def main(url: str) -> dict[str, list[str]]:
        return {
            name: await _outcome(factory, url, answer == "error")
            for name, factory in TRANSPORTS.items()
        }

    with HostileServer({"/mcp": _route(FAILURES[failure])}) as server:
        seen = anyio.run(main, server.url + "/mcp")
    assert seen["mcpstream"] == seen["sdk"]
    assert seen["sdk"] == EXPECTED[failure]
