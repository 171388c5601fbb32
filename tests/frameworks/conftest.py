"""Fixtures of the framework peers (FastMCP, Pydantic AI, OpenAI Agents), run in an environment
of their own by scripts/framework-tests.sh (tests/conftest.py leaves this directory out where the
frameworks are not installed).

Each framework meets the official SDK's server (``mcp_server_urls``, as the SDK suites start it)
over mcpstream by two routes, ``route``: ``install`` (``mcpstream.sdk.install()``, the
framework's own default transport untouched) and ``hook`` (the framework's own extension point
given mcpstream's transport). ``relays`` counts the connections mcpstream's SDK transport opened,
which is how a test knows the framework really ran over mcpstream.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import mcpstream.sdk
import mcpstream.sdk.client
import pytest

from tests.sdk.conftest import run
from tests.sdk.relays import Relays, relays  # noqa: F401  # the fixture
from tests.transport.conftest import mcp_server_urls

__all__ = ["mcp_server_urls", "run"]

LARGE = 4 * 1024 * 1024
"""Characters of the large result (``big_text``): a few MiB, past the 1 MiB SSE event cap
FastMCP and the SDK set by default, so the server's JSON mode carries it (the SDK caps SSE
events only)."""


@pytest.fixture(params=["install", "hook"])
def route(request: pytest.FixtureRequest) -> Iterator[str]:
    """How the framework reaches mcpstream: ``install`` (in effect for the test) or ``hook``."""
    if request.param == "install":
        mcpstream.sdk.install()
    try:
        yield str(request.param)
    finally:
        mcpstream.sdk.uninstall()


@pytest.fixture(autouse=True)
def _never_left_installed() -> Iterator[None]:
    yield
    assert not mcpstream.sdk.installed()


@pytest.fixture
def down_url() -> str:
    """A URL on loopback where nothing listens (a port just bound and released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/mcp"


def same_failure(ours: BaseException, theirs: BaseException) -> None:
    """Assert that a framework reported ``ours`` (over mcpstream) as it reported ``theirs``
    (over the SDK's transport): the same class, and the same wording up to the cause."""
    assert type(ours) is type(theirs), (ours, theirs)
    assert str(ours).split(":", 1)[0] == str(theirs).split(":", 1)[0], (ours, theirs)
