"""Both transports against the fault server: notifications pushed to ``on_notification``, the
session-expired error marked when the call had reached the server, and ``connect_timeout_s``."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcpstream.errors import (
    McpHttpTransportProtocolError,
    McpHttpTransportSessionExpiredError,
    McpHttpTransportTimeoutError,
)
from mcpstream.jsonrpc import JsonRpcNotification
from mcpstream.models import ResolvedMcpServer
from mcpstream.transport_http import AsyncMcpHttpTransport, McpHttpTransport

from .conftest import EventLoopThread
from .fault_server import Conn, FaultServer, Request, notification, result, server_request, sse
from .helpers import ScriptedHandler, UnansweredPort
from .test_transport_http_protocol import (
    handshake,
    primed_then_ended,
    session_server,
    wait_until,
)

# -- on_notification -------------------------------------------------------------------------


def progress_then_result(request: Request) -> list[bytes]:
    """An open-ended stream: two progress notifications, the response, one trailing message."""
    return [
        sse(notification("notifications/progress", {"progress": 1})),
        sse(notification("notifications/progress", {"progress": 2})),
        sse(result(request.jsonrpc_id, "done")),
        sse(notification("notifications/message", {"data": "after"})),
    ]


class Recorder:
    """An ``on_notification`` callback that records what it got and on which thread."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, Any]] = []
        self.threads: set[str] = set()

    def __call__(self, notification: JsonRpcNotification) -> None:
        self.seen.append((notification.method, notification.params))
        self.threads.add(threading.current_thread().name)


def test_on_notification_gets_a_calls_notifications_in_order_before_it_returns(
    make_transport: Any, fault_server: FaultServer, transport_kind: str
) -> None:
    async def on_call(request: Request, conn: Conn) -> None:
        await conn.sse_body(progress_then_result(request), pause_s=0.02)

    recorder = Recorder()
    url = fault_server.route(session_server(on_call=on_call))
    transport = make_transport(url, on_notification=recorder, listen=False)
    handshake(transport)
    response = transport.request(method="tools/call", params=None, timeout_s=5)
    assert response.result == "done"
    assert recorder.seen == [
        ("notifications/progress", {"progress": 1}),
        ("notifications/progress", {"progress": 2}),
        ("notifications/message", {"data": "after"}),
    ]
    assert transport.drain_notifications() == ()
    if transport_kind == "sync":
        # Decoded, and delivered, on the thread that made the call.
        assert recorder.threads == {threading.current_thread().name}


def test_on_notification_gets_the_get_streams_notifications_on_its_thread(
    make_transport: Any, fault_server: FaultServer, transport_kind: str
) -> None:
    async def on_get(request: Request, conn: Conn) -> None:
        await conn.start(200)
        await conn.send(sse(notification("notifications/tools/list_changed"), id="g1"))
        await conn.send(sse(notification("notifications/message", {"n": 2}), id="g2"), pause_s=5)
        conn.drop()

    recorder = Recorder()
    url = fault_server.route(session_server(on_get=on_get))
    transport = make_transport(url, on_notification=recorder)
    handshake(transport)
    wait_until(lambda: len(recorder.seen) == 2)
    assert [method for method, _ in recorder.seen] == [
        "notifications/tools/list_changed",
        "notifications/message",
    ]
    assert transport.drain_notifications() == ()
    if transport_kind == "sync":
        assert recorder.threads == {"mcpstream-get-test"}


def test_a_raising_callback_is_logged_and_the_call_goes_on(
    make_transport: Any, fault_server: FaultServer, caplog: pytest.LogCaptureFixture
) -> None:
    async def on_call(request: Request, conn: Conn) -> None:
        await conn.sse_body(progress_then_result(request))

    calls: list[str] = []

    def explode(notification: JsonRpcNotification) -> None:
        calls.append(notification.method)
        raise RuntimeError("callback bug")

    url = fault_server.route(session_server(on_call=on_call))
    transport = make_transport(url, on_notification=explode, listen=False)
    handshake(transport)
    with caplog.at_level(logging.WARNING, logger="mcpstream.transport"):
        assert transport.request(method="tools/call", params=None, timeout_s=5).result == "done"
    assert len(calls) == 3
    assert sum("notification callback" in r.getMessage() for r in caplog.records) == 3


