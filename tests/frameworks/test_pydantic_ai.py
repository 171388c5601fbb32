"""Pydantic AI's ``MCPToolset`` (built on FastMCP's client) against the SDK's server over
mcpstream: through ``mcpstream.sdk.install()`` (the toolset given a URL) and through the toolset
given ``mcpstream.fastmcp.StreamableHttpTransport``."""

from __future__ import annotations

from typing import Any

from mcpstream.fastmcp import StreamableHttpTransport
from pydantic_ai.mcp import MCPToolset

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


def _toolset(route: str, url: str, **options: Any) -> MCPToolset[Any]:
    """The toolset as most hosts build it (a URL, under install()) or on mcpstream's transport,
    with the toolset's ``options`` (which it gives the FastMCP client it makes)."""
    client = url if route == "install" else StreamableHttpTransport(url)
    return MCPToolset(client, **options)


def test_tools_listed_and_one_called(
    mcp_server_urls: dict[str, str], route: str, relays: Relays
) -> None:
    async def main() -> tuple[list[str], Any]:
        async with _toolset(route, mcp_server_urls["sse"]) as toolset:
            tools = [tool.name for tool in await toolset.list_tools()]
            return tools, await toolset.direct_call_tool("echo", {"text": "h\u00e9llo"})

    lists_and_calls(main, relays)


def test_a_large_result_arrives_whole(
    mcp_server_urls: dict[str, str], route: str, relays: Relays
) -> None:
    async def main() -> Any:
        async with _toolset(route, mcp_server_urls["json"]) as toolset:
            return await toolset.direct_call_tool("big_text", {"size": LARGE})

    arrives_whole(main, relays)


def test_the_server_down_fails_as_over_the_sdk(down_url: str, route: str) -> None:
    async def attempt(route: str) -> None:
        async with _toolset(route, down_url) as toolset:
            await toolset.list_tools()

    fails_as_over_the_sdk(attempt, route)


def test_progress_reaches_the_toolsets_handler(
    mcp_server_urls: dict[str, str], route: str, relays: Relays
) -> None:
    async def main(progress: Progress) -> Any:
        async with _toolset(route, mcp_server_urls["sse"], progress_handler=progress) as toolset:
            return await toolset.direct_call_tool("count", {"steps": STEPS})

    reports_progress(main, relays)


def test_a_silent_server_times_out_as_over_the_sdk(silent_url: str, relays: Relays) -> None:
    async def attempt(route: str) -> None:
        toolset = _toolset(
            route, silent_url, init_timeout=HOST_TIMEOUT_S, read_timeout=HOST_TIMEOUT_S
        )
        async with toolset:
            await toolset.list_tools()

    times_out_as_over_the_sdk(attempt, relays)


def test_uninstall_gives_the_toolset_the_sdk_transport_back(
    mcp_server_urls: dict[str, str], relays: Relays
) -> None:
    async def main() -> Any:
        async with MCPToolset(mcp_server_urls["sse"]) as toolset:
            return await toolset.direct_call_tool("echo", {"text": "sdk"})

    gives_the_sdk_transport_back(main, relays)
