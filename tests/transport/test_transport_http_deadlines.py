"""Deadlines hold end to end, through the drop-in transports (sync and async) against the
official SDK's server in both eras, with SSE and JSON answers: a call raises at its deadline
(within ``MARGIN_S``, room for a loaded machine) when the server answers after a silence, when
the host's handler of a server request (elicitation, sampling, roots) takes part of the time,
and when the server never answers the cancellation that follows the timeout (the fault server).
Every gap the old behaviour left (a stale clock after a read, a handler's time left out, a
cancellation awaited before the error) is clearly larger than the margin."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from mcpstream._http.core.cancel import CANCEL_TIMEOUT_S, CANCELLED_NOTIFICATION
from mcpstream.errors import McpHttpTransportTimeoutError
from mcpstream.models import ResolvedMcpServer
from mcpstream.transport_http_async import AsyncMcpHttpTransport

from .conftest import AsyncFacade, EventLoopThread
from .fault_server import Conn, FaultServer, Request, notification, sse
from .helpers import ScriptedHandler
from .test_transport_http_cancel import open_era, tasks_of

MARGIN_S = 1.0
"""How late past its deadline a call may raise (scheduling on a loaded machine: it holds with
two busy loops beside the tests on two shared cores)."""

MODES = [
    pytest.param("sse", "legacy", id="sse-2025-11-25"),
    pytest.param("json", "legacy", id="json-2025-11-25"),
    pytest.param("sse", "modern", id="sse-2026-07-28"),
    pytest.param("json", "modern", id="json-2026-07-28"),
]


def timed_call(transport: Any, name: str, arguments: dict[str, Any], timeout_s: float) -> float:
    """Call the tool ``name``, expecting it to time out; the seconds until it raised."""
    params = {"name": name, "arguments": arguments, "_meta": {"progressToken": "deadline"}}
    started = time.monotonic()
    with pytest.raises(McpHttpTransportTimeoutError):
        transport.request(method="tools/call", params=params, timeout_s=timeout_s)
    return time.monotonic() - started


@pytest.mark.parametrize(("mode", "era"), MODES)
def test_a_call_raises_at_its_deadline_when_the_answer_comes_after_a_silence(
    make_transport: Any,
    mcp_server_urls: dict[str, str],
    event_loop_thread: EventLoopThread,
    mode: str,
    era: str,
) -> None:
    # Progress after 1.3 s of silence (in SSE mode), the answer 1.4 s later: the call must
    # not wait for it past its 1.5 s (a read stamped with the clock from before it began
    # would give the call the 1.3 s of silence again, and the answer).
    transport = make_transport(mcp_server_urls[mode], listen=False)
    open_era(transport, era, event_loop_thread)
    elapsed = timed_call(transport, "pause", {"before": 1.3, "seconds": 1.4}, timeout_s=1.5)
    assert 1.5 <= elapsed < 1.5 + MARGIN_S


def slow_handler(transport_kind: str, delay_s: float) -> Any:
    """A handler answering every server request after ``delay_s`` (awaited in the async
    transport, so that the event loop runs on meanwhile)."""
    answers = {
        "elicitation/create": {"action": "accept", "content": {"name": "Ada"}},
        "sampling/createMessage": {
            "role": "assistant",
            "content": {"type": "text", "text": "hi"},
            "model": "test",
        },
        "roots/list": {"roots": []},
    }

    def sync_answer(method: str) -> Any:
        def answer(params: Any) -> Any:
            time.sleep(delay_s)
            return answers[method]

        return answer

    def async_answer(method: str) -> Any:
        async def answer(params: Any) -> Any:
            await asyncio.sleep(delay_s)
            return answers[method]

        return answer

    make = sync_answer if transport_kind == "sync" else async_answer
    return ScriptedHandler({method: make(method) for method in answers})


HANDLER_CASES = [
    pytest.param("sse", "legacy", "elicitation", id="elicitation-sse-2025-11-25"),
    pytest.param("sse", "legacy", "sampling", id="sampling-sse-2025-11-25"),
    pytest.param("sse", "legacy", "roots", id="roots-sse-2025-11-25"),
    pytest.param("sse", "modern", "elicitation", id="elicitation-sse-2026-07-28"),
    pytest.param("json", "modern", "elicitation", id="elicitation-json-2026-07-28"),
]
"""At 2026-07-28 the server asks for input in the result (``input_required``), and the SDK's
server does so for the elicitations of a tool's dependencies (``resolve_then_pause``); in the
handshake era its server requests come on the call's event stream (SSE mode: a JSON answer
has no room for them)."""


def ask_then_pause(kind: str, era: str, seconds: float) -> tuple[str, dict[str, Any]]:
    """The tool (and its arguments) that makes a ``kind`` request, then answers after
    ``seconds``."""
    if era == "modern":
        return "resolve_then_pause", {"seconds": seconds}
    return "ask_then_pause", {"kind": kind, "seconds": seconds}


@pytest.mark.own_client
@pytest.mark.parametrize(("mode", "era", "kind"), HANDLER_CASES)
def test_the_time_of_a_server_request_handler_counts_against_the_call(
    make_transport: Any,
    mcp_server_urls: dict[str, str],
    event_loop_thread: EventLoopThread,
    transport_kind: str,
    mode: str,
    era: str,
    kind: str,
) -> None:
    # The handler takes 1.5 s of the call's 2 s; the tool then answers 2.5 s later. Counting
    # the handler, the call raises at 2 s; leaving it out, at 3.5 s or later.
    handler = slow_handler(transport_kind, 1.5)
    transport = make_transport(mcp_server_urls[mode], listen=False, server_request_handler=handler)
    open_era(transport, era, event_loop_thread)
    name, arguments = ask_then_pause(kind, era, 2.5)
    elapsed = timed_call(transport, name, arguments, timeout_s=2.0)
    assert [call[0] for call in handler.calls] == [METHODS[kind]]
    assert 2.0 <= elapsed < 2.0 + MARGIN_S


METHODS = {
    "elicitation": "elicitation/create",
    "sampling": "sampling/createMessage",
    "roots": "roots/list",
}


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_an_async_handler_still_running_at_the_deadline_is_cut_off(
    mcp_server_urls: dict[str, str], event_loop_thread: EventLoopThread, tmp_path: Path, era: str
) -> None:
    # (A sync handler runs on the caller's thread, which nothing can interrupt: the call
    # raises once it returns.)
    async def build() -> AsyncMcpHttpTransport:
        server = ResolvedMcpServer(id="test", url=mcp_server_urls["sse"], call_timeout_s=10.0)
        handler = slow_handler("async", 5.0)
        return AsyncMcpHttpTransport(
            server=server, workspace_root=tmp_path, listen=False, server_request_handler=handler
        )

    transport = AsyncFacade(event_loop_thread, event_loop_thread.run(build()))
    try:
        open_era(transport, era, event_loop_thread)
        name, arguments = ask_then_pause("elicitation", era, 0.0)
        elapsed = timed_call(transport, name, arguments, timeout_s=1.0)
        assert 1.0 <= elapsed < 1.0 + MARGIN_S
    finally:
        transport.close()


@pytest.mark.own_client
def test_a_timeout_is_raised_before_a_cancellation_the_server_never_answers(
    make_transport: Any,
    fault_server: FaultServer,
    event_loop_thread: EventLoopThread,
    transport_kind: str,
) -> None:
    async def stall(request: Request, conn: Conn) -> None:
        if request.json.get("method") == "tools/call":
            await conn.start(200)
            await conn.send(sse(notification("notifications/progress")), pause_s=30)
        else:  # the cancellation: never answered
            await asyncio.sleep(30)
        conn.drop()

    url = fault_server.route(stall)
    threads_before = threading.active_count()
    tasks_before = tasks_of(event_loop_thread)
    transport = make_transport(url, listen=False, call_timeout_s=30.0)
    elapsed = timed_call(transport, "hold", {"key": "stalled"}, timeout_s=1.5)
    # The cancellation goes on after the error, within its own bound (awaited before it, it
    # would hold the error up by another 1.5 s).
    assert 1.5 <= elapsed < 1.5 + MARGIN_S
    deadline = time.monotonic() + CANCEL_TIMEOUT_S + 5.0
    while len(fault_server.recorded(url)) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    methods = [json.loads(r.body)["method"] for r in fault_server.recorded(url)]
    assert methods == ["tools/call", CANCELLED_NOTIFICATION]
    started = time.monotonic()
    transport.close()  # waits for the cancellation, within its bound
    assert time.monotonic() - started < CANCEL_TIMEOUT_S + MARGIN_S
    assert threading.active_count() <= threads_before
    if isinstance(transport, AsyncFacade):
        assert tasks_of(event_loop_thread) <= tasks_before
