"""The fixtures both framework suites (tests/frameworks/, tests/frameworks_1x/: the SDK's 2.x and
1.x lines) share: ``route`` (how a framework reaches mcpstream), ``installed``, the check that no
test leaves ``install()`` in effect, ``down_url``, and the sizes of their steps (``LARGE``,
``HOST_TIMEOUT_S``). Nothing here needs more than mcpstream.sdk,
so it imports on either SDK line."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import mcpstream.sdk
import pytest

__all__ = ["HOST_TIMEOUT_S", "LARGE", "down_url", "installed", "never_left_installed", "route"]

LARGE = 4 * 1024 * 1024
"""Characters of the large result (``big_text``), past the 1 MiB SSE event cap FastMCP and the
SDK set by default, so the server's JSON mode carries it (the SDK caps SSE events only). The 2.x
suite's server sends multi-byte text, escaped and repeated in ``structuredContent``: a JSON body
of about 18 MiB."""

HOST_TIMEOUT_S = 0.5
"""The timeout a host configures in its framework against the silent server: short, so that
the suites stay quick."""


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
