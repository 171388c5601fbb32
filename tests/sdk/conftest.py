"""Fixtures of the tests of ``mcpstream.sdk``: the official SDK's server under uvicorn (the
transport suite's, in SSE, JSON and stateless modes, each speaking both eras), the hostile
server for what no real server does, and ``run``, which runs a coroutine on an event loop of
its own under a generous bound (a hang fails the test instead of the suite), ``relays``
(``tests/sdk/relays.py``), ``silent_url`` (``tests/sdk/silent.py``)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

import pytest

from tests.hostile.conftest import hostile
from tests.sdk.relays import relays
from tests.sdk.silent import silent_url
from tests.transport.conftest import forgetful_server, mcp_server_urls

__all__ = ["forgetful_server", "hostile", "mcp_server_urls", "relays", "run", "silent_url"]

T = TypeVar("T")

BOUND_S = 60.0


def run(coroutine: Coroutine[Any, Any, T], bound_s: float = BOUND_S) -> T:
    """Run ``coroutine`` to its end; fail the test if it takes longer than ``bound_s``."""

    async def bounded() -> T:
        async with asyncio.timeout(bound_s):
            return await coroutine

    return asyncio.run(bounded())


@pytest.fixture(params=["legacy", "auto"])
def mode(request: pytest.FixtureRequest) -> str:
    """The SDK's ``mode``: the handshake era (``legacy``) or 2026-07-28 (``auto``, which
    finds it with ``server/discover``)."""
    return str(request.param)
