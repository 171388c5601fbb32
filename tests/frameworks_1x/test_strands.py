"""Strands' ``MCPClient`` (on the SDK's 1.x line) over mcpstream: by ``install()`` (given a URL,
it looks the SDK's ``streamablehttp_client`` up at each connection) and by its own hook,
``MCPClient(transport_callable)`` given mcpstream's transport."""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import mcp.client.streamable_http as sdk_module
import mcpstream.sdk
import pytest
from strands.tools.mcp import MCPClient
from strands.types.exceptions import MCPClientInitializationError

from .conftest import (
    HOST_TIMEOUT_S,
    LARGE,
    STEPS,
    Relays,
    gives_the_sdk_transport_back,
    leaves,
    near_the_host_timeout,
)

# Strands' stop() after a failed start() schedules a coroutine on a loop that has ended, over
# either transport: its warning is Strands' own.
pytestmark = pytest.mark.filterwarnings(
    "ignore:coroutine 'MCPClient.stop.<locals>._set_close_event' was never awaited"
)


def _client(route: str, url: str) -> MCPClient:
    """Strands' client as most hosts build it (a URL, under install()) or on mcpstream's
    transport (the recipe of docs/frameworks.md)."""
    if route == "install":
        return MCPClient(url=url)
    return MCPClient(lambda: mcpstream.sdk.streamable_http_client(url))


def _text(result: Any) -> str:
    return "".join(block["text"] for block in result["content"])


def test_tools_a_call_progress_and_a_large_result(
    server_url: str, route: str, relays: Relays
) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    with _client(route, server_url) as client:
        names = sorted(tool.tool_name for tool in client.list_tools_sync())
        echoed = client.call_tool_sync("1", "echo", {"text": "h\u00e9llo"})
        counted = client.call_tool_sync(
            "2", "count", {"steps": STEPS}, progress_callback=on_progress
        )
        large = client.call_tool_sync("3", "big_text", {"size": LARGE})
    assert names == ["big_text", "count", "echo"]
    assert (echoed["status"], _text(echoed)) == ("success", "h\u00e9llo")
    assert _text(counted) == f"counted {STEPS}"
    assert seen == [(step, STEPS, f"step {step}") for step in range(1, STEPS + 1)]
    assert (large["status"], len(_text(large))) == ("success", LARGE)
    assert relays.made == 1


def _start_failure(client: MCPClient) -> tuple[BaseException, float]:
    """What ``MCPClient.start()`` raised, and how long it took."""
    started = time.monotonic()
    with pytest.raises(MCPClientInitializationError) as caught:
        client.start()
    return caught.value, time.monotonic() - started


def _same_failure(ours: BaseException, theirs: BaseException) -> None:
    # Strands wraps what the transport raised: the same wording, the same cause down to its leaves.
    assert str(ours) == str(theirs)
    assert ours.__cause__ is not None and theirs.__cause__ is not None
    assert type(ours.__cause__) is type(theirs.__cause__)
    assert leaves(ours.__cause__) == leaves(theirs.__cause__)


def test_the_server_down_fails_as_over_the_sdk_transport(down_url: str, route: str) -> None:
    ours, _ = _start_failure(_client(route, down_url))
    mcpstream.sdk.uninstall()
    theirs, _ = _start_failure(MCPClient(url=down_url))
    assert leaves(theirs.__cause__ or theirs) == ["ConnectError"]
    _same_failure(ours, theirs)


def test_the_hosts_timeout_ends_the_wait_for_a_silent_server(
    silent_url: str, relays: Relays
) -> None:
    """The host's timeout, as Strands' hosts set it: on the transport ``transport_callable``
    opens (a URL alone leaves the SDK's 30 s and 5 min, which ``startup_timeout`` does not
    shorten: Strands waits for its connection thread to end)."""

    def client(transport: Callable[..., AbstractAsyncContextManager[Any]]) -> MCPClient:
        return MCPClient(
            lambda: transport(silent_url, timeout=HOST_TIMEOUT_S, sse_read_timeout=HOST_TIMEOUT_S)
        )

    def sdk_at_the_call(*args: Any, **kwargs: Any) -> AbstractAsyncContextManager[Any]:
        # Looked up at each call, as Strands' own URL route does: install() is seen.
        return sdk_module.streamablehttp_client(*args, **kwargs)

    theirs, _ = _start_failure(client(sdk_at_the_call))
    assert leaves(theirs.__cause__ or theirs) == ["ReadTimeout"]
    mcpstream.sdk.install()
    try:
        by_install = _start_failure(client(sdk_at_the_call))
    finally:
        mcpstream.sdk.uninstall()
    by_hook = _start_failure(client(mcpstream.sdk.streamablehttp_client))
    assert relays.made == 2
    for ours, elapsed in (by_install, by_hook):
        _same_failure(ours, theirs)
        assert near_the_host_timeout(elapsed), elapsed


def test_uninstall_gives_the_sdk_transport_back(server_url: str, relays: Relays) -> None:
    def call() -> str:
        with MCPClient(url=server_url) as client:
            return _text(client.call_tool_sync("1", "echo", {"text": "sdk"}))

    gives_the_sdk_transport_back(call, "sdk", relays)
