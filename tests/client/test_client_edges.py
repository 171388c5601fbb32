"""The edges of the client API a newcomer compares with httpx, ``mcp.Client`` and FastMCP, each
against the demo server: timeouts (None is no limit, zero or negative refused, one default per
kind), ``AsyncClient.aclose``, ``ToolResult.structured_content`` (``structured`` its alias)."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterator

import pytest
from mcpstream import AsyncClient, Client, Notification
from mcpstream._timeouts import NO_LIMIT_S
from mcpstream.client import (
    DEFAULT_CONNECT_TIMEOUT_S,
    DEFAULT_REQUEST_TIMEOUT_S,
    DEFAULT_TOOL_TIMEOUT_S,
)
from mcpstream.demo import DemoServer
from mcpstream.sdk import DEFAULT_CALL_TIMEOUT_S as SDK_CALL_TIMEOUT_S
from mcpstream.sdk import streamable_http_client


@pytest.fixture(scope="module")
def demo() -> Iterator[str]:
    with DemoServer() as server:
        yield server.url


def test_none_means_no_limit_for_every_client_timeout(demo: str) -> None:
    with Client(
        demo, connect_timeout_s=None, request_timeout_s=None, tool_timeout_s=None
    ) as client:
        settings = client._core.settings
        assert settings.connect_timeout_s is None
        assert settings.request_timeout_s == settings.tool_timeout_s == NO_LIMIT_S
        assert client.call_tool("add", {"a": 1, "b": 2}).structured_content == {"result": 3}
        assert [t.name for t in client.list_tools(timeout_s=math.inf)]


@pytest.mark.parametrize("name", ["connect_timeout_s", "request_timeout_s", "tool_timeout_s"])
@pytest.mark.parametrize("value", [-1, 0, -0.5, math.nan])
def test_a_zero_or_negative_client_timeout_is_refused(demo: str, name: str, value: float) -> None:
    for kind in (Client, AsyncClient):
        with pytest.raises(ValueError, match=f"{name} must be greater than 0, or None"):
            kind(demo, **{name: value})  # type: ignore[arg-type]


def test_a_timeout_that_is_no_number_is_a_type_error(demo: str) -> None:
    with pytest.raises(TypeError, match="request_timeout_s must be a number of seconds"):
        Client(demo, request_timeout_s="60")  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [-1, 0, math.nan])
def test_a_zero_or_negative_call_timeout_is_refused(demo: str, value: float) -> None:
    with Client(demo) as client:
        with pytest.raises(ValueError, match="timeout_s must be greater than 0"):
            client.call_tool("add", {"a": 1, "b": 2}, timeout_s=value)
        with pytest.raises(ValueError, match="timeout_s must be greater than 0"):
            client.list_tools(timeout_s=value)
        assert client.ping(timeout_s=None) > 0  # None: the client's default


def test_one_default_per_kind_of_timeout() -> None:
    assert (DEFAULT_CONNECT_TIMEOUT_S, DEFAULT_REQUEST_TIMEOUT_S, DEFAULT_TOOL_TIMEOUT_S) == (
        10.0,
        60.0,
        600.0,
    )
    assert SDK_CALL_TIMEOUT_S == DEFAULT_TOOL_TIMEOUT_S
    settings = Client("http://127.0.0.1:9/mcp")._core.settings
    assert settings.connect_timeout_s == DEFAULT_CONNECT_TIMEOUT_S
    assert settings.request_timeout_s == DEFAULT_REQUEST_TIMEOUT_S
    assert settings.tool_timeout_s == DEFAULT_TOOL_TIMEOUT_S


def test_the_sdk_route_refuses_a_negative_timeout() -> None:
    async def main() -> None:
        async with streamable_http_client("http://127.0.0.1:9/mcp", call_timeout_s=-1):
            pass

    with pytest.raises(ValueError, match="call_timeout_s must be greater than 0"):
        asyncio.run(main())


def test_async_client_has_aclose_beside_close(demo: str) -> None:
    async def main() -> None:
        client = AsyncClient(demo)
        await client.connect()
        assert (await client.call_tool("add", {"a": 2, "b": 2})).structured == {"result": 4}
        await client.aclose()
        await client.aclose()  # idempotent
        await client.close()  # the same, under the name Client has

    asyncio.run(main())


def test_structured_is_an_alias_of_structured_content(demo: str) -> None:
    with Client(demo) as client:
        result = client.call_tool("add", {"a": 5, "b": 6})
    assert result.structured_content == result.structured == {"result": 11}
    assert result.raw["structuredContent"] == result.structured_content


def test_the_hooks_are_named_handler_and_the_on_names_are_aliases(demo: str) -> None:
    by_new: list[Notification] = []
    by_old: list[Notification] = []
    # The handshake era: the log message comes on the call's own stream, before it returns.
    with Client(demo, protocol="legacy", notification_handler=by_new.append) as client:
        client.call_tool("announce", {"message": "new name"})
    with Client(demo, protocol="legacy", on_notification=by_old.append) as client:
        client.call_tool("announce", {"message": "old name"})
    assert "new name" in [n.params["data"] for n in by_new if n.method == "notifications/message"]
    assert "old name" in [n.params["data"] for n in by_old if n.method == "notifications/message"]
    for kind in (Client, AsyncClient):
        with pytest.raises(TypeError, match="notification_handler or on_notification"):
            kind(demo, notification_handler=print, on_notification=print)
        with pytest.raises(TypeError, match="resource_updated_handler or on_resource_updated"):
            kind(demo, resource_updated_handler=print, on_resource_updated=print)
