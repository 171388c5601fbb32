"""Resource subscriptions at 2026-07-28 against servers that do not grant them: the demo server
(the official SDK's) with its ``subscriptions/listen`` handler replaced by one that never
acknowledges, or by one whose acknowledgement leaves the resource subscriptions out. No real
server does either, so the handler is replaced; the rest of the server is the SDK's."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import pytest
from mcp.server.context import ServerRequestContext
from mcp_types import (
    SubscriptionFilter,
    SubscriptionsAcknowledgedNotification,
    SubscriptionsAcknowledgedNotificationParams,
    SubscriptionsListenRequestParams,
)
from mcpstream import AsyncClient, Client, McpError
from mcpstream.demo import DemoServer
from mcpstream.demo import server as demo_module
from mcpstream.errors import McpHttpTransportProtocolError

Handler = Callable[[ServerRequestContext[Any, Any], SubscriptionsListenRequestParams], Any]


async def never_acknowledge(
    ctx: ServerRequestContext[Any, Any], params: SubscriptionsListenRequestParams
) -> None:
    await anyio.sleep_forever()


async def acknowledge_list_changes_only(
    ctx: ServerRequestContext[Any, Any], params: SubscriptionsListenRequestParams
) -> None:
    honored = SubscriptionFilter(tools_list_changed=True)
    notification = SubscriptionsAcknowledgedNotification(
        params=SubscriptionsAcknowledgedNotificationParams(notifications=honored)
    )
    await ctx.session.send_notification(notification, related_request_id=ctx.request_id)
    await anyio.sleep_forever()


def serve_with(monkeypatch: pytest.MonkeyPatch, handler: Handler) -> DemoServer:
    build = demo_module.build_demo_server

    def build_replaced(**options: Any) -> Any:
        server = build(**options)
        lowlevel = server._lowlevel_server
        lowlevel.add_request_handler(
            "subscriptions/listen", SubscriptionsListenRequestParams, handler
        )
        return server

    monkeypatch.setattr(demo_module, "build_demo_server", build_replaced)
    return DemoServer()


@pytest.fixture
def silent_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[DemoServer]:
    with serve_with(monkeypatch, never_acknowledge) as server:
        yield server


@pytest.fixture
def grudging_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[DemoServer]:
    with serve_with(monkeypatch, acknowledge_list_changes_only) as server:
        yield server


def test_a_listen_stream_never_acknowledged_fails_the_subscription_in_time(
    silent_server: DemoServer,
) -> None:
    with Client(silent_server.url, protocol="modern") as client:
        started = time.monotonic()
        with pytest.raises(McpHttpTransportProtocolError, match="did not acknowledge"):
            client.subscribe_resource("demo://note/alpha", timeout_s=1.0)
        assert time.monotonic() - started < 8.0  # the wait is bounded, generously here
        assert client.call_tool("echo", {"text": "still"}).text == "still"

    async def scenario() -> None:
        async with AsyncClient(silent_server.url, protocol="modern") as client:
            with pytest.raises(McpHttpTransportProtocolError, match="did not acknowledge"):
                await client.subscribe_resource("demo://note/alpha", timeout_s=1.0)
            assert (await client.call_tool("echo", {"text": "still"})).text == "still"

    asyncio.run(scenario())


def test_a_subscription_left_out_of_the_acknowledgement_is_refused(
    grudging_server: DemoServer,
) -> None:
    with Client(grudging_server.url, protocol="modern") as client:
        with pytest.raises(McpError, match="does not honor") as caught:
            client.subscribe_resource("demo://note/alpha")
        assert caught.value.method == "subscriptions/listen"
        # Dropped: unsubscribing is a no-op, with nothing to reopen.
        client.unsubscribe_resource("demo://note/alpha")

    async def scenario() -> None:
        async with AsyncClient(grudging_server.url, protocol="modern") as client:
            with pytest.raises(McpError, match="does not honor"):
                await client.subscribe_resource("demo://note/alpha")

    asyncio.run(scenario())
