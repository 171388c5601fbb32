"""The pools the sessions of mcpstream's own clients share (``_http/shared_pools.py``): one
connection carries one session after another, idle ones expire (the sync pools' reaper thread
runs only while some are idle), an event loop's pools close when ``asyncio.run`` ends it and
are never used from another loop, TLS sessions resume, ``MCPSTREAM_SHARED_POOL=0`` gives each
client its own pool again, and ``Client``/``AsyncClient`` open no GET stream they have no use
for. Against the scripted loopback server (``h1_scripted``) and the official SDK's server."""

from __future__ import annotations

import asyncio
import os
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from mcpstream import AsyncClient, Client, close_pools
from mcpstream._http import shared_pools
from mcpstream._http.h1 import AsyncHttp1Transport, Http1Transport
from mcpstream._http.httpx_clients import (
    direct_transport,
    make_async_client,
    make_client,
    proxies_configured,
)
from plain_http.tls import self_signed_certificate

from .conftest import EventLoopThread
from .h1_scripted import Exchange, Reply, ScriptedServer, ok
from .helpers import live_streams, open_sockets_to

REAPER = "mcpstream-pool-reaper"
WAIT_S = 15.0
"""How long a test waits for what happens in the background (an expiry of 0.5 s, a close):
generous, for a loaded machine; the tests poll, so a quick machine waits no longer."""


def _reaper_running() -> bool:
    return any(thread.name == REAPER and thread.is_alive() for thread in threading.enumerate())


def _eventually(condition: Callable[[], bool]) -> bool:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


@pytest.fixture(autouse=True)
def _h1_transport(monkeypatch: pytest.MonkeyPatch) -> None:
    """The HTTP/1.1 transport, whose pools these test, also in the suite's run over httpx's
    own transport (``MCPSTREAM_H1_TRANSPORT=0``), whose clients are never shared."""
    monkeypatch.setenv("MCPSTREAM_H1_TRANSPORT", "1")


@pytest.fixture(autouse=True)
def _closed_pools() -> Iterator[None]:
    """Each test starts and ends with no idle connection in the process's pools."""
    close_pools()
    yield
    close_pools()


@pytest.fixture
def serve() -> Iterator[Callable[..., ScriptedServer]]:
    servers: list[ScriptedServer] = []

    def start(reply: Reply, tls: Any = None) -> ScriptedServer:
        server = ScriptedServer(reply, tls)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


def keep_alive(seconds: float) -> Reply:
    """An answer whose ``Keep-Alive: timeout=`` makes the pool expire the connection soon."""

    def reply(exchange: Exchange) -> None:
        exchange.send(
            b"HTTP/1.1 200 OK\r\nKeep-Alive: timeout=%d\r\nContent-Length: 2\r\n\r\nok" % seconds
        )

    return reply


# -- sync ---------------------------------------------------------------------------------------


def test_clients_made_one_after_another_share_one_connection(
    serve: Callable[..., ScriptedServer],
) -> None:
    server = serve(ok(b"ok"))
    first = make_client()
    assert first.get(server.url).content == b"ok"
    first.close()
    # the closed client's connection stays open, idle in the process's pool
    assert open_sockets_to(server.port) == 1
    second = make_client()
    assert direct_transport(second) is direct_transport(first)
    assert isinstance(direct_transport(second), Http1Transport)
    assert second.get(server.url).content == b"ok"
    second.close()
    assert server.connections == 1


def test_the_reaper_runs_only_while_a_connection_is_idle(
    serve: Callable[..., ScriptedServer],
) -> None:
    assert not _reaper_running()
    server = serve(keep_alive(1))  # idle for 0.5 s at most (``pool.idle_expiry``)
    with make_client() as client:
        assert client.get(server.url).content == b"ok"
    assert _reaper_running()
    # the reaper closes the expired connection, then ends: nothing is left idle
    assert _eventually(lambda: open_sockets_to(server.port) == 0)
    assert _eventually(lambda: not _reaper_running())
    # a connection going idle again starts it again
    with make_client() as client:
        assert client.get(server.url).content == b"ok"
    assert _reaper_running()
    assert _eventually(lambda: not _reaper_running())
    assert server.connections == 2


