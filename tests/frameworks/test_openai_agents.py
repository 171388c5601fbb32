"""OpenAI Agents' ``MCPServerStreamableHttp`` against the SDK's server over mcpstream: through
``mcpstream.sdk.install()`` (Agents looks the SDK's function up at each connection) and through
its extension point, ``create_streams``, overridden to open mcpstream's transport."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Any

import mcp.client.session
import mcp_types
import mcpstream.sdk
import pytest
from agents.mcp import MCPServerStreamableHttp
from mcpstream.sdk import streamable_http_client

from .conftest import (
    HOST_TIMEOUT_S,
    LARGE,
    PROGRESS,
    STEPS,
    Relays,
    run,
    same_failure,
    times_out_as_over_the_sdk,
)


class McpstreamServer(MCPServerStreamableHttp):
    """The recipe of docs/frameworks.md: Agents' server with mcpstream's transport."""

    def create_streams(self) -> AbstractAsyncContextManager[Any]:
        return streamable_http_client(
            self.params["url"],
            headers=self.params.get("headers"),
            terminate_on_close=self.params.get("terminate_on_close", True),
        )


def _server(route: str, url: str, **options: Any) -> MCPServerStreamableHttp:
    """Agents' own server (under install()) or the one on mcpstream's transport."""
    kind = MCPServerStreamableHttp if route == "install" else McpstreamServer
    options.setdefault("client_session_timeout_seconds", 60)
    return kind({"url": url}, **options)


def _text(result: Any) -> str:
    return str(result.content[0].text)


def test_tools_listed_and_one_called(
    mcp_server_urls: dict[str, str], route: str, relays: Relays
) -> None:
    async def main() -> tuple[list[str], str]:
        async with _server(route, mcp_server_urls["sse"]) as server:
            tools = [tool.name for tool in await server.list_tools()]
            return tools, _text(await server.call_tool("echo", {"text": "h\u00e9llo"}))

    tools, echoed = run(main())
    assert {"echo", "big_text"} <= set(tools)
    assert echoed == "h\u00e9llo"
    assert relays.made == 1


def test_a_large_result_arrives_whole(
    mcp_server_urls: dict[str, str], route: str, relays: Relays
) -> None:
    async def main() -> str:
        async with _server(route, mcp_server_urls["json"]) as server:
            return _text(await server.call_tool("big_text", {"size": LARGE}))

    assert len(run(main())) == LARGE
    assert relays.made == 1


def test_the_server_down_fails_as_over_the_sdk(down_url: str, route: str) -> None:
    async def failure(server: MCPServerStreamableHttp) -> BaseException:
        with pytest.raises(Exception) as caught:
            async with server:
                await server.list_tools()
        return caught.value

    ours = run(failure(_server(route, down_url)))
    mcpstream.sdk.uninstall()
    theirs = run(failure(MCPServerStreamableHttp({"url": down_url})))
    assert "Could not reach the server" in str(theirs)
    same_failure(ours, theirs)


def test_progress_reaches_the_servers_message_handler(
    mcp_server_urls: dict[str, str], route: str, relays: Relays
) -> None:
    # Agents has no progress callback: a host asks for progress with the call's meta and
    # receives the notifications in its message handler.
    seen: list[tuple[float, float | None, str | None]] = []

    async def handler(message: Any) -> None:
        if isinstance(message, mcp_types.ProgressNotification):
            seen.append((message.params.progress, message.params.total, message.params.message))

    async def main() -> str:
        async with _server(route, mcp_server_urls["sse"], message_handler=handler) as server:
            meta = {"progressToken": "count"}
            return _text(await server.call_tool("count", {"steps": STEPS}, meta=meta))

    assert run(main()) == f"counted {STEPS}"
    assert seen == PROGRESS
    assert relays.made == 1


def test_a_silent_server_times_out_as_over_the_sdk(
    silent_url: str, relays: Relays, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Agents' handshake is the SDK's Client's: server/discover under the SDK's own wait (10 s,
    # shortened here to keep the test short), then initialize under the session's timeout.
    monkeypatch.setattr(mcp.client.session, "DISCOVER_TIMEOUT_SECONDS", HOST_TIMEOUT_S / 2)

    async def attempt(route: str) -> None:
        timeout = HOST_TIMEOUT_S / 2
        async with _server(route, silent_url, client_session_timeout_seconds=timeout) as server:
            await server.list_tools()

    times_out_as_over_the_sdk(attempt, relays)


def test_uninstall_gives_agents_the_sdk_transport_back(
    mcp_server_urls: dict[str, str], relays: Relays
) -> None:
    mcpstream.sdk.install()
    mcpstream.sdk.uninstall()

    async def main() -> str:
        async with MCPServerStreamableHttp({"url": mcp_server_urls["sse"]}) as server:
            return _text(await server.call_tool("echo", {"text": "sdk"}))

    assert run(main()) == "sdk"
    assert relays.made == 0
