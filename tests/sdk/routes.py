"""The fixtures both framework suites (tests/frameworks/, tests/frameworks_1x/: the SDK's 2.x and
1.x lines) share: ``route`` (how a framework reaches mcpstream), ``installed``, the check that no
test leaves ``install()`` in effect, ``down_url``, the sizes of their steps (``LARGE``,
``HOST_TIMEOUT_S``, ``near_the_host_timeout``) and the uninstall step
(``gives_the_sdk_transport_back``). Nothing here needs more than mcpstream.sdk and what both SDK
lines have (``mcp.client.streamable_http.streamable_http_client``), so it imports on either."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from typing import TypeVar

import mcp.client.streamable_http as sdk_module
import mcpstream.sdk
import pytest

from tests.sdk.relays import Relays

__all__ = [
    "HOST_TIMEOUT_S",
    "LARGE",
    "down_url",
    "gives_the_sdk_transport_back",
    "installed",
    "near_the_host_timeout",
    "never_left_installed",
    "route",
]

T = TypeVar("T")

LARGE = 4 * 1024 * 1024
"""Characters of the large result (``big_text``), past the 1 MiB SSE event cap FastMCP and the
SDK set by default, so the server's JSON mode carries it (the SDK caps SSE events only). The 2.x
suite's server sends multi-byte text, escaped and repeated in ``structuredContent``: a JSON body
of about 18 MiB."""

HOST_TIMEOUT_S = 0.5
"""The timeout a host configures in its framework against the silent server: short, so that
the suites stay quick."""


def near_the_host_timeout(elapsed: float) -> bool:
    """Whether a wait that ``HOST_TIMEOUT_S`` ended took ``elapsed`` seconds near it."""
    # Margins for a loaded machine; mcpstream's own deadline is minutes, the SDK's none, so a
    # wait the host's timeout did not end would take far longer.
    return HOST_TIMEOUT_S * 0.9 <= elapsed < HOST_TIMEOUT_S + 5.0


def gives_the_sdk_transport_back(
    call: Callable[[], T], expected: T, counted: Relays, *bound: object
) -> None:
    """Assert that ``install()`` then ``uninstall()`` gives a framework the SDK's transport back:
    each module of ``bound`` that bound the SDK's ``streamable_http_client`` at import holds
    mcpstream's once installed and the SDK's again after, and ``call()``, the framework at work
    afterwards, returns ``expected`` without a connection of mcpstream's (``counted``: the
    test's ``relays``)."""
    sdk_function = sdk_module.streamable_http_client
    mcpstream.sdk.install()
    for module in bound:
        assert module.streamable_http_client is not sdk_function, module  # type: ignore[attr-defined]
    mcpstream.sdk.uninstall()
    for module in bound:
        assert module.streamable_http_client is sdk_function, module  # type: ignore[attr-defined]
    answer = call()
    assert answer == expected, answer
    assert counted.made == 0, counted.made


@pytest.fixture(params=["install", "hook"])
def route(request: pytest.FixtureRequest) -> Iterator[str]:
    """How the framework reaches mcpstream: ``install`` (in effect for the test) or ``hook``."""
    if request.param == "install":
        mcpstream.sdk.install()
    try:
        yield str(request.param)
    finally:
        mcpstream.sdk.uninstall()


@pytest.fixture
def installed() -> Iterator[None]:
    """``mcpstream.sdk.install()`` in effect for the test."""
    mcpstream.sdk.install()
    try:
        yield
    finally:
        mcpstream.sdk.uninstall()


@pytest.fixture(autouse=True)
def never_left_installed() -> Iterator[None]:
    """Every test leaves the SDK's own transport in place (autouse where imported)."""
    yield
    assert not mcpstream.sdk.installed()


@pytest.fixture
def down_url() -> str:
    """A URL on loopback where nothing listens (a port just bound and released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/mcp"
