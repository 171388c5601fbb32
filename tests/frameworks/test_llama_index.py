"""llama-index's MCP tools (``llama-index-tools-mcp``) against the SDK's server over mcpstream:
through ``mcpstream.sdk.install()`` (its ``BasicMCPClient``, which bound the SDK's function at
import) and through its extension point, ``McpToolSpec(client=...)``, which takes any
``ClientSession``: one opened on mcpstream's transport."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import llama_index.tools.mcp.client as llama_client  # type: ignore[import-untyped]
from llama_index.tools.mcp import BasicMCPClient, McpToolSpec
from mcp import ClientSession
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

TIMEOUT_S = 30.0
"""``BasicMCPClient``'s default timeout, the session's read timeout in both routes."""


@contextlib.asynccontextmanager
async def _client(route: str, url: str, timeout: float = TIMEOUT_S) -> AsyncIterator[Any]:
    """llama-index's own client (under install(); it opens a connection for each operation)
    or a session the host opened on mcpstream's transport (the recipe of docs/frameworks.md)."""
    if route == "install":
        yield BasicMCPClient(url, timeout=timeout)
        return
    async with (
        streamable_http_client(url) as (read, write),
        ClientSession(read, write, read_timeout_seconds=timeout) as session,
    ):
        await session.initialize()
        yield session


def _connections(route: str, operations: int) -> int:
    """Connections mcpstream opens for ``operations``: BasicMCPClient opens one each."""
    return operations if route == "install" else 1


def test_tools_listed_and_one_called(
    mcp_server_urls: dict[str, str], route: str, relays: Relays
) -> None:
    async def main() -> tuple[list[str], str]:
        async with _client(route, mcp_server_urls["sse"]) as client:
            tools = await McpToolSpec(client=client).to_tool_list_async()
            echo = next(tool for tool in tools if tool.metadata.name == "echo")
            output = await echo.acall(text="h\u00e9llo")
            return [tool.metadata.name for tool in tools], output.raw_output.content[0].text

    lists_and_calls(main, relays, connections=_connections(route, 2))


def test_a_large_result_arrives_whole(
    mcp_server_urls: dict[str, str], route: str, relays: Relays
) -> None:
    async def main() -> str:
        async with _client(route, mcp_server_urls["json"]) as client:
            result = await client.call_tool("big_text", {"size": LARGE})
            return str(result.content[0].text)

    arrives_whole(main, relays)


def test_progress_reaches_the_calls_callback(
    mcp_server_urls: dict[str, str], route: str, relays: Relays
) -> None:
    async def main(progress: Progress) -> str:
        async with _client(route, mcp_server_urls["sse"]) as client:
            result = await client.call_tool("count", {"steps": STEPS}, progress_callback=progress)
            return str(result.content[0].text)

    reports_progress(main, relays)


def test_the_server_down_fails_as_over_the_sdk(down_url: str, route: str) -> None:
    async def attempt(route: str) -> None:
        async with _client(route, down_url) as client:
            await client.list_tools()

    _, theirs = fails_as_over_the_sdk(attempt, route)
    assert "All connection attempts failed" in str(theirs.exceptions[0])  # type: ignore[attr-defined]


def test_a_silent_server_times_out_as_over_the_sdk(silent_url: str, relays: Relays) -> None:
    async def attempt(route: str) -> None:
        async with _client(route, silent_url, timeout=HOST_TIMEOUT_S) as client:
            await client.list_tools()

    times_out_as_over_the_sdk(attempt, relays)


def test_uninstall_gives_llama_index_the_sdk_transport_back(
    mcp_server_urls: dict[str, str], relays: Relays
) -> None:
    async def main() -> str:
        result = await BasicMCPClient(mcp_server_urls["sse"]).call_tool("echo", {"text": "sdk"})
        return str(result.content[0].text)

    gives_the_sdk_transport_back(main, relays, llama_client)