def test_close_pools_closes_the_idle_connections_and_ends_the_reaper(
    serve: Callable[..., ScriptedServer],
) -> None:
    server = serve(ok(b"ok"))  # idle for the pool's 5 s
    with make_client() as client:
        assert client.get(server.url).content == b"ok"
    assert open_sockets_to(server.port) == 1
    assert _reaper_running()
    close_pools()
    assert not _reaper_running()
    assert _eventually(lambda: open_sockets_to(server.port) == 0)
    # the pool goes on: the next client connects again
    with make_client() as client:
        assert client.get(server.url).content == b"ok"
    assert server.connections == 2


def test_the_opt_out_gives_each_client_a_pool_closed_with_it(
    serve: Callable[..., ScriptedServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(shared_pools.SHARED_ENV, "0")
    server = serve(ok(b"ok"))
    first, second = make_client(), make_client()
    assert direct_transport(first) is not direct_transport(second)
    assert first.get(server.url).content == b"ok"
    assert second.get(server.url).content == b"ok"
    assert server.connections == 2
    first.close()
    second.close()
    assert _eventually(lambda: open_sockets_to(server.port) == 0)
    assert not _reaper_running()


# -- async --------------------------------------------------------------------------------------


def test_the_end_of_asyncio_run_closes_its_loops_pools(
    serve: Callable[..., ScriptedServer],
) -> None:
    server = serve(ok(b"ok"))
    transports = []

    async def session() -> None:
        for _ in range(2):
            async with make_async_client() as client:
                assert (await client.get(server.url)).content == b"ok"
                transports.append(direct_transport(client))

    asyncio.run(session())
    # one connection for both clients of the loop, closed as the loop ended (no close_pools)
    assert server.connections == 1
    assert transports[0] is transports[1]
    assert isinstance(transports[0], AsyncHttp1Transport)
    assert _eventually(lambda: open_sockets_to(server.port) == 0)
    # another loop, another pool: a connection of its own
    asyncio.run(session())
    assert server.connections == 2
    assert transports[2] is not transports[0]


def test_a_connection_is_never_used_from_another_loop(
    serve: Callable[..., ScriptedServer], event_loop_thread: EventLoopThread
) -> None:
    server = serve(ok(b"ok"))
    client = event_loop_thread.run(_made())

    async def get() -> Any:
        assert (await client.get(server.url)).content == b"ok"
        return direct_transport(client)

    # one client used from two loops in turn: each loop's requests go to the loop's own pool
    on_thread = event_loop_thread.run(get())
    elsewhere = asyncio.run(get())
    assert event_loop_thread.run(get()) is on_thread
    assert on_thread is not elsewhere
    assert server.connections == 2  # the thread's loop reused its own connection
    event_loop_thread.run(client.aclose())


async def _made() -> Any:
    return make_async_client()


# -- TLS resumption -----------------------------------------------------------------------------


def _tls_server(
    serve: Callable[..., ScriptedServer], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> ScriptedServer:
    """A TLS server whose certificate the clients made now trust (``SSL_CERT_FILE``: their
    pools are those of that CA setting)."""
    cert_path, key_path = self_signed_certificate(tmp_path, "localhost")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_path, key_path)
    context.set_alpn_protocols(["http/1.1"])
    monkeypatch.setenv("SSL_CERT_FILE", str(cert_path))
    return serve(ok(b"secret"), context)


def test_a_new_sync_tls_connection_resumes_the_origins_session(
    serve: Callable[..., ScriptedServer], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = _tls_server(serve, tmp_path, monkeypatch)
    url = f"https://localhost:{server.port}/"
    for _ in range(2):
        with make_client() as client:
            assert client.get(url).content == b"secret"
        close_pools()  # the next client needs a new connection
    assert server.resumed == [False, True]


def test_a_new_async_tls_connection_resumes_the_origins_session(
    serve: Callable[..., ScriptedServer], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = _tls_server(serve, tmp_path, monkeypatch)
    url = f"https://localhost:{server.port}/"

    async def sessions() -> None:
        for _ in range(2):
            async with make_async_client() as client:
                assert (await client.get(url)).content == b"secret"
            close_pools()
            await asyncio.sleep(0)  # (the aborted connection closes)

    asyncio.run(sessions())
    assert server.resumed == [False, True]


# -- the GET stream -----------------------------------------------------------------------------


def _ignored(_: object) -> None:
    """A notification hook: a session that has one opens its GET stream."""


@pytest.mark.parametrize("protocol", ["legacy", "modern"])
@pytest.mark.parametrize("hooked", [False, True], ids=["no-hook", "notification-hook"])
def test_a_client_opens_the_get_stream_only_with_a_hook_for_what_it_carries(
    mcp_server_urls: dict[str, str], protocol: str, hooked: bool
) -> None:
    hooks: dict[str, Any] = {"notification_handler": _ignored} if hooked else {}
    with Client(mcp_server_urls["sse"], protocol=protocol, **hooks) as client:
        client.call_tool("echo", {"text": "hi"})
        assert live_streams() == int(hooked)

    async def main() -> int:
        async with AsyncClient(mcp_server_urls["sse"], protocol=protocol, **hooks) as client:
            await client.call_tool("echo", {"text": "hi"})
            return live_streams()

    assert asyncio.run(main()) == int(hooked)


# -- the proxy check ----------------------------------------------------------------------------


def test_the_proxy_check_sees_a_proxy_variable_set_after_it_answered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in list(os.environ):
        if "proxy" in name.lower():
            monkeypatch.delenv(name)
    assert not proxies_configured()
    assert not proxies_configured()  # (the same names: answered from what it remembers)
    monkeypatch.setenv("https_proxy", "http://127.0.0.1:9")
    assert proxies_configured()
    monkeypatch.delenv("https_proxy")
    assert not proxies_configured()
    monkeypatch.setenv("ALL_PROXY", "http://127.0.0.1:9")
    assert proxies_configured()


@pytest.mark.parametrize("stack_name", ["httpx", "httpx2"])
@pytest.mark.parametrize("asynchronous", [False, True])
def test_a_borrowing_client_is_as_the_constructor_makes_it_with_state_of_its_own(
    stack_name: str, asynchronous: bool
) -> None:
    from mcpstream._http import httpx_clients
    from mcpstream._httpbase.stack import stack_named

    stack = stack_named(stack_name)
    make = httpx_clients._unconfigured_client
    first, second = (make(stack, asynchronous, object()) for _ in range(2))
    client_type = stack.httpx.AsyncClient if asynchronous else stack.httpx.Client
    built = client_type(follow_redirects=False, transport=second._transport)
    assert type(second) is client_type and set(vars(second)) == set(vars(built))
    assert second.headers.raw == built.headers.raw and second.timeout == built.timeout
    assert (second.follow_redirects, second.max_redirects) == (False, built.max_redirects)
    assert not second.is_closed and second.base_url == built.base_url
    second.headers["X-Changed"] = "1"
    second.cookies.set("c", "1")
    second.event_hooks["request"].append(print)
    assert "X-Changed" not in first.headers and not first.cookies
    assert first.event_hooks == {"request": [], "response": []}
    assert first._transport is not second._transport


def test_a_client_of_other_attributes_is_made_by_its_constructor(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from mcpstream._http import httpx_clients
    from mcpstream._httpbase.stack import stack_named

    stack = stack_named("httpx")
    monkeypatch.setattr(httpx_clients, "_PROTOTYPES", {})
    monkeypatch.setattr(httpx_clients, "_CLIENT_FIELDS", frozenset({"_other"}))
    made = [httpx_clients._unconfigured_client(stack, False, object()) for _ in range(2)]
    # (under httpx2.alias_httpx() the "httpx" stack is httpx2's)
    assert {(stack.name, False): None} == httpx_clients._PROTOTYPES
    assert all(not client.cookies and client.headers["accept"] == "*/*" for client in made)


def test_objects_of_a_loop_running_elsewhere_are_handed_to_it_the_others_returned() -> None:
    elsewhere = EventLoopThread()
    stopped = asyncio.new_event_loop()
    acted: list[tuple[str, bool]] = []
    handed = threading.Event()

    def act(held: str) -> None:
        acted.append((held, threading.current_thread() is not threading.main_thread()))
        handed.set()

    async def from_a_running_loop() -> list[str]:
        here = asyncio.get_running_loop()
        by_loop = {elsewhere.loop: "elsewhere", stopped: "stopped", here: "here"}
        return shared_pools.hand_to_running_loops(by_loop, act)

    try:
        assert asyncio.run(from_a_running_loop()) == ["stopped", "here"]
        assert handed.wait(10)
        assert acted == [("elsewhere", True)]
    finally:
        stopped.close()
        elsewhere.stop()
