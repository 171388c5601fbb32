"""The connections that the sessions over one host client share (``sdk/host.py``,
``shared_h1``), by default: a session per operation over one long-lived client opens no new
connection after the first, and whatever way the host ends its event loops (``asyncio.run``
per session, with a client made in each or one client for all; a loop closed with
``loop.close()`` alone), no socket is left open past it or to the garbage collector (no
``ResourceWarning``, no file descriptor over the baseline). ``MCPSTREAM_SHARE_HOST_CONNECTIONS=0``
gives each session its own again. Over HTTPS, through a tap in front of the official SDK's
server that counts the connections the clients open (``Tap``, on a loop of its own)."""

from __future__ import annotations

import asyncio
import gc
import ssl
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcpstream import close_pools
from mcpstream._http.httpx_clients import H1_ENV
from mcpstream.sdk import streamable_http_client
from mcpstream.sdk.host import SHARE_ENV

from tests.plain_http.tls import self_signed_certificate
from tests.transport.conftest import EventLoopThread
from tests.transport.helpers import open_fds, settled

from .test_host_h1 import Tap

SESSIONS = 4


class Served:
    """The tap over TLS (its counts: ``opened``, ``open``) and a host client's TLS context."""

    def __init__(self, tap: Tap, trusted: ssl.SSLContext) -> None:
        self.tap = tap
        self.trusted = trusted

    def client(self) -> httpx2.AsyncClient:
        """A host client trusting the tap's certificate."""
        return httpx2.AsyncClient(verify=self.trusted)

    def open_now(self) -> int:
        """The tap's connections open once the clients' closes have arrived (or as they are
        after a bound), outside an event loop."""
        return settled(lambda: self.tap.open, lambda n: n == 0)

    async def open_soon(self) -> int:
        """``open_now`` on a running event loop (which the clients' closes may need)."""
        for _ in range(250):
            if self.tap.open == 0:
                break
            await asyncio.sleep(0.02)
        return self.tap.open


@pytest.fixture
def served(
    mcp_server_urls: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Served]:
    monkeypatch.setenv(H1_ENV, "1")
    monkeypatch.delenv(SHARE_ENV, raising=False)  # the default
    cert, key = self_signed_certificate(tmp_path)
    server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_context.load_cert_chain(cert, key)
    runner = EventLoopThread()
    tap = Tap(mcp_server_urls["sse"], server_context)
    runner.run(tap.__aenter__())
    try:
        yield Served(tap, ssl.create_default_context(cafile=str(cert)))
    finally:
        runner.run(tap.__aexit__(None, None, None))
        runner.stop()


async def _session(host: Any, url: str) -> None:
    async with Client(streamable_http_client(url, http_client=host), mode="auto") as client:
        result = await client.call_tool("echo", {"text": "shared"})
        text = result.content[0]
        assert isinstance(text, types.TextContent) and text.text == "shared"


def _left_behind(host_run: Callable[[], None]) -> tuple[list[str], int]:
    """The ``ResourceWarning``s raised while ``host_run`` runs and after a collection, and the
    file descriptors open after it over those open before."""
    gc.collect()
    before = open_fds()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        host_run()
        gc.collect()
    leaked = [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]
    return leaked, settled(open_fds, lambda n: n <= before) - before


def test_asyncio_run_per_session_with_a_client_made_in_each(served: Served) -> None:
    # The host ends each loop with asyncio.run, its client closed after the session: the
    # connection the session left idle closes as the loop ends.
    async def one() -> None:
        async with served.client() as host:
            await _session(host, served.tap.url)

    def host_run() -> None:
        for _ in range(SESSIONS):
            asyncio.run(one())

    leaked, fds = _left_behind(host_run)
    assert leaked == []
    assert fds <= 0
    assert served.open_now() == 0
    assert served.tap.opened == SESSIONS  # (a client per loop: nothing to share)


def test_one_client_for_the_sessions_of_one_loop(served: Served) -> None:
    # A session per operation over one long-lived client: one connection for them all, and
    # the loop's end closes it (the client is still open then).
    async def sessions() -> None:
        host = served.client()
        for _ in range(SESSIONS):
            await _session(host, served.tap.url)
        assert served.tap.opened == 1
        assert served.tap.open == 1  # idle, for the client's next session

    leaked, fds = _left_behind(lambda: asyncio.run(sessions()))
    assert leaked == []
    assert fds <= 0
    assert served.open_now() == 0
    assert served.tap.opened == 1


def test_one_client_made_outside_the_loops_of_asyncio_run(served: Served) -> None:
    host = served.client()

    async def two() -> None:
        await _session(host, served.tap.url)
        await _session(host, served.tap.url)

    def host_run() -> None:
        for _ in range(2):
            asyncio.run(two())

    leaked, fds = _left_behind(host_run)
    assert leaked == []
    assert fds <= 0
    assert served.open_now() == 0
    assert served.tap.opened == 2  # a connection per loop, shared by its two sessions


@pytest.mark.parametrize(
    "then", ["the client is collected", "the next session opens", "the client closed in the loop"]
)
def test_a_loop_closed_without_ending_leaves_no_socket(served: Served, then: str) -> None:
    # loop.close() alone runs nothing of the loop's: its idle connections are closed when the
    # client goes, or by the client's next session (on another loop), their sockets at once.
    async def in_a_client() -> None:
        async with served.client() as host:
            await _session(host, served.tap.url)

    def host_run() -> None:
        host: Any = served.client()
        loop = asyncio.new_event_loop()
        try:
            if then == "the client closed in the loop":
                loop.run_until_complete(in_a_client())
            else:
                loop.run_until_complete(_session(host, served.tap.url))
        finally:
            loop.close()
        if then == "the client closed in the loop":
            return
        assert served.tap.open == 1
        if then == "the client is collected":
            del host
        else:
            asyncio.run(_session(host, served.tap.url))
            assert served.tap.opened == 2

    leaked, fds = _left_behind(host_run)
    assert leaked == []
    assert fds <= 0
    assert served.open_now() == 0


def test_the_opt_out_closes_each_sessions_connections_with_it(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SHARE_ENV, "0")

    async def sessions() -> list[int]:
        open_after = []
        async with served.client() as host:
            for _ in range(SESSIONS):
                await _session(host, served.tap.url)
                open_after.append(await served.open_soon())
        return open_after

    assert asyncio.run(sessions()) == [0] * SESSIONS
    assert served.tap.opened == SESSIONS


def test_close_pools_closes_the_shared_idle_connections(served: Served) -> None:
    async def main() -> tuple[int, int]:
        async with served.client() as host:
            await _session(host, served.tap.url)
            idle = served.tap.open
            close_pools()
            return idle, await served.open_soon()

    assert asyncio.run(main()) == (1, 0)
