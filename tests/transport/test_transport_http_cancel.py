"""Cancellation at the server, through the drop-in transports (sync and async, on our own
client and a host's httpx2 one) against the official SDK server in both eras: a request that
times out, or whose asyncio task is cancelled, is cancelled there (the SDK's tool sees its task
cancelled: the ``hold`` tool records it, ``outcome`` reads it back), and no thread, socket or
task is left behind. Against the fault server: the notification's wire form, and a server that
never answers it, which holds a timeout up not at all (the notification goes on after the
error) and a cancelled task by ``CANCEL_TIMEOUT_S`` at most."""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from mcpstream._eras import Negotiation
from mcpstream._http.core.cancel import CANCEL_TIMEOUT_S, CANCELLED_NOTIFICATION
from mcpstream.errors import McpHttpTransportError, McpHttpTransportTimeoutError
from mcpstream.models import ResolvedMcpServer
from mcpstream.transport_http_async import AsyncMcpHttpTransport

from .conftest import AsyncFacade, EventLoopThread
from .fault_server import Conn, FaultServer, Request, notification, sse
from .helpers import (
    CLIENT_CAPABILITIES,
    call_tool,
    close_shared_pools,
    initialize,
    open_sockets_to,
    tool_text,
)

ERAS = [
    pytest.param("sse", "legacy", id="sse-2025-11-25"),
    pytest.param("json", "legacy", id="json-2025-11-25"),
    pytest.param("stateless", "legacy", id="stateless-2025-11-25"),
    pytest.param("sse", "modern", id="sse-2026-07-28"),
    pytest.param("stateless", "modern", id="stateless-2026-07-28"),
    pytest.param("http-sse", "legacy", id="http-sse-2024-11-05"),
]
"""Where the server sees the cancellation. The SDK server in JSON mode at 2026-07-28 answers in
the request's own task without watching the connection, so a closed stream stops nothing
there until the tool returns: not a case the client can change."""

KEYS = itertools.count(1)


@pytest.fixture(scope="session")
def server_urls(mcp_server_urls: dict[str, str], http_sse_server: str) -> dict[str, str]:
    """The SDK server's URLs by mode, its HTTP+SSE transport's stream (``http-sse``) too."""
    return {**mcp_server_urls, "http-sse": f"{http_sse_server}/sse"}


SERVER_WAIT_S = 10.0


def port_of(url: str) -> int:
    return int(url.split(":")[2].split("/")[0])


def open_era(transport: Any, era: str, runner: EventLoopThread) -> None:
    """Initialize (the handshake era) or negotiate 2026-07-28."""
    if era == "legacy":
        initialize(transport)
        return
    negotiation = Negotiation(CLIENT_CAPABILITIES, {"name": "mcpstream-tests", "version": "0"})
    if isinstance(transport, AsyncFacade):
        negotiated = runner.run(transport.inner.negotiate(negotiation))
    else:
        negotiated = transport.negotiate(negotiation)
    assert negotiated.modern


def hold(key: str, seconds: float = 60.0) -> dict[str, Any]:
    return {"name": "hold", "arguments": {"key": key, "seconds": seconds}}


def server_outcome(transport: Any, key: str, wanted: str) -> str:
    """What the server recorded for ``key``, polled until it is ``wanted`` (or time is up)."""
    deadline = time.monotonic() + SERVER_WAIT_S
    while True:
        seen = tool_text(call_tool(transport, "outcome", {"key": key}))
        if seen == wanted or time.monotonic() > deadline:
            return seen
        time.sleep(0.05)


def tasks_of(runner: EventLoopThread) -> int:
    async def count() -> int:
        return len(asyncio.all_tasks()) - 1  # this one

    return runner.run(count())


@pytest.mark.parametrize(("mode", "era"), ERAS)
def test_a_request_that_times_out_is_cancelled_at_the_server_and_leaves_nothing_behind(
    make_transport: Any,
    server_urls: dict[str, str],
    event_loop_thread: EventLoopThread,
    mode: str,
    era: str,
) -> None:
    url = server_urls[mode]
    close_shared_pools(event_loop_thread)  # (earlier tests' idle connections)
    threads_before = threading.active_count()
    sockets_before = open_sockets_to(port_of(url))
    tasks_before = tasks_of(event_loop_thread)
    transport = make_transport(url, listen=False)
    open_era(transport, era, event_loop_thread)
    key = f"timeout-{next(KEYS)}"
    with pytest.raises(McpHttpTransportTimeoutError, match="'tools/call' did not complete"):
        transport.request(method="tools/call", params=hold(key), timeout_s=0.5)
    assert server_outcome(transport, key, "cancelled") == "cancelled"
    # The session goes on: the next call is answered.
    assert tool_text(call_tool(transport, "echo", {"text": "after"})) == "after"
    transport.close()
    # A transport's own client leaves its idle connections in the process's pool (and, sync,
    # its reaper thread running): the pool's, closed here. A host's client keeps its idle
    # keep-alive connections (closed with it, after the test).
    close_shared_pools(event_loop_thread)
    assert threading.active_count() <= threads_before
    assert tasks_of(event_loop_thread) <= tasks_before
    idle = 0 if transport._owns_client else 2
    assert open_sockets_to(port_of(url)) <= sockets_before + idle


