"""Pydantic AI's ``MCPToolset`` (built on FastMCP's client) against the SDK's server over
mcpstream: through ``mcpstream.sdk.install()`` (the toolset given a URL) and through the toolset
given ``mcpstream.fastmcp.StreamableHttpTransport``; and a host's client given to the toolset
(``http_client``), which it wraps, over mcpstream's HTTP/1.1 transport."""

from __future__ import annotations

import functools
from collections.abc import Generator
from typing import Any

import httpx2
import mcpstream.sdk
import pytest
from mcpstream._http import capability
from mcpstream._http.h1.aio import Connection
from mcpstream._http.httpx_clients import H1_ENV
from mcpstream._httpbase.stack import stack_named
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
    run,
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


class CountingAuth(httpx2.Auth):
    """An auth flow of the host's that sets a header and counts its runs."""

    def __init__(self) -> None:
        self.flows = 0

    def auth_flow(self, request: Any) -> Generator[Any, Any, None]:
        self.flows += 1
        request.headers["Authorization"] = "Bearer toolset"
        yield request


@pytest.mark.parametrize("with_auth", [False, True])
def test_a_host_client_given_to_the_toolset_sends_over_mcpstreams_transport(
    mcp_server_urls: dict[str, str],
    relays: Relays,
    with_auth: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``MCPToolset(url, http_client=client)`` hands the SDK an object forwarding to the client
    (with the toolset's ``auth``, its ``send`` a partial of the client's): under install() the
    host's stock client still sends over mcpstream's HTTP/1.1 transport, the auth flow run."""
    monkeypatch.setenv(H1_ENV, "1")  # the default, whatever the environment says
    over_mcpstream: list[bool] = []

    async def on_response(response: Any) -> None:
        over_mcpstream.append(isinstance(response.extensions.get("network_stream"), Connection))

    auth = CountingAuth()

    async def main() -> tuple[Any, Any]:
        async with httpx2.AsyncClient(
            auth=None if with_auth else auth, event_hooks={"response": [on_response]}
        ) as client:
            toolset: MCPToolset[Any] = MCPToolset(
                mcp_server_urls["sse"], http_client=client, auth=auth if with_auth else None
            )
            async with toolset:
                result = await toolset.direct_call_tool("echo", {"text": "borrowed"})
                host_client = relays.each[0].host_client
                assert host_client is not None
                assert host_client.wrapped is not client  # the toolset's wrapper
                # With the toolset's auth, the wrapper's send is a partial of the client's.
                assert isinstance(host_client.wrapped.send, functools.partial) is with_auth
                own = host_client.own_transport
            return result, own

    mcpstream.sdk.install()
    try:
        result, own = run(main())
    finally:
        mcpstream.sdk.uninstall()
    assert "borrowed" in str(result)
    assert relays.made >= 1
    assert capability.hooks_fit(stack_named("httpx2"))
    assert own is not None
    assert over_mcpstream and all(over_mcpstream)
    assert auth.flows == len(over_mcpstream)  # the auth flow ran for every request
