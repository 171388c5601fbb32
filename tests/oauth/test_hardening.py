"""Issue 11's OAuth limits against the real loopback authorization server: the URL policy, the
byte budget per document, and a deadline per operation that leaves the user's browser time out
of it. (The hostile-server side of the same limits is in ``tests/hostile``.)"""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest
from mcpstream.oauth import (
    HeadlessRedirectHandler,
    McpOAuthClientSettings,
    McpOAuthDiscoveryError,
)
from mcpstream.oauth._flow import AuthorizationPrompt

from .conftest import MakeSession, Start, acall_mcp, call_mcp


def test_a_real_server_naming_a_plain_http_issuer_is_refused(
    auth_server: Start, http_client: httpx.Client, make_session: MakeSession
) -> None:
    server = auth_server(issuer_override="http://as.example.com")
    with pytest.raises(McpOAuthDiscoveryError, match="plain http://"):
        call_mcp(make_session(server), http_client, server.mcp_url, "tools/list")
    with pytest.raises(McpOAuthDiscoveryError, match="plain http://"):
        asyncio.run(acall_mcp(server.mcp_url, "tools/list"))
    assert not server.find("/token")


def test_the_byte_budget_applies_to_real_documents(
    auth_server: Start, http_client: httpx.Client, make_session: MakeSession
) -> None:
    server = auth_server()
    tiny = McpOAuthClientSettings(max_document_bytes=64)
    with pytest.raises(McpOAuthDiscoveryError, match="64-byte limit"):
        call_mcp(make_session(server, settings=tiny), http_client, server.mcp_url, "tools/list")
    with pytest.raises(McpOAuthDiscoveryError, match="64-byte limit"):
        asyncio.run(acall_mcp(server.mcp_url, "tools/list", settings=tiny))
    # The default budget (1 MiB) passes every real document.
    response = call_mcp(make_session(server), http_client, server.mcp_url, "tools/list")
    assert response.status_code == 200


class _SlowUser(HeadlessRedirectHandler):
    """A person who takes longer over the browser step than the operation's whole budget."""

    def authorize(self, prompt: AuthorizationPrompt) -> str:
        time.sleep(1.2)
        return super().authorize(prompt)


def test_the_deadline_restarts_after_the_browser_step(
    auth_server: Start, http_client: httpx.Client, make_session: MakeSession
) -> None:
    server = auth_server()
    handler = _SlowUser(client=http_client)
    session = make_session(server, redirect_handler=handler, timeout_s=1.0)
    assert call_mcp(session, http_client, server.mcp_url, "tools/list").status_code == 200
    response = asyncio.run(
        acall_mcp(server.mcp_url, "tools/list", redirect_handler=_SlowUser(), timeout_s=1.0)
    )
    assert response.status_code == 200