@pytest.mark.parametrize(("mode", "era"), ERAS)
def test_a_cancelled_task_cancels_its_request_at_the_server(
    server_urls: dict[str, str],
    event_loop_thread: EventLoopThread,
    tmp_path: Path,
    mode: str,
    era: str,
) -> None:
    url = server_urls[mode]
    close_shared_pools(event_loop_thread)  # (earlier tests' idle connections)
    sockets_before = open_sockets_to(port_of(url))
    tasks_before = tasks_of(event_loop_thread)
    key = f"task-{next(KEYS)}"

    async def build() -> AsyncMcpHttpTransport:
        server = ResolvedMcpServer(id="test", url=url, call_timeout_s=10.0)
        return AsyncMcpHttpTransport(server=server, workspace_root=tmp_path, listen=False)

    transport = AsyncFacade(event_loop_thread, event_loop_thread.run(build()))
    open_era(transport, era, event_loop_thread)

    async def cancel_it() -> float:
        call = asyncio.ensure_future(
            transport.inner.request(method="tools/call", params=hold(key), timeout_s=60.0)
        )
        while await _outcome(transport, key) != "held":  # until the server runs the tool
            if call.done():
                call.result()  # it failed instead: its error fails the test, at once
                raise AssertionError("the call ended before the server ran it")
            await asyncio.sleep(0.05)
        started = time.monotonic()
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        return time.monotonic() - started

    elapsed = event_loop_thread.run(cancel_it())
    assert elapsed < CANCEL_TIMEOUT_S + 5.0  # bounded (generous: a loaded machine)
    assert server_outcome(transport, key, "cancelled") == "cancelled"
    transport.close()
    close_shared_pools(event_loop_thread)  # the session's idle connections: the pool's
    assert tasks_of(event_loop_thread) <= tasks_before
    assert open_sockets_to(port_of(url)) <= sockets_before


async def _outcome(transport: AsyncFacade, key: str) -> str:
    """What the server recorded for ``key`` (``unknown`` before the tool started)."""
    params = {"name": "outcome", "arguments": {"key": key}}
    response = await transport.inner.request(method="tools/call", params=params, timeout_s=10)
    return str(response.result["content"][0]["text"])


# -- the wire form, and a server that does not answer it ----------------------------------------


def test_the_notification_names_the_request_and_a_server_that_never_answers_it_is_bounded(
    make_transport: Any, fault_server: FaultServer
) -> None:
    async def stall(request: Request, conn: Conn) -> None:
        body = request.json
        if body.get("method") == "tools/call":
            await conn.start(200)
            await conn.send(sse(notification("notifications/progress")), pause_s=30)
            conn.drop()
        else:  # the cancellation: never answered
            await asyncio.sleep(30)
            conn.drop()

    url = fault_server.route(stall)
    transport = make_transport(url, listen=False)
    started = time.monotonic()
    with pytest.raises(McpHttpTransportTimeoutError):
        transport.request(method="tools/call", params=hold("dead"), timeout_s=0.3)
    elapsed = time.monotonic() - started
    assert elapsed < 0.3 + 1.0  # the cancellation goes on after the error (generous: load)
    deadline = time.monotonic() + SERVER_WAIT_S
    while len(fault_server.recorded(url)) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    bodies = [json.loads(r.body) for r in fault_server.recorded(url)]
    call, cancel = bodies
    assert cancel == {
        "jsonrpc": "2.0",
        "method": CANCELLED_NOTIFICATION,
        "params": {"requestId": call["id"], "reason": "timed out after 0.300s"},
    }


def test_no_cancellation_for_a_request_the_server_refused(
    make_transport: Any, fault_server: FaultServer
) -> None:
    async def refuse(request: Request, conn: Conn) -> None:
        await conn.respond(503, b"busy", content_type="text/plain")

    url = fault_server.route(refuse)
    transport = make_transport(url, listen=False)
    with pytest.raises(McpHttpTransportError):
        transport.request(method="tools/call", params=hold("refused"), timeout_s=0.3)
    assert [json.loads(r.body)["method"] for r in fault_server.recorded(url)] == ["tools/call"]


def test_a_cancelled_task_is_not_held_up_by_a_server_that_never_answers_the_cancellation(
    fault_server: FaultServer, event_loop_thread: EventLoopThread, tmp_path: Path
) -> None:
    async def stall(request: Request, conn: Conn) -> None:
        if request.json.get("method") == "tools/call":
            await conn.start(200)
            await conn.send(sse(notification("notifications/progress")), pause_s=30)
        else:  # the cancellation: never answered
            await asyncio.sleep(30)
        conn.drop()

    url = fault_server.route(stall)
    tasks_before = tasks_of(event_loop_thread)

    async def scenario() -> tuple[float, float]:
        server = ResolvedMcpServer(id="test", url=url, call_timeout_s=60.0)
        async with AsyncMcpHttpTransport(
            server=server, workspace_root=tmp_path, listen=False
        ) as transport:
            call = asyncio.ensure_future(
                transport.request(method="tools/call", params=hold("t"), timeout_s=60.0)
            )
            await asyncio.sleep(0.5)
            started = time.monotonic()
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
            cancelled_s = time.monotonic() - started
            # Cancelled twice: the notification is given up at once.
            call = asyncio.ensure_future(
                transport.request(method="tools/call", params=hold("u"), timeout_s=60.0)
            )
            await asyncio.sleep(0.5)
            started = time.monotonic()
            call.cancel()
            await asyncio.sleep(0.2)  # the notification is under way
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
            return cancelled_s, time.monotonic() - started

    once_s, twice_s = event_loop_thread.run(scenario())
    assert once_s < CANCEL_TIMEOUT_S + 3.0
    assert twice_s < CANCEL_TIMEOUT_S  # generous: the second cancel ends it at once
    methods = [json.loads(r.body)["method"] for r in fault_server.recorded(url)]
    assert methods == ["tools/call", CANCELLED_NOTIFICATION] * 2
    assert tasks_of(event_loop_thread) <= tasks_before
