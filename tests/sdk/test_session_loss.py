"""The SDK route (``mcpstream.sdk``) when the server loses the session. The SDK's rule holds,
not the core's (``McpHttpProtocol.keeps_lost_sessions``): the session gets the server's
error, its id is kept for the next request (the server decides), the session renews nothing
itself (``ClientSession.initialize`` does not run twice), and the host's next session opens at
once. Nothing a session made outlives it: threads (the transport is no longer made in a pooled
anyio thread), fds, sockets, GET streams."""

from __future__ import annotations

import threading

import pytest
from mcp import ClientSession, MCPError
from mcpstream.sdk import streamable_http_client

from tests.transport.forgetful import ForgetfulServer
from tests.transport.helpers import free_port, live_streams, open_fds, open_sockets_to

from .conftest import run

SESSIONS = 10


@pytest.fixture
def server(forgetful_server: ForgetfulServer) -> ForgetfulServer:
    """The forgetful server, with nothing armed or seen."""
    forgetful_server.reset()
    return forgetful_server


def _text(result: object) -> str:
    return str(result.content[0].text)  # type: ignore[attr-defined]


def test_a_lost_session_fails_its_calls_and_the_hosts_next_session_opens_at_once(
    server: ForgetfulServer,
) -> None:
    async def session_lost_at(step: str) -> str:
        async with (
            streamable_http_client(server.url) as (read, write),
            ClientSession(read, write) as session,
        ):
            if step == "notifications/initialized":
                server.forget(step)
                await session.initialize()  # a notification's failure is logged only
            else:
                await session.initialize()
                server.forget(step)
            with pytest.raises(MCPError) as raised:
                await session.call_tool("echo", {"text": "lost"})
            with pytest.raises(MCPError) as again:  # no renewal of its own, as the SDK's
                await session.call_tool("echo", {"text": "lost again"})
            return f"{raised.value.error.message} / {again.value.error.message}"

    async def fresh() -> str:
        async with (
            streamable_http_client(server.url) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return _text(await session.call_tool("echo", {"text": "fresh"}))

    async def main() -> list[str]:
        return [
            await session_lost_at("tools/call"),
            await fresh(),
            await session_lost_at("notifications/initialized"),
            await fresh(),
        ]

    at_call, fresh_one, at_notification, fresh_two = run(main())
    # A call's 404 is the server's JSON-RPC error, as over the SDK's transport, and the next
    # call is sent with the same id (the server answers it the same).
    assert at_call == at_notification == "Session not found / Session not found"
    assert fresh_one == fresh_two == "fresh"
    seen = server.seen()
    assert [session for kind, session in seen if kind == "initialize"] == [None] * 4
    lost = [session for kind, session in seen if kind == "tools/call"]
    assert len(lost) == 6 and lost[0] == lost[1] and lost[3] == lost[4]


def test_sessions_lost_closed_or_failed_to_open_leave_nothing_behind(
    server: ForgetfulServer,
) -> None:
    def held() -> tuple[int, int, int, int]:
        return threading.active_count(), open_fds(), open_sockets_to(server.port), live_streams()

    async def main() -> None:
        for _ in range(SESSIONS):
            async with (
                streamable_http_client(server.url) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                server.forget("tools/call")
                with pytest.raises(MCPError):
                    await session.call_tool("echo", {"text": "lost"})

    async def failed_opens() -> int:
        refused = f"http://127.0.0.1:{free_port()}/mcp"  # nothing listens there
        failures = 0
        for _ in range(SESSIONS):
            try:
                async with (
                    streamable_http_client(refused) as (read, write),
                    ClientSession(read, write) as session,
                ):
                    await session.initialize()
            except BaseExceptionGroup:
                failures += 1
        return failures

    def within(baseline: tuple[int, ...]) -> bool:
        # No more than before: an earlier test's idle connections may close meanwhile.
        return all(now <= then for now, then in zip(held(), baseline, strict=True))

    baseline = held()
    run(main())
    assert within(baseline), (held(), baseline)
    assert run(failed_opens()) == SESSIONS
    assert within(baseline), (held(), baseline)
