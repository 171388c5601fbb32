"""Fixtures of the framework peers (FastMCP, Pydantic AI, OpenAI Agents, llama-index; Google ADK's
in tests/frameworks_adk/ share them), run in an environment of their own by
scripts/framework-tests.sh (tests/conftest.py leaves this directory out where the frameworks are
not installed).

Each framework meets the official SDK's server (``mcp_server_urls``, as the SDK suites start it)
over mcpstream by two routes, ``route``: ``install`` (``mcpstream.sdk.install()``, the
framework's own default transport untouched) and ``hook`` (the framework's own extension point
given mcpstream's transport). ``relays`` counts the connections mcpstream's SDK transport opened,
which is how a test knows the framework really ran over mcpstream. ``route`` and ``down_url``
come from tests/sdk/routes.py (the 1.x suite's too). ``silent_url`` (tests/sdk/silent.py) is a
server that accepts connections and never answers, against which a framework's own timeout must
end the wait as over the SDK's transport (``times_out_as_over_the_sdk``); ``count`` reports
``PROGRESS`` to a framework's progress callback.

The steps every framework's test file takes are here once, each given the framework's own part
as a coroutine factory: ``lists_and_calls``, ``arrives_whole``, ``reports_progress``,
``fails_as_over_the_sdk``, ``times_out_as_over_the_sdk`` and ``gives_the_sdk_transport_back``.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import mcpstream.sdk
import pytest

from tests.sdk import routes
from tests.sdk.conftest import run
from tests.sdk.relays import Relays, relays
from tests.sdk.routes import (
    HOST_TIMEOUT_S,
    LARGE,
    down_url,
    near_the_host_timeout,
    never_left_installed,
    route,
)
from tests.sdk.silent import silent_url
from tests.sdk.transports import shape
from tests.transport.conftest import mcp_server_urls

__all__ = [
    "HOST_TIMEOUT_S",
    "LARGE",
    "Relays",
    "down_url",
    "mcp_server_urls",
    "never_left_installed",
    "relays",
    "route",
    "run",
    "silent_url",
]

STEPS = 3
"""Progress notifications the ``count`` tool sends (with the progress token of its call)."""

PROGRESS = [(float(step), float(STEPS), f"step {step}") for step in range(1, STEPS + 1)]
"""What a progress callback receives of ``count``: ``(progress, total, message)`` each step."""

Progress = Callable[[float, float | None, str | None], Awaitable[None]]
"""A progress callback: ``(progress, total, message)``."""


def lists_and_calls(
    main: Callable[[], Coroutine[Any, Any, tuple[list[str], Any]]],
    counted: Relays,
    connections: int = 1,
) -> None:
    """Assert that ``main()``, a framework listing the server's tools and calling ``echo`` with
    ``"h\u00e9llo"``, returns the tools' names and the echo, over ``connections`` of mcpstream's
    (``counted``: the test's ``relays``)."""
    tools, echoed = run(main())
    assert {"echo", "big_text"} <= set(tools)
    assert echoed == "h\u00e9llo"
    assert counted.made == connections


def arrives_whole(main: Callable[[], Coroutine[Any, Any, Any]], counted: Relays) -> None:
    """Assert that ``main()``, a framework calling ``big_text`` with ``LARGE``, returns all of
    it, over one connection of mcpstream's."""
    assert len(run(main())) == LARGE
    assert counted.made == 1


def reports_progress(main: Callable[[Progress], Coroutine[Any, Any, Any]], counted: Relays) -> None:
    """Assert that ``main(progress)``, a framework calling ``count`` with ``STEPS`` and given
    ``progress`` as its progress callback, answers and reports ``PROGRESS`` to it, over one
    connection of mcpstream's."""
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    assert run(main(progress)) == f"counted {STEPS}"
    assert seen == PROGRESS
    assert counted.made == 1


def fails_as_over_the_sdk(
    attempt: Callable[[str], Awaitable[object]], route: str
) -> tuple[BaseException, BaseException]:
    """Assert that ``attempt(route)``, a framework given ``down_url`` by ``route`` (``install()``
    in effect for ``install``), fails as ``attempt("install")`` fails over the SDK's transport,
    once ``uninstall()``-ed; both failures, ours first, for the framework's own checks."""
    try:
        ours, _ = run(timed_failure(lambda: attempt(route)))
    finally:
        mcpstream.sdk.uninstall()
    theirs, _ = run(timed_failure(lambda: attempt("install")))
    same_failure(ours, theirs)
    return ours, theirs


def same_failure(ours: BaseException, theirs: BaseException) -> None:
    """Assert that a framework reported ``ours`` (over mcpstream) as it reported ``theirs``
    (over the SDK's transport): the same class, the same wording up to the cause, and the same
    exceptions inside a group."""
    assert type(ours) is type(theirs), (ours, theirs)
    assert str(ours).split(":", 1)[0] == str(theirs).split(":", 1)[0], (ours, theirs)
    assert shape(ours) == shape(theirs), (ours, theirs)


async def timed_failure(attempt: Callable[[], Awaitable[object]]) -> tuple[BaseException, float]:
    """What ``attempt`` raised, and the seconds it took to."""
    started = time.monotonic()
    with pytest.raises(Exception) as caught:
        await attempt()
    return caught.value, time.monotonic() - started


def same_timeout(ours: tuple[BaseException, float], theirs: tuple[BaseException, float]) -> None:
    """Assert that a framework's timeout (``HOST_TIMEOUT_S``) ended the wait on a silent server
    over mcpstream as over the SDK's transport: the same failure, near the timeout, bounded."""
    same_failure(ours[0], theirs[0])
    for _, elapsed in (ours, theirs):
        assert near_the_host_timeout(elapsed), (ours, theirs)


def times_out_as_over_the_sdk(
    attempt: Callable[[str], Awaitable[object]],
    counted: Relays,
    routes: tuple[str, ...] = ("install", "hook"),
) -> None:
    """Assert that ``attempt(route)``, a framework given ``silent_url`` and ``HOST_TIMEOUT_S``,
    fails by each route as ``attempt("install")`` fails over the SDK's transport (the
    framework's own, without ``install()``), and that each route ran over mcpstream (``counted``:
    the test's ``relays``)."""
    theirs = run(timed_failure(lambda: attempt("install")))
    for way in routes:
        if way == "install":
            mcpstream.sdk.install()
        try:
            ours = run(timed_failure(functools.partial(attempt, way)))
        finally:
            mcpstream.sdk.uninstall()
        same_timeout(ours, theirs)
    assert counted.made == len(routes)


def gives_the_sdk_transport_back(
    main: Callable[[], Coroutine[Any, Any, str]], counted: Relays, *bound: object
) -> None:
    """Assert that ``install()`` then ``uninstall()`` gives a framework the SDK's transport back
    (tests/sdk/routes.py's step, for ``bound``, the framework's modules that bound the SDK's
    function at import): ``main()``, the framework calling ``echo`` with ``"sdk"``, answers
    without a connection of mcpstream's."""
    routes.gives_the_sdk_transport_back(lambda: run(main()), "sdk", counted, *bound)
