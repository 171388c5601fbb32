"""The time of an OAuth refresh counts against the call that waits on it: against the OAuth
tests' loopback authorization server (its token endpoint made slow for refresh grants) and the
official SDK's server behind a bearer gate, a call refused with 401 renews its token by a
refresh that outlasts the call's deadline, and the call raises its timeout then instead of
sending the request again, sync and async. A refresh is not cut off (a token half renewed would
be lost): the call raises once it returns past the deadline. (A refresh before expiry runs
within the send, under the call's deadline already.)"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcpstream.errors import McpHttpTransportTimeoutError
from mcpstream.models import McpOAuthConfig, ResolvedMcpServer
from mcpstream.oauth import HeadlessRedirectHandler
from mcpstream.oauth_store import McpOAuthMemoryTokenStore
from mcpstream.transport_http import McpHttpTransport
from mcpstream.transport_http_async import AsyncMcpHttpTransport
from oauth.auth_server import AuthServer, AuthServerConfig, Recorded
from oauth.protected_mcp import ProtectedMcpServer

from .conftest import AsyncFacade, EventLoopThread
from .helpers import initialize
from .test_transport_http_deadlines import MARGIN_S

REFRESH_S = 1.3
READ = {"uri": "mem://readme"}


class SlowRefreshAuthServer(AuthServer):
    """The loopback authorization server, answering refresh grants after ``REFRESH_S``."""

    def token(self, request: Recorded) -> tuple[int, dict[str, Any]]:
        if request.form.get("grant_type") == "refresh_token":
            time.sleep(REFRESH_S)
        return super().token(request)


@pytest.fixture
def protected() -> Iterator[ProtectedMcpServer]:
    auth = SlowRefreshAuthServer(AuthServerConfig()).start()
    mcp = ProtectedMcpServer(auth).start()
    yield mcp
    mcp.stop()
    auth.stop()


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_slow_renewal_counts_against_the_call_it_holds_up(
    protected: ProtectedMcpServer, event_loop_thread: EventLoopThread, tmp_path: Path, kind: str
) -> None:
    store = McpOAuthMemoryTokenStore()
    server = ResolvedMcpServer(
        id="srv", url=protected.url, oauth=McpOAuthConfig(), call_timeout_s=10
    )
    with httpx.Client() as login_client:
        handler = HeadlessRedirectHandler(client=login_client)
        transport: Any
        if kind == "sync":
            transport = McpHttpTransport(
                server=server,
                workspace_root=tmp_path,
                oauth_store=store,
                oauth_redirect_handler=handler,
                listen=False,
            )
        else:

            async def build() -> AsyncMcpHttpTransport:
                return AsyncMcpHttpTransport(
                    server=server,
                    workspace_root=tmp_path,
                    oauth_store=store,
                    oauth_redirect_handler=handler,
                    listen=False,
                )

            transport = AsyncFacade(event_loop_thread, event_loop_thread.run(build()))
        try:
            initialize(transport)  # logs in
            record = store.load("srv")
            assert record is not None
            protected.gate.revoke(f"Bearer {record.access_token}")
            # The 401 is renewed by a refresh that takes 1.3 s of the call's 1 s: the call
            # raises its timeout as soon as the refresh returns (left out of the budget, the
            # refresh would let the request be sent again and answered).
            started = time.monotonic()
            with pytest.raises(McpHttpTransportTimeoutError):
                transport.request(method="resources/read", params=READ, timeout_s=1.0)
            elapsed = time.monotonic() - started
            assert REFRESH_S <= elapsed < 1.0 + MARGIN_S
            refreshed = store.load("srv")
            assert refreshed is not None and refreshed.access_token != record.access_token
        finally:
            transport.close()
