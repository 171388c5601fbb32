"""Fixtures of Google ADK's peer, run by scripts/framework-tests.sh with
``MCPSTREAM_FRAMEWORKS=adk`` in an environment of its own (ADK's pins do not resolve beside
FastMCP's: see the script). They are tests/frameworks/'s, for a framework reached by
``install()`` alone (``installed``: ADK's transport is not pluggable, its hook is the HTTP
client, ``httpx_client_factory``)."""

from __future__ import annotations

from collections.abc import Iterator

import mcpstream.sdk
import pytest

from tests.frameworks.conftest import (  # noqa: F401  # the fixtures
    _never_left_installed,
    down_url,
    mcp_server_urls,
    relays,
    silent_url,
)

__all__ = ["down_url", "mcp_server_urls", "relays", "silent_url"]


@pytest.fixture
def installed() -> Iterator[None]:
    """``mcpstream.sdk.install()`` in effect for the test."""
    mcpstream.sdk.install()
    try:
        yield
    finally:
        mcpstream.sdk.uninstall()
