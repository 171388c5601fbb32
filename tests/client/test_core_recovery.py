"""The session rule of the client's core (``client._core``, ``_http.core.protocol``) against
the official SDK's server losing the session at each step in turn (``transport.forgetful``: its
session manager forgets the session on command, as a restart at that moment would): the client
forgets a lost session at once, opens the next one without a session id, and recovers on the
first retry, with both drivers."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import pytest
from mcpstream import AsyncClient, Client, close_pools
from mcpstream.client._core import HANDSHAKE_ATTEMPTS
from mcpstream.errors import McpHttpTransportSessionExpiredError
from transport.forgetful import ForgetfulServer
from transport.helpers import live_streams, open_fds, open_sockets_to, settled

Run = Callable[[ForgetfulServer, Callable[[Any], Any]], Any]


def _ignored(_: object) -> None:
    """A notification handler: a client with one opens its GET stream, which these tests lose."""


def _sync(server: ForgetfulServer, body: Callable[[Any], Any]) -> Any:
    with Client(server.url, protocol="legacy", notification_handler=_ignored) as client:
        return body(client)


def _async(server: ForgetfulServer, body: Callable[[Any], Any]) -> Any:
    async def main() -> Any:
        async with AsyncClient(
            server.url, protocol="legacy", notification_handler=_ignored
        ) as client:
            return await body(client)

    return asyncio.run(main())


def _await(value: Any) -> Any:
    """``value``, awaited when the async client gave an awaitable."""
    if asyncio.iscoroutine(value):
        return value

    async def ready() -> Any:
        return value

    return ready()


@pytest.fixture(params=["sync", "async"])
def driver(request: pytest.FixtureRequest) -> str:
    """Each client in turn."""
    return str(request.param)


@pytest.fixture
def server(forgetful_server: ForgetfulServer) -> ForgetfulServer:
    """The forgetful server, with nothing armed or seen."""
    forgetful_server.reset()
    return forgetful_server


def _echo_twice(driver: str) -> Callable[[Any], Any]:
    """A body calling ``echo`` twice, returning the texts and the renewal count."""
    if driver == "sync":

        def body(client: Any) -> Any:
            first = client.call_tool("echo", {"text": "a"}).text
            second = client.call_tool("echo", {"text": "b"}).text
            return first, second, client.session_renewals

        return body

    async def abody(client: Any) -> Any:
        first = (await client.call_tool("echo", {"text": "a"})).text
        second = (await client.call_tool("echo", {"text": "b"})).text
        return first, second, client.session_renewals

    return abody


def _run(driver: str, server: ForgetfulServer) -> Any:
    return (_sync if driver == "sync" else _async)(server, _echo_twice(driver))


def _initializes(seen: list[tuple[str, str | None]]) -> list[str | None]:
    """The session id each ``initialize`` carried."""
    return [session for kind, session in seen if kind == "initialize"]


def test_a_session_lost_before_notifications_initialized_is_opened_again(
    driver: str, server: ForgetfulServer
) -> None:
    # The reproduction: the server restarts between its answer to initialize and
    # notifications/initialized. The handshake is made again at once, without the dead id.
    server.forget("notifications/initialized")
    assert _run(driver, server) == ("a", "b", 0)
    seen = server.seen()
    assert _initializes(seen) == [None, None]
    lost = next(session for kind, session in seen if kind == "notifications/initialized")
    assert all(session != lost for kind, session in seen[2:] if kind != "GET")


def test_a_session_lost_at_a_call_is_renewed_and_the_call_sent_again(
    driver: str, server: ForgetfulServer
) -> None:
    server.forget("tools/call")
    assert _run(driver, server) == ("a", "b", 1)
    seen = server.seen()
    assert _initializes(seen) == [None, None]
    assert [kind for kind, _ in seen].count("tools/call") == 3


def test_a_session_lost_again_during_its_renewal_is_renewed_again(
    driver: str, server: ForgetfulServer
) -> None:
    server.forget("tools/call")
    server.forget("notifications/initialized")
    assert _run(driver, server) == ("a", "b", 1)
    assert _initializes(server.seen()) == [None, None, None]


def test_a_session_lost_at_its_get_stream_is_forgotten_before_the_next_call(
    driver: str, server: ForgetfulServer
) -> None:
    # The GET's 404 comes before any call: the next call knows the session is lost without
    # sending it in the dead session, and renews it.
    server.forget("GET")
    assert _run(driver, server) == ("a", "b", 1)
    seen = server.seen()
    assert _initializes(seen) == [None, None]
    get_session = next(session for kind, session in seen if kind == "GET")
    assert all(session != get_session for kind, session in seen if kind == "tools/call")


def test_a_server_losing_every_session_is_not_asked_for_one_in_a_loop(
    driver: str, server: ForgetfulServer
) -> None:
    server.forget("notifications/initialized", times=10)
    with pytest.raises(McpHttpTransportSessionExpiredError):
        _run(driver, server)
    initializes = _initializes(server.seen())
    assert initializes == [None] * len(initializes)
    assert 2 <= len(initializes) <= 3


# -- nothing of a lost session is left ------------------------------------------------------------

RENEWALS = 20
FAILED_OPENS = 20


def _held(port: int) -> tuple[int, int, int, int]:
    """Threads, fds, sockets to the server, live GET streams (the idle connections of the
    process's pool closed first: they are its, not a session's)."""
    close_pools()
    return threading.active_count(), open_fds(), open_sockets_to(port), live_streams()


def _at_most(limit: tuple[int, ...]) -> Callable[[tuple[int, ...]], bool]:
    return lambda held: all(now <= before for now, before in zip(held, limit, strict=True))


def test_client_renewals_and_failed_opens_leave_nothing_behind(server: ForgetfulServer) -> None:
    baseline = _held(server.port)
    with Client(server.url, protocol="legacy", notification_handler=_ignored) as client:
        server.forget("tools/call")
        client.call_tool("echo", {"text": "warm"})  # one renewal: the steady state
        steady = settled(lambda: _held(server.port), lambda held: held[3] == 1)
        for index in range(RENEWALS):
            server.forget("tools/call")
            assert client.call_tool("echo", {"text": f"{index}"}).text == f"{index}"
        assert client.session_renewals == RENEWALS + 1
        held = settled(lambda: _held(server.port), _at_most(steady))
        assert held <= steady and held[3] == 1, (held, steady)
    for _ in range(FAILED_OPENS):
        server.forget("notifications/initialized", times=HANDSHAKE_ATTEMPTS)
        with (
            pytest.raises(McpHttpTransportSessionExpiredError),
            Client(server.url, protocol="legacy", notification_handler=_ignored),
        ):
            pass
    held = settled(lambda: _held(server.port), _at_most(baseline))
    # No more than before (an earlier test's connections may close meanwhile).
    assert _at_most(baseline)(held), (held, baseline)


def test_async_client_renewals_and_failed_opens_leave_nothing_behind(
    server: ForgetfulServer,
) -> None:
    async def held_now() -> tuple[int, ...]:
        """``_held`` and the tasks, once the tasks just cancelled (and their sockets) ended."""
        close_pools()  # (the sockets it aborts close at the loop's next rounds)
        await asyncio.sleep(0.05)
        return (*_held(server.port), len(asyncio.all_tasks()))

    async def main() -> None:
        baseline = await held_now()
        async with AsyncClient(
            server.url, protocol="legacy", notification_handler=_ignored
        ) as client:
            server.forget("tools/call")
            await client.call_tool("echo", {"text": "warm"})
            steady = await held_now()
            for index in range(RENEWALS):
                server.forget("tools/call")
                assert (await client.call_tool("echo", {"text": f"{index}"})).text == f"{index}"
            assert client.session_renewals == RENEWALS + 1
            held = await held_now()
            assert all(now <= before for now, before in zip(held, steady, strict=True))
            assert held[3] == 1, (held, steady)  # the current GET stream alone
        for _ in range(FAILED_OPENS):
            server.forget("notifications/initialized", times=HANDSHAKE_ATTEMPTS)
            with pytest.raises(McpHttpTransportSessionExpiredError):
                async with AsyncClient(
                    server.url, protocol="legacy", notification_handler=_ignored
                ):
                    pass
        held = await held_now()
        # No more than before (an earlier test's connections may close meanwhile).
        assert all(now <= before for now, before in zip(held, baseline, strict=True)), held

    asyncio.run(main())