def test_notifications_decoded_before_an_error_are_delivered(
    make_transport: Any, fault_server: FaultServer
) -> None:
    async def on_call(request: Request, conn: Conn) -> None:
        # The notification and a malformed event arrive in one chunk.
        await conn.sse_body([sse(notification("notifications/progress")) + sse("{not json")])

    recorder = Recorder()
    url = fault_server.route(session_server(on_call=on_call))
    transport = make_transport(url, on_notification=recorder, listen=False)
    handshake(transport)
    with pytest.raises(McpHttpTransportProtocolError, match="malformed"):
        transport.request(method="tools/call", params=None, timeout_s=5)
    assert recorder.seen == [("notifications/progress", None)]


def test_the_async_transport_awaits_a_coroutine_callback_in_order(
    fault_server: FaultServer, event_loop_thread: EventLoopThread, tmp_path: Path
) -> None:
    async def on_call(request: Request, conn: Conn) -> None:
        await conn.sse_body(progress_then_result(request))

    url = fault_server.route(session_server(on_call=on_call))
    seen: list[Any] = []

    async def slow(notification: JsonRpcNotification) -> None:
        await asyncio.sleep(0.02)
        seen.append(notification.params)

    async def scenario() -> Any:
        async with AsyncMcpHttpTransport(
            server=ResolvedMcpServer(id="test", url=url),
            workspace_root=tmp_path,
            on_notification=slow,
            listen=False,
        ) as transport:
            await transport.request(method="initialize", params={}, timeout_s=5)
            response = await transport.request(method="tools/call", params=None, timeout_s=5)
            # Every notification before the response was awaited before the call returned.
            assert seen[:2] == [{"progress": 1}, {"progress": 2}]
            assert transport.drain_notifications() == ()
            return response.result

    assert event_loop_thread.run(scenario()) == "done"
    assert seen == [{"progress": 1}, {"progress": 2}, {"data": "after"}]


# -- the session-expired error: was the call delivered? --------------------------------------


def test_a_404_to_the_get_resuming_the_calls_stream_says_it_was_delivered(
    make_transport: Any, fault_server: FaultServer
) -> None:
    on_call = primed_then_ended()  # the server took the call, then the stream broke off

    async def on_get(request: Request, conn: Conn) -> None:
        if "last-event-id" not in request.headers:
            await conn.respond(405, content_type=None)
            return
        await conn.respond(404, b"session not found", content_type="text/plain")

    url = fault_server.route(session_server(on_call=on_call, on_get=on_get))
    transport = make_transport(url, listen=False)
    handshake(transport)
    with pytest.raises(McpHttpTransportSessionExpiredError) as raised:
        transport.request(method="tools/call", params=None, timeout_s=5)
    assert raised.value.request_delivered is True
    assert "resuming the event stream of 'tools/call'" in str(raised.value)
    assert raised.value.error_code == "mcp_http_transport_session_expired"
    posts = [r for r in fault_server.recorded(url) if r.method == "POST"]
    assert [r.json.get("method") for r in posts].count("tools/call") == 1


def test_a_404_to_the_answer_of_a_server_request_during_a_call_says_it_was_delivered(
    make_transport: Any, fault_server: FaultServer
) -> None:
    async def on_call(request: Request, conn: Conn) -> None:
        await conn.start(200)
        await conn.send(sse(server_request(9, "roots/list")), pause_s=5)
        conn.drop()

    inner = session_server(on_call=on_call)

    async def handler(request: Request, conn: Conn) -> None:
        if request.method == "POST" and request.is_client_reply:
            await conn.respond(404, b"session not found", content_type="text/plain")
            return
        await inner(request, conn)

    url = fault_server.route(handler)
    transport = make_transport(
        url, listen=False, server_request_handler=ScriptedHandler({"roots/list": {"roots": []}})
    )
    handshake(transport)
    started = time.monotonic()
    with pytest.raises(McpHttpTransportSessionExpiredError) as raised:
        transport.request(method="tools/call", params=None, timeout_s=10)
    assert time.monotonic() - started < 4
    assert raised.value.request_delivered is True
    assert "roots/list" in str(raised.value)


# -- connect_timeout_s -----------------------------------------------------------------------


def test_the_connect_timeout_ends_a_call_to_an_unanswered_port_early(
    make_transport: Any,
) -> None:
    with UnansweredPort() as port:
        transport = make_transport(port.url, connect_timeout_s=0.3, listen=False)
        started = time.monotonic()
        with pytest.raises(McpHttpTransportTimeoutError) as raised:
            transport.request(method="initialize", params={}, timeout_s=20)
        elapsed = time.monotonic() - started
    assert 0.25 <= elapsed < 3
    assert "could not connect for 'initialize' within the connect timeout of 0.300s" in str(
        raised.value
    )


