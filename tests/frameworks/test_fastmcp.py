"""FastMCP 4's ``fastmcp.Client`` against the SDK's server over mcpstream: through
``mcpstream.sdk.install()`` (FastMCP's own ``StreamableHttpTransport``, which bound the SDK's
function at import) and through ``mcpstream.fastmcp.StreamableHttpTransport``."""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import AsyncIterator

import fastmcp
import fastmcp.client.transports.http as fastmcp_http
import pytest
from fastmcp.client.transports import StreamableHttpTransport as FastMcpTransport
from mcpstream.fastmcp import StreamableHttpTransport, _over_mcpstream

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


def _transport(route: str, url: str) -> FastMcpTransport:
    """FastMCP's own transport (under install()) or mcpstream's (the hook)."""
    return FastMcpTransport(url) if route == "install" else StreamableHttpTransport(url)


def test_tools_listed_and_one_called(
    mcp_server_urls: dict[str, str], route: str, relays: Relays
) -> None:
    async def main() -> tuple[list[str], str]:
        async with fastmcp.Client(_transport(route, mcp_server_urls["sse"])) as client:
            tools = [tool.name for tool in await client.list_tools()]
            result = await client.call_tool("echo", {"text": "h\u00e9llo"})
            return tools, str(result.content[0].text)

    lists_and_calls(main, relays)


def test_a_large_result_arrives_whole(
    mcp_server_urls: dict[str, str], route: str, relays: Relays
) -> None:
    async def main() -> str:
        async with fastmcp.Client(_transport(route, mcp_server_urls["json"])) as client:
            result = await client.call_tool("big_text", {"size": LARGE})
            return str(result.content[0].text)

    arrives_whole(main, relays)


def test_the_server_down_fails_as_over_the_sdk(down_url: str, route: str) -> None:
    async def attempt(route: str) -> None:
        async with fastmcp.Client(_transport(route, down_url)) as client:
            await client.list_tools()

    _, theirs = fails_as_over_the_sdk(attempt, route)
    assert str(theirs).startswith("Client failed to connect")


def test_progress_reaches_the_clients_handler(
    mcp_server_urls: dict[str, str], route: str, relays: Relays
) -> None:
    async def main(progress: Progress) -> str:
        transport = _transport(route, mcp_server_urls["sse"])
        async with fastmcp.Client(transport, progress_handler=progress) as client:
            result = await client.call_tool("count", {"steps": STEPS})
            return str(result.content[0].text)

    reports_progress(main, relays)


def test_a_silent_server_times_out_as_over_the_sdk(silent_url: str, relays: Relays) -> None:
    async def attempt(route: str) -> None:
        transport = _transport(route, silent_url)
        # init_timeout bounds the handshake (timeout alone: each request, after the SDK's own
        # 10 s wait for server/discover).
        async with fastmcp.Client(
            transport, timeout=HOST_TIMEOUT_S, init_timeout=HOST_TIMEOUT_S
        ) as client:
            await client.list_tools()

    times_out_as_over_the_sdk(attempt, relays)


def test_uninstall_gives_fastmcp_the_sdk_transport_back(
    mcp_server_urls: dict[str, str], relays: Relays
) -> None:
    async def main() -> str:
        async with fastmcp.Client(FastMcpTransport(mcp_server_urls["sse"])) as client:
            result = await client.call_tool("echo", {"text": "sdk"})
            return str(result.content[0].text)

    gives_the_sdk_transport_back(main, relays, fastmcp_http)


def test_the_hook_keeps_fastmcps_arguments_and_session_id(
    mcp_server_urls: dict[str, str], relays: Relays
) -> None:
    seen: list[str] = []

    async def record(request: object) -> None:
        seen.append(request.headers.get("x-host", ""))  # type: ignore[attr-defined]

    def factory(**kwargs: object) -> object:
        import httpx2

        return httpx2.AsyncClient(event_hooks={"request": [record]}, **kwargs)  # type: ignore[arg-type]

    transport = StreamableHttpTransport(
        mcp_server_urls["sse"],
        headers={"x-host": "mine"},
        httpx_client_factory=factory,  # type: ignore[arg-type]
    )

    async def main() -> str | None:
        async with fastmcp.Client(transport, mode="legacy") as client:
            await client.call_tool("echo", {"text": "x"})
            return transport.get_session_id()

    session_id = run(main())
    assert session_id  # the handshake era's session, caught by FastMCP's own hook
    assert seen and set(seen) == {"mine"}  # the factory's client sent every request
    assert relays.made == 1
    assert repr(transport).startswith("<mcpstream StreamableHttpTransport")


def test_the_transport_takes_fastmcps_arguments() -> None:
    assert issubclass(StreamableHttpTransport, FastMcpTransport)
    assert inspect.signature(StreamableHttpTransport) == inspect.signature(FastMcpTransport)


def test_a_fastmcp_that_opens_its_transport_otherwise_is_refused() -> None:
    @contextlib.asynccontextmanager
    async def connect_session(self: object, **kwargs: object) -> AsyncIterator[None]:
        yield None

    with pytest.raises(ImportError, match="does not support this FastMCP release"):
        _over_mcpstream(connect_session)
