"""Google ADK's ``McpToolset`` (``StreamableHTTPConnectionParams``) against the SDK's server over
mcpstream, through ``mcpstream.sdk.install()``: ADK bound the SDK's function at import, and opens
its transport itself (its extension point is the HTTP client, ``httpx_client_factory``, which
mcpstream then sends every request through)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import google.adk.dependencies._mcp as adk_mcp
import google.adk.tools.mcp_tool.mcp_session_manager as adk_sessions
import httpx2
import pytest
from google.adk.agents import LlmAgent
from google.adk.agents.invocation_context import InvocationContext
from google.adk.sessions import InMemorySessionService
from google.adk.tools.mcp_tool import McpToolset, StreamableHTTPConnectionParams
from google.adk.tools.tool_context import ToolContext

from tests.frameworks.conftest import (
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
    run,
    times_out_as_over_the_sdk,
)


@contextlib.asynccontextmanager
async def _toolset(url: str, **options: Any) -> AsyncIterator[McpToolset]:
    """ADK's toolset for ``url`` (``options``: the connection's and the toolset's), closed after."""
    toolset_options = {key: options.pop(key) for key in ("progress_callback",) if key in options}
    params = StreamableHTTPConnectionParams(url=url, **options)
    toolset = McpToolset(connection_params=params, **toolset_options)
    try:
        yield toolset
    finally:
        await toolset.close()


async def _call(toolset: McpToolset, name: str, **arguments: Any) -> str:
    """Call the tool ``name`` as an agent does (``run_async`` in an invocation); its text."""
    tools = {tool.name: tool for tool in await toolset.get_tools()}
    service = InMemorySessionService()
    session = await service.create_session(app_name="mcpstream", user_id="host")
    invocation = InvocationContext(
        session_service=service, invocation_id="call", agent=LlmAgent(name="host"), session=session
    )
    result = await tools[name].run_async(args=arguments, tool_context=ToolContext(invocation))
    return str(result["content"][0]["text"])


@pytest.mark.usefixtures("installed")
def test_tools_listed_and_one_called(mcp_server_urls: dict[str, str], relays: Relays) -> None:
    async def main() -> tuple[list[str], str]:
        async with _toolset(mcp_server_urls["sse"]) as toolset:
            tools = [tool.name for tool in await toolset.get_tools()]
            return tools, await _call(toolset, "echo", text="h\u00e9llo")

    lists_and_calls(main, relays)  # one session, kept by the toolset


@pytest.mark.usefixtures("installed")
def test_a_large_result_arrives_whole(mcp_server_urls: dict[str, str], relays: Relays) -> None:
    async def main() -> str:
        async with _toolset(mcp_server_urls["json"]) as toolset:
            return await _call(toolset, "big_text", size=LARGE)

    arrives_whole(main, relays)


@pytest.mark.usefixtures("installed")
def test_progress_reaches_the_toolsets_callback(
    mcp_server_urls: dict[str, str], relays: Relays
) -> None:
    async def main(progress: Progress) -> str:
        async with _toolset(mcp_server_urls["sse"], progress_callback=progress) as toolset:
            return await _call(toolset, "count", steps=STEPS)

    reports_progress(main, relays)


@pytest.mark.usefixtures("installed")
def test_the_hosts_http_client_sends_every_request(
    mcp_server_urls: dict[str, str], relays: Relays
) -> None:
    seen: list[str] = []

    async def record(request: httpx2.Request) -> None:
        seen.append(request.headers.get("x-host", ""))

    def factory(
        headers: dict[str, str] | None = None,
        timeout: httpx2.Timeout | None = None,
        auth: httpx2.Auth | None = None,
    ) -> httpx2.AsyncClient:
        hooks = {"request": [record]}
        return httpx2.AsyncClient(headers=headers, timeout=timeout, auth=auth, event_hooks=hooks)

    async def main() -> str:
        url = mcp_server_urls["sse"]
        options = {"headers": {"x-host": "mine"}, "httpx_client_factory": factory}
        async with _toolset(url, **options) as toolset:
            return await _call(toolset, "echo", text="x")

    assert run(main()) == "x"
    assert seen and set(seen) == {"mine"}
    assert relays.made == 1


@pytest.mark.usefixtures("installed")
def test_the_server_down_fails_as_over_the_sdk(down_url: str) -> None:
    async def attempt(route: str) -> None:  # ADK's one route: install()
        async with _toolset(down_url) as toolset:
            await toolset.get_tools()

    ours, theirs = fails_as_over_the_sdk(attempt, "install")
    assert "All connection attempts failed" in str(theirs)
    assert str(ours) == str(theirs)


def test_a_silent_server_times_out_as_over_the_sdk(silent_url: str, relays: Relays) -> None:
    async def attempt(route: str) -> None:
        async with _toolset(silent_url, timeout=HOST_TIMEOUT_S) as toolset:
            await toolset.get_tools()

    times_out_as_over_the_sdk(attempt, relays, routes=("install",))


def test_uninstall_gives_adk_the_sdk_transport_back(
    mcp_server_urls: dict[str, str], relays: Relays
) -> None:
    async def main() -> str:
        async with _toolset(mcp_server_urls["sse"]) as toolset:
            return await _call(toolset, "echo", text="sdk")

    gives_the_sdk_transport_back(main, relays, adk_mcp, adk_sessions)
