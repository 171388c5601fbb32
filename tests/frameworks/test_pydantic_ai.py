"""Pydantic AI's ``MCPToolset`` (built on FastMCP's client) against the SDK's server over
mcpstream: through ``mcpstream.sdk.install()`` (the toolset given a URL) and through the toolset
given ``mcpstream.fastmcp.StreamableHttpTransport``."""

from __future__ import annotations

from typing import Any

import mcpstream.sdk
import pytest
from mcpstream.fastmcp import StreamableHttpTransport
from pydantic_ai.mcp import MCPToolset

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

    tools, echoed = run(main())
    assert {"echo", "big_text"} <= set(tools)
    assert echoed == "h\u00e9llo"
    assert relays.made == 1


def test_a_large_result_arrives_whole(
    mcp_server_urls: dict[str, str], route: str, relays: Relays
) -> None:
    async def main() -> Any:
        async with _toolset(route, mcp_server_urls["json"]) as toolset:
            return await toolset.direct_call_tool("big_text", {"size": LARGE})

    assert len(run(main())) == LARGE
    assert relays.made == 1


def test_the_server_down_fails_as_over_the_sdk(down_url: str, route: str) -> None:
    async def failure(toolset: MCPToolset[Any]) -> BaseException:
        with pytest.raises(Exception) as caught:
            async with toolset:
                await toolset.list_tools()
        return caught.value

    ours = run(failure(_toolset(route, down_url)))
    mcpstream.sdk.uninstall()
    theirs = run(failure(MCPToolset(down_url)))
    same_failure(ours, theirs)


def test_progress_reaches_the_toolsets_handler(
    mcp_server_urls: dict[str, str], route: str, relays: Relays
) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async def main() -> Any:
        async with _toolset(route, mcp_server_urls["sse"], progress_handler=progress) as toolset:
            return await toolset.direct_call_tool("count", {"steps": STEPS})

    assert run(main()) == f"counted {STEPS}"
    assert seen == PROGRESS
    assert relays.made == 1


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
    mcpstream.sdk.install()
    mcpstream.sdk.uninstall()

    async def main() -> Any:
        async with MCPToolset(mcp_server_urls["sse"]) as toolset:
            return await toolset.direct_call_tool("echo", {"text": "sdk"})

    assert run(main()) == "sdk"
    assert relays.made == 0
