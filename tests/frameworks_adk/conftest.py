"""Fixtures of Google ADK's peer, run by scripts/framework-tests.sh with
``MCPSTREAM_FRAMEWORKS=adk`` in an environment of its own (ADK's pins do not resolve beside
FastMCP's: see the script). They are tests/frameworks/'s, for a framework reached by
``install()`` alone (``installed``: ADK's transport is not pluggable, its hook is the HTTP
client, ``httpx_client_factory``)."""

from __future__ import annotations

from tests.frameworks.conftest import down_url, mcp_server_urls, relays, silent_url
from tests.sdk.routes import installed, never_left_installed

__all__ = [
    "down_url",
    "installed",
    "mcp_server_urls",
    "never_left_installed",
    "relays",
    "silent_url",
]
