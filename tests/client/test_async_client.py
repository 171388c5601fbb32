"""``mcpstream.AsyncClient`` against the official SDK's server (the demo server) on loopback."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

import pytest
from mcpstream import (
    AsyncClient,
    ElicitationRequest,
    ElicitationResponse,
    McpError,
    Notification,
    Progress,
)
from mcpstream.demo import DemoServer
from mcpstream.errors import McpHttpTransportError
from transport.helpers import free_port

T = TypeVar("T")


def run(scenario: Callable[[], Awaitable[T]]) -> T:
    """Run one async scenario to its end in a fresh event loop."""

    async def main() -> T:
        return await scenario()

    return asyncio.run(main())


def test_the_async_client_lists_and_calls_tools(server: DemoServer) -> None:
    async def scenario() -> None:
        async with AsyncClient(server.url, protocol="legacy") as client:
            assert client.protocol_version == "2025-11-25"
            assert len(await client.list_tools()) == 14
            result = await client.call_tool("add", {"a": 1, "b": 2})
            assert result.text == "3.0" and not result.is_error
            resources = await client.list_resources()
            (readme,) = [r for r in resources if r.uri.startswith("demo://")]  # not the skill's
            assert (await client.read_resource(readme.uri))[0].text
            assert (await client.get_prompt("review", {"code": "y"})).messages
            assert await client.ping() > 0

    run(scenario)


def test_async_progress_callbacks_may_be_coroutines(sse_server: DemoServer) -> None:
    seen: list[tuple[float, Progress]] = []

    async def on_progress(progress: Progress) -> None:
        await asyncio.sleep(0)
        seen.append((time.monotonic(), progress))

    async def scenario() -> float:
        async with AsyncClient(sse_server.url) as client:
            result = await client.call_tool(
                "count", {"steps": 4, "delay": 0.1}, progress=on_progress
            )
            assert result.text == "counted to 4"
            return time.monotonic()

    finished = run(scenario)
    assert [progress.progress for _, progress in seen] == [1, 2, 3, 4]
    assert finished - seen[0][0] > 0.2


def test_async_notifications_and_an_async_elicitation_handler(sse_server: DemoServer) -> None:
    notes: list[Notification] = []

    async def answer(request: ElicitationRequest) -> ElicitationResponse:
        return ElicitationResponse(action="accept", content={"name": "Grace"})

    async def scenario() -> None:
        async with AsyncClient(
            sse_server.url,
            on_notification=notes.append,
            elicitation_handler=answer,
            protocol="legacy",
        ) as client:
            assert (await client.call_tool("ask_name")).text == "hello Grace"
            await client.call_tool("announce", {"message": "async hello"})

    run(scenario)
    assert [note.params["data"] for note in notes if note.method == "notifications/message"] == [
        "async hello"
    ]


def test_async_json_rpc_errors_are_mcp_errors(sse_server: DemoServer) -> None:
    async def scenario() -> None:
        async with AsyncClient(sse_server.url) as client:
            with pytest.raises(McpError) as caught:
                await client.request("no/such/method")
            assert caught.value.code == -32601

    run(scenario)


def test_the_async_client_starts_a_new_session_once_when_the_server_restarted(
    restartable_server: DemoServer,
) -> None:
    port = restartable_server.port

    async def scenario() -> None:
        async with AsyncClient(restartable_server.url, protocol="legacy") as client:
            assert (await client.call_tool("echo", {"text": "before"})).text == "before"
            await asyncio.to_thread(restartable_server.stop)
            restartable_server.port = port
            await asyncio.to_thread(restartable_server.start)
            assert (await client.call_tool("echo", {"text": "after"})).text == "after"
            assert client.session_renewals == 1
            assert await client.ping() > 0
            assert client.session_renewals == 1

    run(scenario)


def test_async_connection_refused_closes_the_client() -> None:
    client = AsyncClient(f"http://127.0.0.1:{free_port()}/mcp", connect_timeout_s=2)

    async def scenario() -> None:
        with pytest.raises(McpHttpTransportError):
            async with client:
                pass

    run(scenario)
    assert client.closed
