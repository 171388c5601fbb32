"""The drop-in transports (``McpHttpTransport``, ``AsyncMcpHttpTransport``) when the official
SDK's server loses the session at each step in turn (``forgetful``: its session manager
forgets the session on command, as a restart at that moment would). The reference's host
initializes again after ``McpHttpTransportSessionExpiredError``; the transport has forgotten the
lost session by then, so that ``initialize`` opens a new one at once (the reference sends the
dead id with it, refused with 404 for ever). Nothing a session made is left behind."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from mcpstream import close_pools
from mcpstream.errors import McpHttpTransportSessionExpiredError
from mcpstream.models import ResolvedMcpServer
from mcpstream.transport_http import AsyncMcpHttpTransport, McpHttpTransport

from .conftest import AsyncFacade, EventLoopThread
from .forgetful import ForgetfulServer
from .helpers import (
    call_tool,
    initialize,
    live_streams,
    open_fds,
    open_sockets_to,
    settled,
    tool_text,
)

RENEWALS = 20
FAILED_OPENS = 20


@pytest.fixture
def server(forgetful_server: ForgetfulServer) -> ForgetfulServer:
    """The forgetful server, with nothing armed or seen."""
    forgetful_server.reset()
    return forgetful_server


def _echo(transport: Any, text: str) -> str:
    return tool_text(call_tool(transport, "echo", {"text": text}))


@pytest.mark.parametrize("step", ["notifications/initialized", "tools/call", "GET"])
def test_a_lost_session_is_forgotten_and_the_next_initialize_opens_a_new_one(
    make_transport: Any, server: ForgetfulServer, step: str
) -> None:
    transport = make_transport(server.url)
    if step == "tools/call":
        initialize(transport)
        server.forget(step)
        with pytest.raises(McpHttpTransportSessionExpiredError) as raised:
            _echo(transport, "lost")
        assert not raised.value.request_delivered
    else:
        server.forget(step)
        if step == "GET":
            initialize(transport)  # the GET's 404 comes as the handshake ends
        else:
            with pytest.raises(McpHttpTransportSessionExpiredError):
                initialize(transport)
    # Nothing is sent in the lost session: the error says so at once (a call waits for the
    # GET's answer first, so the GET's 404 is known by then).
    with pytest.raises(McpHttpTransportSessionExpiredError, match="was not sent"):
        _echo(transport, "unsent")
    assert transport.session_id is None
    initialize(transport)
    assert _echo(transport, "renewed") == "renewed"
    seen = server.seen()
    assert [session for kind, session in seen if kind == "initialize"] == [None, None]
    sent = [text for kind, text in seen if kind == "tools/call"]
    assert len(sent) == (2 if step == "tools/call" else 1)
    # The new session's GET stream is its own (the lost one's ended).
    assert settled(lambda: transport.listening, bool)
    assert seen[-1][1] == transport.session_id


def test_a_404_to_the_closing_delete_forgets_the_session(
    make_transport: Any, server: ForgetfulServer
) -> None:
    transport = make_transport(server.url)
    initialize(transport)
    session_id = transport.session_id
    server.forget("DELETE")
    transport.close()
    assert ("DELETE", session_id) in server.seen()
    assert transport.session_id is None


def _make(kind: str, url: str, tmp_path: Path, loop: EventLoopThread) -> Any:
    """A transport of ``kind`` with an HTTP client of its own (closed with it)."""
    entry = ResolvedMcpServer(id="test", url=url, headers={}, call_timeout_s=10.0)
    if kind == "sync":
        return McpHttpTransport(server=entry, workspace_root=tmp_path)

    async def build() -> AsyncMcpHttpTransport:
        return AsyncMcpHttpTransport(server=entry, workspace_root=tmp_path)

    return AsyncFacade(loop, loop.run(build()))


def test_renewals_and_failed_opens_leave_nothing_behind(
    transport_kind: str,
    server: ForgetfulServer,
    event_loop_thread: EventLoopThread,
    tmp_path: Path,
) -> None:
    async def tasks() -> int:
        await asyncio.sleep(0.05)  # the tasks just ended leave the loop
        return len(asyncio.all_tasks()) - 1

    def held() -> tuple[int, ...]:
        # The process's pools keep closed sessions' idle connections (and, for the sync
        # transport, a reaper thread while they do), whichever test left them: closed first,
        # as a host wanting nothing left open does (the async loop's close at its next round).
        close_pools()
        event_loop_thread.run(asyncio.sleep(0.05))
        counts = (threading.active_count(), open_fds(), open_sockets_to(server.port))
        return (*counts, live_streams(), event_loop_thread.run(tasks()))

    def at_most(limit: tuple[int, ...]) -> Any:
        return lambda now: all(a <= b for a, b in zip(now, limit, strict=True))

    baseline = held()
    transport = _make(transport_kind, server.url, tmp_path, event_loop_thread)
    initialize(transport)
    for index in range(RENEWALS + 1):
        server.forget("tools/call")
        with pytest.raises(McpHttpTransportSessionExpiredError):
            _echo(transport, "lost")
        initialize(transport)  # the host's renewal
        assert _echo(transport, str(index)) == str(index)
        if index == 0:  # one renewal made: the steady state
            steady = settled(held, lambda now: now[3] == 1)
    now = settled(held, at_most(steady))
    assert at_most(steady)(now) and now[3] == 1, (now, steady)
    transport.close()
    for _ in range(FAILED_OPENS):
        transport = _make(transport_kind, server.url, tmp_path, event_loop_thread)
        server.forget("notifications/initialized")
        with pytest.raises(McpHttpTransportSessionExpiredError):
            initialize(transport)
        transport.close()
    # No more than before (an earlier test's connections may close meanwhile).
    now = settled(held, at_most(baseline))
    assert at_most(baseline)(now), (now, baseline)
