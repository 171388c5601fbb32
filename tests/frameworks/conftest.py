"""Fixtures of the framework peers (FastMCP, Pydantic AI, OpenAI Agents), run in an environment
of their own by scripts/framework-tests.sh (tests/conftest.py leaves this directory out where the
frameworks are not installed).

Each framework meets the official SDK's server (``mcp_server_urls``, as the SDK suites start it)
over mcpstream by two routes, ``route``: ``install`` (``mcpstream.sdk.install()``, the
framework's own default transport untouched) and ``hook`` (the framework's own extension point
given mcpstream's transport). ``relays`` counts the connections mcpstream's SDK transport opened,
which is how a test knows the framework really ran over mcpstream. ``route`` and ``down_url``
come from tests/sdk/routes.py (the 1.x suite's too).
"""

from __future__ import annotations

from tests.sdk.conftest import run
from tests.sdk.relays import Relays, relays  # noqa: F401  # the fixture
from tests.sdk.routes import down_url, never_left_installed, route
from tests.transport.conftest import mcp_server_urls

__all__ = ["down_url", "mcp_server_urls", "never_left_installed", "route", "run"]

LARGE = 4 * 1024 * 1024
"""Characters of the large result (``big_text``): a few MiB, past the 1 MiB SSE event cap
FastMCP and the SDK set by default, so the server's JSON mode carries it (the SDK caps SSE
events only)."""


def same_failure(ours: BaseException, theirs: BaseException) -> None:
    """Assert that a framework reported ``ours`` (over mcpstream) as it reported ``theirs``
    (over the SDK's transport): the same class, and the same wording up to the cause."""
    assert type(ours) is type(theirs), (ours, theirs)
    assert str(ours).split(":", 1)[0] == str(theirs).split(":", 1)[0], (ours, theirs)
