"""OAuth in ``Client`` and ``AsyncClient``, done by their transport, end to end: against the
loopback authorization server and a real MCP server (the official SDK's) that trusts its tokens.
"""

from __future__ import annotations

import asyncio
import importlib
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from mcpstream import AsyncClient, Client
from mcpstream.models import McpOAuthConfig
from mcpstream.oauth import (
    AsyncHeadlessRedirectHandler,
    HeadlessRedirectHandler,
    McpOAuthAuthRequiredError,
    McpOAuthClientSettings,
    McpOAuthSession,
    default_server_id,
)
from mcpstream.oauth_store import (
    McpOAuthMemoryTokenStore,
    McpOAuthTokenRecord,
    save_oauth_token_record,
)

from .auth_server import AuthServer
from .protected_mcp import ProtectedMcpServer

Protected = Callable[..., tuple[AuthServer, ProtectedMcpServer]]


@pytest.mark.parametrize(
    ("protocol", "first_method"),
    [("legacy", "initialize"), (None, "server/discover")],
    ids=["handshake-era", "negotiated-2026"],
)
def test_the_client_logs_in_through_its_transport_and_sends_the_bearer_everywhere(
    protected_mcp: Protected, http_client: httpx.Client, protocol: str | None, first_method: str
) -> None:
    auth, mcp = protected_mcp(challenge_scope="mcp:basic")
    store = McpOAuthMemoryTokenStore()
    with Client(
        mcp.url,
        oauth=True,
        oauth_store=store,
        oauth_redirect_handler=HeadlessRedirectHandler(client=http_client),
        protocol=protocol,
    ) as client:
        assert client.call_tool("echo", {"text": "authorized"}).text == "authorized"
        assert client.ping() > 0
    # Stored under the key ``mcpstream auth login URL`` uses.
    record = store.load(default_server_id(mcp.url))
    assert record is not None and record.granted_scopes == ("mcp:basic",)
    gate = mcp.gate
    # The first request of the session is refused, then sent again with the new token.
    assert gate.statuses("POST", first_method)[:2] == [401, 200]
    authorized = [r for r in gate.records if r.status != 401]
    assert authorized and all(
        r.authorization == f"Bearer {record.access_token}" for r in authorized
    )
    # Only the handshake era has a session to DELETE.
    assert any(r.http_method == "DELETE" for r in authorized) == (protocol == "legacy")
    assert len(auth.find("/authorize")) == 1


def test_the_async_client_logs_in_with_an_async_redirect_handler(
    protected_mcp: Protected,
) -> None:
    auth, mcp = protected_mcp()
    store = McpOAuthMemoryTokenStore()

    async def scenario() -> str:
        async with AsyncClient(
            mcp.url,
            oauth=McpOAuthConfig(),
            oauth_store=store,
            oauth_redirect_handler=AsyncHeadlessRedirectHandler(),
        ) as client:
            return (await client.call_tool("echo", {"text": "async"})).text

    assert asyncio.run(scenario()) == "async"
    assert store.load(default_server_id(mcp.url)) is not None
    assert len(auth.find("/token")) == 1


def test_oauth_true_uses_the_stored_login_and_names_the_login_command_without_one(
    protected_mcp: Protected,
) -> None:
    _, mcp = protected_mcp()
    with pytest.raises(McpOAuthAuthRequiredError) as raised:
        Client(mcp.url, oauth=True).connect()
    # The login command for exactly this URL, with no --server-id: the key is the URL's.
    assert f"'mcpstream auth login {mcp.url}'" in str(raised.value)
    assert mcp.gate.records == []  # nothing was sent without credentials

    # Log in elsewhere, and put the login where ``mcpstream auth login URL`` leaves it.
    store = McpOAuthMemoryTokenStore()
    with httpx.Client() as http:
        handler = HeadlessRedirectHandler(client=http)
        with Client(mcp.url, oauth=True, oauth_store=store, oauth_redirect_handler=handler):
            pass
    record = store.load(default_server_id(mcp.url))
    assert record is not None
    save_oauth_token_record(default_server_id(mcp.url), record)
    with Client(mcp.url, oauth=True) as client:
        assert client.call_tool("echo", {"text": "stored"}).text == "stored"


def test_a_machine_client_from_client_settings_needs_no_user(protected_mcp: Protected) -> None:
    auth, mcp = protected_mcp(
        token_auth_methods=["client_secret_basic"], pre_registered={"machine": "secret"}
    )
    settings = McpOAuthClientSettings(
        client_id="machine", client_secret="secret", grant_type="client_credentials"
    )
    with Client(mcp.url, oauth=settings, oauth_store=McpOAuthMemoryTokenStore()) as client:
        assert client.call_tool("echo", {"text": "machine"}).text == "machine"
    (token,) = auth.find("/token")
    assert token.form["grant_type"] == "client_credentials"
    assert token.headers["authorization"].startswith("Basic ")
    assert not auth.find("/authorize")


@pytest.mark.parametrize("stack", ["httpx", "httpx2"])
def test_oauth_runs_over_the_http_client_given_to_the_client(
    protected_mcp: Protected, stack: str
) -> None:
    _, mcp = protected_mcp()
    seen: list[str] = []

    def record(request: Any) -> None:
        seen.append(request.url.path)

    module = importlib.import_module(stack)
    with module.Client(event_hooks={"request": [record]}) as http:
        with Client(
            mcp.url,
            oauth=True,
            oauth_store=McpOAuthMemoryTokenStore(),
            oauth_redirect_handler=HeadlessRedirectHandler(client=http),
            http_client=http,
        ) as client:
            assert client.ping() > 0
        assert not http.is_closed  # the caller's client stays the caller's
    assert "/token" in seen and "/mcp" in seen


def test_oauth_options_that_cannot_work_are_refused() -> None:
    url = "http://127.0.0.1:9/mcp"
    with pytest.raises(ValueError, match="token or oauth"):
        Client(url, oauth=True, token="t")
    session = McpOAuthSession(server_id="s", server_url=url)
    with pytest.raises(TypeError, match="oauth_store= and oauth_redirect_handler="):
        Client(url, oauth=session)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="McpOAuthConfig"):
        AsyncClient(url, oauth="yes")  # type: ignore[arg-type]


def test_an_explicit_server_id_is_the_store_key(protected_mcp: Protected) -> None:
    _, mcp = protected_mcp()
    save_oauth_token_record(
        "work",
        McpOAuthTokenRecord(access_token="not-issued", expires_at=time.time() + 3600),
    )
    with pytest.raises(McpOAuthAuthRequiredError) as raised:
        Client(mcp.url, oauth=True, server_id="work").connect()
    assert f"mcpstream auth login {mcp.url} --server-id work" in str(raised.value)
