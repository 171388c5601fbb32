"""The assertion grants through the transports, end to end: ``McpHttpTransport`` and
``AsyncMcpHttpTransport`` with ``McpOAuthConfig(grant_type="jwt_bearer" | "enterprise")``
against the loopback authorization server (and its IdP) and the real MCP server that trusts
its tokens; a refused assertion reaches the caller after one token request."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from mcpstream.models import McpOAuthConfig, ResolvedMcpServer
from mcpstream.oauth import McpOAuthAssertionRejectedError
from mcpstream.oauth_store import McpOAuthMemoryTokenStore
from mcpstream.transport_http import McpHttpTransport
from transport.helpers import call_tool, initialize, tool_text

from .auth_server import JWT_BEARER, AuthServer
from .test_assertions import WORKLOAD_KEY, jwt_bearer_requests, workload_jwt
from .test_token_exchange import CLIENT, as_token_requests
from .test_transport_oauth import Protected
from .test_transport_oauth_async import call_tool as acall_tool
from .test_transport_oauth_async import initialized


def sync_transport(url: str, oauth: McpOAuthConfig, tmp_path: Path) -> McpHttpTransport:
    """A blocking transport for server ``srv`` with ``oauth``, no redirect handler (none is
    needed) and no GET stream."""
    server = ResolvedMcpServer(id="srv", url=url, oauth=oauth, call_timeout_s=10)
    return McpHttpTransport(
        server=server,
        workspace_root=tmp_path,
        oauth_store=McpOAuthMemoryTokenStore(),
        listen=False,
    )


def test_the_sync_transport_authorizes_with_the_workload_jwt_file(
    protected_mcp: Protected, tmp_path: Path
) -> None:
    auth, mcp = protected_mcp(workload_key=WORKLOAD_KEY.public_key())
    path = tmp_path / "token"
    path.write_text(workload_jwt(auth.issuer))
    oauth = McpOAuthConfig(grant_type="jwt_bearer", assertion_file=path)
    with sync_transport(mcp.url, oauth, tmp_path) as transport:
        initialize(transport)
        assert tool_text(call_tool(transport, "echo", {"text": "hi"})) == "hi"
    assert mcp.gate.statuses("POST", "initialize") == [401, 200]
    assert [form["assertion"] for form in jwt_bearer_requests(auth)] == [path.read_text()]
    assert [r.form["grant_type"] for r in auth.find("/token")] == [JWT_BEARER]


def test_the_sync_transport_reports_a_refused_assertion_after_one_request(
    protected_mcp: Protected, tmp_path: Path
) -> None:
    auth, mcp = protected_mcp(workload_key=WORKLOAD_KEY.public_key())
    stale = workload_jwt("https://another-server.example")
    oauth = McpOAuthConfig(grant_type="jwt_bearer", assertion=lambda: stale)
    with (
        sync_transport(mcp.url, oauth, tmp_path) as transport,
        pytest.raises(McpOAuthAssertionRejectedError) as caught,
    ):
        initialize(transport)
    assert caught.value.reason == "wrong_audience"
    assert stale not in str(caught.value)
    assert len(auth.find("/token")) == 1
    assert mcp.gate.statuses("POST", "initialize") == [401]


def enterprise_config(auth: AuthServer, id_token: object) -> McpOAuthConfig:
    return McpOAuthConfig(
        "jag-client",
        client_secret=CLIENT["jag-client"],
        grant_type="enterprise",
        id_token=id_token,  # type: ignore[arg-type]  # a function, as the tests give it
        idp_token_endpoint=f"{auth.url}/idp/token",
        idp_client_id="idp-client",
    )


def test_the_async_transport_authorizes_through_the_identity_provider(
    protected_mcp: Protected, tmp_path: Path
) -> None:
    auth, mcp = protected_mcp(
        idp=True, token_auth_methods=["client_secret_basic"], pre_registered=CLIENT
    )
    id_token = auth.id_token()

    async def supply() -> str:
        return id_token

    async def body() -> None:
        oauth = enterprise_config(auth, supply)
        async with initialized(mcp.url, tmp_path, oauth=oauth, listen=False) as transport:
            assert await acall_tool(transport, "echo", {"text": "sso"}) == "sso"

    asyncio.run(asyncio.wait_for(body(), 60))
    assert [r.form["subject_token"] for r in auth.find("/idp/token")] == [id_token]
    assert [r.form["grant_type"] for r in as_token_requests(auth)] == [JWT_BEARER]
    assert mcp.gate.statuses("POST", "initialize") == [401, 200]


def test_the_async_transport_reports_a_refused_id_token_after_one_exchange(
    protected_mcp: Protected, tmp_path: Path
) -> None:
    auth, mcp = protected_mcp(
        idp=True, token_auth_methods=["client_secret_basic"], pre_registered=CLIENT
    )
    expired = auth.id_token(expires_in=-60)

    async def body() -> None:
        oauth = enterprise_config(auth, lambda: expired)
        with pytest.raises(McpOAuthAssertionRejectedError) as caught:
            async with initialized(mcp.url, tmp_path, oauth=oauth, listen=False):
                pass
        assert (caught.value.grant, caught.value.reason) == ("token-exchange", "expired")

    asyncio.run(asyncio.wait_for(body(), 60))
    assert len(auth.find("/idp/token")) == 1
    assert not as_token_requests(auth)
