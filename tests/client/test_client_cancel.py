"""``Client`` and ``AsyncClient`` cancel what they give up at the server, against the official
SDK server (the transport tests' ``mcp_sdk_server.py``, in a subprocess) in both eras: a tool
call past its ``timeout_s`` (or the client's ``tool_timeout_s``) raises
``McpHttpTransportTimeoutError``, and an ``AsyncClient`` call whose task is cancelled (directly,
by ``asyncio.timeout`` or by ``asyncio.wait_for``) raises the host's ``CancelledError`` or
``TimeoutError``; each time the server's tool sees its task cancelled, and no progress
registration, thread, socket or task is left behind."""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from mcpstream import AsyncClient, Client, close_pools
from mcpstream.errors import McpHttpTransportTimeoutError
from transport.conftest import _start_mcp_server
from transport.helpers import open_sockets_to

CASES = [
    pytest.param("sse", "legacy", id="sse-2025-11-25"),
    pytest.param("json", "legacy", id="json-2025-11-25"),
    pytest.param("sse", None, id="sse-2026-07-28"),
    pytest.param("stateless", None, id="stateless-2026-07-28"),
]
KEYS = itertools.count(1)
SERVER_WAIT_S = 10.0


@pytest.fixture(scope="module")
def sdk_urls() -> Iterator[dict[str, str]]:
    """The SDK server in SSE, JSON and stateless mode (each speaks both eras)."""
    started = {mode: _start_mcp_server(mode) for mode in ("sse", "json", "stateless")}
    yield {mode: url for mode, (_, url) in started.items()}
    for process, _ in started.values():
        process.terminate()
        process.wait(10)


def port_of(url: str) -> int:
    return int(url.split(":")[2].split("/")[0])


def hold(key: str) -> dict[str, Any]:
    return {"key": key, "seconds": 60}


def progress_tokens(client: Client | AsyncClient) -> int:
    """How many progress callbacks the client still has registered."""
    return len(client._core.router._progress)


def outcome(client: Client, key: str) -> str:
    """What the server recorded for ``key``, polled until the call was cancelled there."""
    deadline = time.monotonic() + SERVER_WAIT_S
    while True:
        seen = client.call_tool("outcome", {"key": key}).text
        if seen == "cancelled" or time.monotonic() > deadline:
            return seen
        time.sleep(0.05)


async def aoutcome(client: AsyncClient, key: str, wanted: str = "cancelled") -> str:
    deadline = time.monotonic() + SERVER_WAIT_S
    while True:
        seen = (await client.call_tool("outcome", {"key": key})).text
        if seen == wanted or time.monotonic() > deadline:
            return seen
        await asyncio.sleep(0.05)


@pytest.mark.parametrize(("mode", "protocol"), CASES)
def test_a_tool_call_that_times_out_is_cancelled_at_the_server(
    sdk_urls: dict[str, str], mode: str, protocol: str | None
) -> None:
    url = sdk_urls[mode]
    close_pools()  # (idle connections of earlier tests, in the process's pool)
    threads_before = threading.active_count()
    sockets_before = open_sockets_to(port_of(url))
    with Client(url, protocol=protocol, tool_timeout_s=0.5) as client:
        key, other = f"sync-{next(KEYS)}", f"sync-{next(KEYS)}"
        with pytest.raises(McpHttpTransportTimeoutError):
            client.call_tool("hold", hold(key), progress=print)  # the client's tool timeout
        with pytest.raises(McpHttpTransportTimeoutError):
            client.call_tool("hold", hold(other), timeout_s=0.3)  # the call's own
        assert progress_tokens(client) == 0
        assert outcome(client, key) == "cancelled"
        assert outcome(client, other) == "cancelled"
    close_pools()  # the session's idle connections and the pool's reaper thread
    assert threading.active_count() <= threads_before
    assert open_sockets_to(port_of(url)) <= sockets_before


@pytest.mark.parametrize(("mode", "protocol"), CASES)
def test_an_async_call_whose_task_is_cancelled_is_cancelled_at_the_server(
    sdk_urls: dict[str, str], mode: str, protocol: str | None
) -> None:
    url = sdk_urls[mode]
    sockets_before = open_sockets_to(port_of(url))

    async def scenario() -> dict[str, str]:
        tasks_before = len(asyncio.all_tasks())
        seen: dict[str, str] = {}
        async with AsyncClient(url, protocol=protocol) as client:
            # Cancelled directly, once the server runs the tool.
            key = f"task-{next(KEYS)}"
            call = asyncio.ensure_future(client.call_tool("hold", hold(key), progress=print))
            assert await aoutcome(client, key, wanted="held") == "held"
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
            seen["cancel"] = await aoutcome(client, key)
            # By the host's own deadlines: its TimeoutError, not ours.
            key = f"timeout-{next(KEYS)}"
            with pytest.raises(TimeoutError):
                async with asyncio.timeout(0.5):
                    await client.call_tool("hold", hold(key), progress=print)
            seen["asyncio.timeout"] = await aoutcome(client, key)
            key = f"wait_for-{next(KEYS)}"
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(client.call_tool("hold", hold(key)), 0.5)
            seen["wait_for"] = await aoutcome(client, key)
            # The client's own timeout.
            key = f"own-{next(KEYS)}"
            with pytest.raises(McpHttpTransportTimeoutError):
                await client.call_tool("hold", hold(key), timeout_s=0.3)
            seen["timeout_s"] = await aoutcome(client, key)
            assert progress_tokens(client) == 0
            assert (await client.call_tool("echo", {"text": "still here"})).text == "still here"
        assert len(asyncio.all_tasks()) <= tasks_before
        return seen

    assert asyncio.run(scenario()) == {
        "cancel": "cancelled",
        "asyncio.timeout": "cancelled",
        "wait_for": "cancelled",
        "timeout_s": "cancelled",
    }
    assert open_sockets_to(port_of(url)) <= sockets_before
