"""What the clients take from their transport: notifications pushed as they arrive (no polling),
no retry of a call the server may have run when its session expired, and a connect timeout that
bounds connecting only. Against the demo server and the transport tests' fault server."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest
from mcpstream import AsyncClient, Client, Notification, Progress, __version__
from mcpstream.demo import DemoServer
from mcpstream.errors import McpHttpTransportSessionExpiredError, McpTimeoutError
from transport.fault_server import Conn, FaultServer, Request, notification, result, sse
from transport.helpers import UnansweredPort

INITIALIZE_RESULT = {
    "protocolVersion": "2025-11-25",
    "capabilities": {"tools": {}},
    "serverInfo": {"name": "fault", "version": "0"},
}


class SessionServer:
    """Plays an MCP server on the fault server: ``initialize`` opens session ``s1``, ``s2``, ...;
    a POST carrying another session id gets 404. ``tools/call`` goes to ``on_tool_call``,
    a GET with ``Last-Event-ID`` to ``on_resume``, any other GET to ``on_get`` (default 405)."""

    def __init__(
        self,
        fault_server: FaultServer,
        *,
        on_tool_call: Any = None,
        on_resume: Any = None,
        on_get: Any = None,
        initialize_delay_s: float = 0.0,
    ) -> None:
        self.session: str | None = None
        self.sessions = 0
        self.on_tool_call = on_tool_call
        self.on_resume = on_resume
        self.on_get = on_get
        self.initialize_delay_s = initialize_delay_s
        self.fault_server = fault_server
        self.url = fault_server.route(self.handle)

    def forget(self) -> None:
        """Lose the session, as a server that restarted does."""
        self.session = None

    def rpc_methods(self) -> list[str]:
        """The JSON-RPC methods POSTed so far."""
        return [
            r.json["method"]
            for r in self.fault_server.recorded(self.url)
            if r.method == "POST" and "method" in (r.json or {})
        ]

    async def handle(self, request: Request, conn: Conn) -> None:
        if request.method == "DELETE":
            await conn.respond(200, content_type=None)
            return
        if request.method == "GET":
            if "last-event-id" in request.headers and self.on_resume is not None:
                await self.on_resume(request, conn)
            elif self.on_get is not None:
                await self.on_get(request, conn)
            else:
                await conn.respond(405, content_type=None)
            return
        body = request.json
        if body.get("method") == "initialize":
            await asyncio.sleep(self.initialize_delay_s)
            self.sessions += 1
            self.session = f"s{self.sessions}"
            answer = result(body["id"], INITIALIZE_RESULT).encode()
            await conn.respond(200, answer, headers={"Mcp-Session-Id": self.session})
            return
        if request.headers.get("mcp-session-id") != self.session:
            await conn.respond(404, b"no such session", content_type="text/plain")
            return
        if "id" not in body or "method" not in body:
            await conn.accept()
            return
        if body["method"] == "tools/call" and self.on_tool_call is not None:
            await self.on_tool_call(request, conn)
            return
        answer = {"content": [{"type": "text", "text": "ok"}]}
        await conn.respond(200, result(body["id"], answer).encode())


def broken_stream_server(fault_server: FaultServer) -> SessionServer:
    """``tools/call`` primes its stream with an event id and ends it before the response; the
    GET resuming it finds the session gone (the server restarted meanwhile): 404."""

    async def on_tool_call(request: Request, conn: Conn) -> None:
        await conn.sse_body([sse("", id="e1", retry=10)])

    async def on_resume(request: Request, conn: Conn) -> None:
        server.forget()
        await conn.respond(404, b"no such session", content_type="text/plain")

    server = SessionServer(fault_server, on_tool_call=on_tool_call, on_resume=on_resume)
    return server


def lost_session_server(fault_server: FaultServer) -> SessionServer:
    """The first ``tools/call`` finds the session gone (its POST gets 404); later ones work."""
    calls = 0

    async def on_tool_call(request: Request, conn: Conn) -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            server.forget()
            await conn.respond(404, b"no such session", content_type="text/plain")
            return
        answer = {"content": [{"type": "text", "text": "ran once"}]}
        await conn.respond(200, result(request.jsonrpc_id, answer).encode())

    server = SessionServer(fault_server, on_tool_call=on_tool_call)
    return server


# -- headers: the User-Agent ------------------------------------------------------------------


@pytest.mark.parametrize("configured", [None, "host/1"])
def test_both_clients_send_a_configured_user_agent_else_mcpstreams(
    fault_server: FaultServer, configured: str | None
) -> None:
    server = SessionServer(fault_server)
    headers = {} if configured is None else {"user-agent": configured}

    async def scenario() -> None:
        async with AsyncClient(server.url, headers=headers) as client:
            await client.call_tool("echo")

    with Client(server.url, headers=headers) as client:
        client.call_tool("echo")
    asyncio.run(scenario())
    recorded = fault_server.recorded(server.url)
    assert {"POST", "DELETE"} <= {request.method for request in recorded}
    expected = configured or f"mcpstream/{__version__}"
    assert {request.headers["user-agent"] for request in recorded} == {expected}


# -- session expiry: retry only a call the server did not take --------------------------------


def test_a_tool_call_whose_resumption_finds_the_session_gone_is_not_sent_again(
    fault_server: FaultServer,
) -> None:
    server = broken_stream_server(fault_server)
    with Client(server.url) as client:
        with pytest.raises(McpHttpTransportSessionExpiredError) as raised:
            client.call_tool("delete_everything")
        assert raised.value.request_delivered is True
        assert server.rpc_methods().count("tools/call") == 1
        assert client.session_renewals == 0
        # The next call finds the session gone on its own POST: a new session, and it goes on.
        assert client.ping() > 0
        assert client.session_renewals == 1
    assert server.rpc_methods().count("tools/call") == 1


def test_a_tool_call_refused_for_its_session_is_sent_once_more_in_a_new_one(
    fault_server: FaultServer,
) -> None:
    server = lost_session_server(fault_server)
    with Client(server.url) as client:
        assert client.call_tool("write_file").text == "ran once"
        assert client.session_renewals == 1
    assert server.rpc_methods().count("tools/call") == 2
    assert server.rpc_methods().count("initialize") == 2


def test_the_async_client_does_not_send_a_delivered_tool_call_again(
    fault_server: FaultServer,
) -> None:
    server = broken_stream_server(fault_server)
    retried = lost_session_server(fault_server)

    async def scenario() -> None:
        async with AsyncClient(server.url) as client:
            with pytest.raises(McpHttpTransportSessionExpiredError) as raised:
                await client.call_tool("delete_everything")
            assert raised.value.request_delivered is True
            assert client.session_renewals == 0
            assert await client.ping() > 0
            assert client.session_renewals == 1
        async with AsyncClient(retried.url) as client:
            assert (await client.call_tool("write_file")).text == "ran once"
            assert client.session_renewals == 1

    asyncio.run(scenario())
    assert server.rpc_methods().count("tools/call") == 1
    assert retried.rpc_methods().count("tools/call") == 2


# -- notifications pushed by the transport ----------------------------------------------------


def get_stream_announcing(message: str) -> Any:
    """A GET stream that sends one log notification after a moment, then stays open."""

    async def on_get(request: Request, conn: Conn) -> None:
        await conn.start(200)
        await conn.send(b": open\n\n", pause_s=0.1)
        await conn.send(
            sse(notification("notifications/message", {"level": "info", "data": message})),
            pause_s=5,
        )
        conn.drop()

    return on_get


def test_notifications_between_calls_arrive_on_the_get_stream_thread_without_polling(
    fault_server: FaultServer,
) -> None:
    server = SessionServer(fault_server, on_get=get_stream_announcing("between calls"))
    arrived = threading.Event()
    threads: list[str] = []

    def on_notification(note: Notification) -> None:
        threads.append(threading.current_thread().name)
        arrived.set()

    with Client(server.url, on_notification=on_notification):
        assert arrived.wait(5)
        names = {thread.name for thread in threading.enumerate()}
    assert threads == [f"mcpstream-get-{server.url.split('/')[2]}"]
    assert not any(name.startswith("mcpstream-notifications") for name in names)


def test_progress_runs_on_the_calling_thread_before_the_call_returns(
    sse_server: DemoServer,
) -> None:
    seen: list[tuple[str, float]] = []

    def on_progress(progress: Progress) -> None:
        seen.append((threading.current_thread().name, progress.progress))

    with Client(sse_server.url) as client:
        assert client.call_tool("count", {"steps": 3}, progress=on_progress).text == "counted to 3"
        assert seen == [(threading.current_thread().name, step) for step in (1, 2, 3)]


def test_the_async_client_awaits_notifications_from_the_get_stream(
    fault_server: FaultServer,
) -> None:
    server = SessionServer(fault_server, on_get=get_stream_announcing("async push"))

    async def scenario() -> list[Any]:
        arrived = asyncio.Event()
        seen: list[Any] = []

        async def on_notification(note: Notification) -> None:
            await asyncio.sleep(0)
            seen.append(note.params["data"])
            arrived.set()

        async with AsyncClient(server.url, on_notification=on_notification):
            await asyncio.wait_for(arrived.wait(), 5)
            assert not any(
                task.get_name() == "mcpstream-notifications" for task in asyncio.all_tasks()
            )
        return seen

    assert asyncio.run(scenario()) == ["async push"]


# -- connect timeout --------------------------------------------------------------------------


def test_the_connect_timeout_bounds_connecting_not_the_handshake(
    fault_server: FaultServer,
) -> None:
    with UnansweredPort() as port:
        client = Client(port.url, connect_timeout_s=0.3, request_timeout_s=30)
        started = time.monotonic()
        with pytest.raises(McpTimeoutError, match=r"connect timeout of 0\.300s"):
            client.connect()
        assert time.monotonic() - started < 3
        client.close()
    # A server that takes longer to answer initialize than the connect timeout is fine.
    slow = SessionServer(fault_server, initialize_delay_s=0.5)
    with Client(slow.url, connect_timeout_s=0.2) as client:
        assert client.server_info is not None and client.server_info.name == "fault"


def test_the_async_client_has_the_same_connect_timeout() -> None:
    async def scenario() -> None:
        with UnansweredPort() as port:
            client = AsyncClient(port.url, connect_timeout_s=0.3, request_timeout_s=30)
            with pytest.raises(McpTimeoutError, match="connect timeout"):
                await client.connect()
            await client.close()

    started = time.monotonic()
    asyncio.run(scenario())
    assert time.monotonic() - started < 3
