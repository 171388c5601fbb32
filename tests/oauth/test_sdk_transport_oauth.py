"""mcpstream's own OAuth as an option of the SDK transport (``mcpstream.sdk``), end to end: the
SDK's ``mcp.Client`` over ``streamable_http_client(url, oauth=...)`` against the loopback
authorization server and the real MCP server that trusts its tokens (``protected_mcp``).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from mcp import Client
from mcpstream.models import McpOAuthConfig
from mcpstream.oauth import AsyncHeadlessRedirectHandler
from mcpstream.oauth_store import McpOAuthMemoryTokenStore
from mcpstream.sdk import streamable_http_client

from .test_transport_oauth import Protected, bearer, grants


def sdk_transport(url: str, store: McpOAuthMemoryTokenStore) -> Any:
    """``mcpstream.sdk``'s transport for server ``srv`` with mcpstream's OAuth: a memory store
    and the async headless redirect handler (the loopback authorization server consents)."""
    return streamable_http_client(
        url,
        server_id="srv",
        oauth=McpOAuthConfig(),
        oauth_store=store,
        oauth_redirect_handler=AsyncHeadlessRedirectHandler(),
        call_timeout_s=10,
    )


def test_mcp_client_over_the_sdk_transport_logs_in_and_every_request_carries_the_bearer(
    protected_mcp: Protected, tmp_path: Path
) -> None:
    auth, mcp = protected_mcp(challenge_scope="mcp:basic")
    store = McpOAuthMemoryTokenStore()

    async def scenario() -> tuple[str, str]:
        # The handshake era: a session, its GET stream (poke pings the client on it) and the
        # DELETE on close all carry the bearer.
        async with Client(sdk_transport(mcp.url, store), mode="legacy") as client:
            echoed = await client.call_tool("echo", {"text": "over the SDK"})
            poked = await client.call_tool("poke", {})
        first, second = echoed.content[0], poked.content[0]
        assert first.type == "text" and second.type == "text"
        return first.text, second.text

    assert asyncio.run(asyncio.wait_for(scenario(), 60)) == ("over the SDK", "poked")
    gate = mcp.gate
    # The first request met the challenge, the login ran once (one authorization code), and
    # every request after it carried the stored token, the DELETE on close included.
    assert gate.records[0].authorization is None
    assert gate.records[0].status == 401
    assert len(auth.find("/authorize")) == 1
    assert auth.find("/authorize")[0].query["scope"] == "mcp:basic"
    assert grants(auth, "authorization_code") == 1
    assert {r.authorization for r in gate.records[1:]} == {bearer(store)}
    assert all(r.status != 401 for r in gate.records[1:])
    assert gate.statuses("GET")[0] == 200
    assert gate.statuses("DELETE") == [200]


def test_a_stored_login_is_used_without_a_new_authorization(
    protected_mcp: Protected, tmp_path: Path
) -> None:
    auth, mcp = protected_mcp(challenge_scope="mcp:basic")
    store = McpOAuthMemoryTokenStore()

    async def one_session() -> None:
        async with Client(sdk_transport(mcp.url, store)) as client:  # the era negotiated
            await client.call_tool("echo", {"text": "x"})

    asyncio.run(asyncio.wait_for(one_session(), 60))
    first_login = len(mcp.gate.records)
    asyncio.run(asyncio.wait_for(one_session(), 60))
    # The second session starts with the stored bearer: no 401, no second authorization.
    later = mcp.gate.records[first_login:]
    assert later and all(r.authorization == bearer(store) for r in later)
    assert all(r.status != 401 for r in later)
    assert len(auth.find("/authorize")) == 1
