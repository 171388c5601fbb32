"""Fixtures of the framework peers of the SDK's 1.x line (langchain-mcp-adapters, smolagents
through mcpadapt, Strands, mcp-proxy), run in an environment of their own with ``mcp`` 1.30 by
scripts/framework-tests.sh (``MCPSTREAM_FRAMEWORKS=1.x``; tests/conftest.py leaves this directory
out where those frameworks are not installed).

The server is the 1.x SDK's own (``mcp.server.fastmcp.FastMCP`` over uvicorn, in a thread, on a
port the system picks). ``relays`` counts the connections mcpstream's SDK transport opened, which
is how a test knows the framework really ran over mcpstream; ``silent_url`` is a server that
accepts and never answers, for the host's timeouts (``times_out_as_over_the_sdk``: the step the
asynchronous frameworks share); ``route``, ``installed``, ``down_url`` and the uninstall step
(``gives_the_sdk_transport_back``) are the 2.x suite's (tests/sdk/routes.py).
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import anyio
import mcpstream.sdk
import pytest
import uvicorn
from mcp.server.fastmcp import Context, FastMCP

from tests.sdk.relays import Relays, relays
from tests.sdk.routes import (
    HOST_TIMEOUT_S,
    LARGE,
    down_url,
    gives_the_sdk_transport_back,
    installed,
    near_the_host_timeout,
    never_left_installed,
    route,
)
from tests.sdk.silent import silent_url

__all__ = [
    "HOST_TIMEOUT_S",
    "LARGE",
    "STEPS",
    "Relays",
    "down_url",
    "gives_the_sdk_transport_back",
    "installed",
    "leaves",
    "near_the_host_timeout",
    "never_left_installed",
    "relays",
    "route",
    "silent_url",
    "times_out_as_over_the_sdk",
]

STEPS = 5
"""Progress notifications the ``count`` tool sends before it answers."""


def _server() -> FastMCP:
    server = FastMCP("frameworks-1x")

    @server.tool()
    def echo(text: str) -> str:
        """Echo the text back."""
        return text

    @server.tool()
    def big_text(size: int) -> str:
        """A text of ``size`` characters."""
        return "x" * size

    @server.tool()
    async def count(steps: int, ctx: Context[Any, Any, Any]) -> str:
        """Report ``steps`` progress notifications, then answer."""
        for step in range(1, steps + 1):
            await ctx.report_progress(step, steps, f"step {step}")
        return f"counted {steps}"

    return server


@pytest.fixture(scope="session")
def server_url() -> Iterator[str]:
    """The 1.x SDK's Streamable HTTP server, on loopback."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = uvicorn.Config(_server().streamable_http_app(), port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the 1.x SDK's server did not start")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/mcp"
    server.should_exit = True
    thread.join(10)


def leaves(exc: BaseException) -> list[str]:
    """The classes of the exceptions at the leaves of ``exc`` (through exception groups)."""
    if isinstance(exc, BaseExceptionGroup):
        return [name for inner in exc.exceptions for name in leaves(inner)]
    return [type(exc).__name__]


async def _timed_failure(attempt: Callable[[], Awaitable[object]]) -> tuple[BaseException, float]:
    """What ``attempt()`` raised, and the seconds it took to."""
    started = time.monotonic()
    with pytest.raises(BaseException) as caught:
        await attempt()
    return caught.value, time.monotonic() - started


def times_out_as_over_the_sdk(attempt: Callable[[], Awaitable[object]], counted: Relays) -> None:
    """Assert that ``attempt()``, a framework given ``silent_url`` and the host's HTTP timeouts
    (``HOST_TIMEOUT_S``), fails by ``install()`` as over the SDK's transport (a ``ReadTimeout``):
    the same exception down to its leaves, near the timeout, over one connection of mcpstream's
    (``counted``: the test's ``relays``)."""
    theirs, _ = anyio.run(_timed_failure, attempt)
    mcpstream.sdk.install()
    try:
        ours, elapsed = anyio.run(_timed_failure, attempt)
    finally:
        mcpstream.sdk.uninstall()
    assert leaves(theirs) == ["ReadTimeout"]
    assert type(ours) is type(theirs)
    assert leaves(ours) == leaves(theirs)
    assert near_the_host_timeout(elapsed), elapsed
    assert counted.made == 1
