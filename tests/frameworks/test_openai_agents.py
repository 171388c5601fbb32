"""OpenAI Agents' ``MCPServerStreamableHttp`` against the SDK's server over mcpstream: through
``mcpstream.sdk.install()`` (Agents looks the SDK's function up at each connection) and through
its extension point, ``create_streams``, overridden to open mcpstream's transport."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Any

import mcp.client.session
import mcp_types
import pytest
from agents.mcp import MCPServerStreamableHttp
from mcpstream.sdk import streamable_http_client

from .conftest import (
    HOST_TIMEOUT_S,
    LARGE,
    STEPS,
    Progress,
    Relays,
    arrives_whole,
    fails_as_over_the_sdk,
    gives_the_sdk_transport_back,
    lists_and_calls,
    reports_progress,
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

    lists_and_calls(main, relays)


def test_a_large_result_arrives_whole(
    mcp_server_urls: dict[str, str], route: str, relays: Relays
) -> None:
    async def main() -> str:
        async with _server(route, mcp_server_urls["json"]) as server:
            return _text(await server.call_tool("big_text", {"size": LARGE}))

    arrives_whole(main, relays)


def test_the_server_down_fails_as_over_the_sdk(down_url: str, route: str) -> None:
    async def attempt(route: str) -> None:
        async with _server(route, down_url) as server:
            await server.list_tools()

    _, theirs = fails_as_over_the_sdk(attempt, route)
    assert "Could not reach the server" in str(theirs)


def test_progress_reaches_the_servers_message_handler(
    mcp_server_urls: dict[str, str], route: str, relays: Relays
) -> None:
    # Agents has no progress callback: a host asks for progress with the call's meta and
    # receives the notifications in its message handler.
    async def main(progress: Progress) -> str:
        async def handler(message: Any) -> None:
            if isinstance(message, mcp_types.ProgressNotification):
                params = message.params
                await progress(params.progress, params.total, params.message)

        async with _server(route, mcp_server_urls["sse"], message_handler=handler) as server:
            meta = {"progressToken": "count"}
            return _text(await server.call_tool("count", {"steps": STEPS}, meta=meta))

    reports_progress(main, relays)


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
    async def main() -> str:
        async with MCPServerStreamableHttp({"url": mcp_server_urls["sse"]}) as server:
            return _text(await server.call_tool("echo", {"text": "sdk"}))

    gives_the_sdk_transport_back(main, relays)