def test_without_a_connect_timeout_connecting_is_bounded_by_the_calls_deadline(
    make_transport: Any,
) -> None:
    with UnansweredPort() as port:
        transport = make_transport(port.url, listen=False)
        with pytest.raises(McpHttpTransportTimeoutError, match=r"did not complete within 0\.5"):
            transport.request(method="initialize", params={}, timeout_s=0.5)


def test_the_connect_timeout_does_not_bound_a_slow_answer(
    make_transport: Any, fault_server: FaultServer
) -> None:
    async def on_call(request: Request, conn: Conn) -> None:
        await asyncio.sleep(0.6)
        await conn.sse_body([sse(result(request.jsonrpc_id, "late but fine"))])

    url = fault_server.route(session_server(on_call=on_call))
    transport = make_transport(url, connect_timeout_s=0.2, listen=False)
    handshake(transport)
    assert transport.request(method="tools/call", params=None, timeout_s=5).result == (
        "late but fine"
    )


def test_each_http_request_gets_the_connect_timeout_and_the_rest_of_the_deadline(
    fault_server: FaultServer, tmp_path: Path
) -> None:
    timeouts: list[dict[str, float | None]] = []

    def record(request: httpx.Request) -> None:
        timeouts.append(dict(request.extensions["timeout"]))

    url = fault_server.route(session_server())
    with (
        # No timeouts of the host's: mcpstream's bounds apply (test_host_settings for the rule).
        httpx.Client(timeout=None, event_hooks={"request": [record]}) as client,
        McpHttpTransport(
            server=ResolvedMcpServer(id="test", url=url),
            workspace_root=tmp_path,
            client=client,
            connect_timeout_s=0.25,
            listen=False,
        ) as transport,
    ):
        transport.request(method="initialize", params={}, timeout_s=7)
        transport.request(method="ping", params=None, timeout_s=0.1)
    first, second, *_ = timeouts
    assert first["connect"] == 0.25
    assert first["read"] is not None and 6.5 < first["read"] <= 7
    assert first["write"] == first["read"] and first["pool"] == first["read"]
    # A call with less time left than the connect timeout: its deadline bounds connecting too.
    assert second["connect"] is not None and second["connect"] <= 0.1
    assert second["read"] == second["connect"]


def test_a_host_clients_timeouts_apply_within_the_calls_and_mcpstreams_fill_in_the_rest(
    fault_server: FaultServer, tmp_path: Path
) -> None:
    timeouts: list[dict[str, float | None]] = []

    def record(request: httpx.Request) -> None:
        timeouts.append(dict(request.extensions["timeout"]))

    url = fault_server.route(session_server())
    host_timeout = httpx.Timeout(3.0, connect=0.1, read=None)
    with (
        httpx.Client(timeout=host_timeout, event_hooks={"request": [record]}) as client,
        McpHttpTransport(
            server=ResolvedMcpServer(id="test", url=url),
            workspace_root=tmp_path,
            client=client,
            connect_timeout_s=0.25,
            listen=False,
        ) as transport,
    ):
        transport.request(method="initialize", params={}, timeout_s=7)
        transport.request(method="ping", params=None, timeout_s=1.0)
    first, second, *_ = timeouts
    assert (first["connect"], first["write"], first["pool"]) == (0.1, 3.0, 3.0)  # the host's
    assert first["read"] is not None and 6.5 < first["read"] <= 7  # the host set none
    # The host's waits, cut to what is left of the call.
    assert second["write"] is not None and second["write"] <= 1.0


@pytest.mark.parametrize("value", [0, -1.0])
def test_a_connect_timeout_that_is_not_positive_is_refused(value: float, tmp_path: Path) -> None:
    server = ResolvedMcpServer(id="test", url="http://127.0.0.1:9/mcp")
    with pytest.raises(ValueError, match="connect_timeout_s"):
        McpHttpTransport(server=server, workspace_root=tmp_path, connect_timeout_s=value)
    with pytest.raises(ValueError, match="connect_timeout_s"):
        AsyncMcpHttpTransport(server=server, workspace_root=tmp_path, connect_timeout_s=value)
