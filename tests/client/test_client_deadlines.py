"""``Client`` and ``AsyncClient`` hold a call's ``timeout_s`` against the official SDK server
(the transport tests' ``mcp_sdk_server.py``, in a subprocess), in both eras: progress after a
silence does not stretch the call, and the host's elicitation handler's time counts against it.
The property: with random server and handler delays, every call either completes before its
deadline or raises ``McpTimeoutError`` within ``MARGIN_S`` after it (room for a loaded
machine; a handler's time left out of the budget, or a clock read before a read, gives calls
that return after their deadline, or raise 1.5 s or more after it)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcpstream import AsyncClient, Client
from mcpstream.client.handlers import ElicitationRequest, ElicitationResponse
from mcpstream.errors import McpTimeoutError
from transport.conftest import _start_mcp_server

MARGIN_S = 1.0
"""How late past its deadline a call may raise (scheduling on a loaded machine: it holds with
two busy loops beside the tests on two shared cores)."""

ERAS = [pytest.param("legacy", id="2025-11-25"), pytest.param("modern", id="2026-07-28")]


@pytest.fixture(scope="module")
def sdk_url() -> Iterator[str]:
    """The SDK server in SSE mode (it speaks both eras)."""
    process, url = _start_mcp_server("sse")
    yield url
    process.terminate()
    process.wait(10)


def elicit_after(delay_s: float) -> Callable[[ElicitationRequest], ElicitationResponse]:
    """A sync elicitation handler answering after ``delay_s``."""

    def answer(request: ElicitationRequest) -> ElicitationResponse:
        time.sleep(delay_s)
        return ElicitationResponse(action="accept", content={"name": "Ada"})

    return answer


def aelicit_after(
    delay_s: float,
) -> Callable[[ElicitationRequest], Awaitable[ElicitationResponse]]:
    """An async elicitation handler answering after ``delay_s``."""

    async def answer(request: ElicitationRequest) -> ElicitationResponse:
        await asyncio.sleep(delay_s)
        return ElicitationResponse(action="accept", content={"name": "Ada"})

    return answer


@pytest.mark.parametrize("protocol", ERAS)
def test_progress_after_a_silence_does_not_stretch_a_call(sdk_url: str, protocol: str) -> None:
    # Progress after 1.3 s, the answer 1.4 s later: the call raises at its 1.5 s.
    with Client(sdk_url, protocol=protocol) as client:
        started = time.monotonic()
        with pytest.raises(McpTimeoutError):
            client.call_tool(
                "pause", {"before": 1.3, "seconds": 1.4}, progress=lambda *_: None, timeout_s=1.5
            )
        assert 1.5 <= time.monotonic() - started < 1.5 + MARGIN_S


@pytest.mark.parametrize("protocol", ERAS)
def test_an_async_call_holds_its_deadline_through_a_slow_handler(
    sdk_url: str, protocol: str
) -> None:
    async def scenario() -> float:
        async with AsyncClient(
            sdk_url, protocol=protocol, elicitation_handler=aelicit_after(1.5)
        ) as client:
            started = time.monotonic()
            with pytest.raises(McpTimeoutError):
                await client.call_tool("resolve_then_pause", {"seconds": 2.5}, timeout_s=2.0)
            return time.monotonic() - started

    elapsed = asyncio.run(scenario())
    assert 2.0 <= elapsed < 2.0 + MARGIN_S


TIMEOUT_S = 1.2


@settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    protocol=st.sampled_from(["legacy", "modern"]),
    handler_s=st.floats(min_value=0.0, max_value=1.0),
    server_s=st.floats(min_value=0.0, max_value=2.0),
)
def test_a_call_completes_before_its_deadline_or_raises_just_after_it(
    sdk_url: str, protocol: str, handler_s: float, server_s: float
) -> None:
    # The server asks for a name, the handler answers after handler_s, the tool answers
    # server_s later: done before the deadline, or a timeout within the margin after it.
    with Client(sdk_url, protocol=protocol, elicitation_handler=elicit_after(handler_s)) as client:
        started = time.monotonic()
        try:
            result = client.call_tool(
                "resolve_then_pause", {"seconds": server_s}, timeout_s=TIMEOUT_S
            )
        except McpTimeoutError:
            elapsed = time.monotonic() - started
            assert TIMEOUT_S <= elapsed < TIMEOUT_S + MARGIN_S
        else:
            elapsed = time.monotonic() - started
            assert result.text == "asked Ada"
            assert elapsed < TIMEOUT_S
