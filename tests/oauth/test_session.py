"""The transport hook end to end against the loopback server: registration choices, PKCE,
state, resource, scopes and step-up, refresh and rotation, the replay rules."""

from __future__ import annotations

import time

import httpx
import pytest
from mcpstream.oauth import (
    HeadlessRedirectHandler,
    McpOAuthAuthorizationError,
    McpOAuthAuthRequiredError,
    McpOAuthClientSettings,
    McpOAuthInsufficientScopeError,
    McpOAuthRegistrationError,
    McpOAuthReLoginRequired,
    McpOAuthSession,
)
from mcpstream.oauth._flow import AuthorizationPrompt
from mcpstream.oauth_store import McpOAuthMemoryTokenStore

from .auth_server import AuthServer
from .conftest import MakeSession, Start, acall_mcp, call_mcp


def test_a_first_401_logs_in_with_dcr_pkce_state_and_resource_then_replays(
    auth_server: Start, http_client: httpx.Client, make_session: MakeSession
) -> None:
    server = auth_server()
    session = make_session(server)
    response = call_mcp(session, http_client, server.mcp_url, "initialize")
    assert response.status_code == 200
    assert server.mcp_calls == ["initialize"]
    (registration,) = server.find("/register")
    assert registration.json["token_endpoint_auth_method"] == "none"
    assert registration.json["redirect_uris"] == [HeadlessRedirectHandler().redirect_uri]
    (authorize,) = server.find("/authorize")
    assert authorize.query["code_challenge_method"] == "S256"
    assert len(authorize.query["state"]) >= 32
    assert authorize.query["resource"] == server.mcp_url
    assert "scope" not in authorize.query
    (token,) = server.find("/token")
    assert token.form["resource"] == server.mcp_url
    assert token.form["code_verifier"]


def test_a_pre_registered_client_is_used_before_cimd_and_dcr_with_basic_auth(
    auth_server: Start, http_client: httpx.Client, make_session: MakeSession
) -> None:
    server = auth_server(
        registration=False,
        cimd_supported=True,
        token_auth_methods=["client_secret_basic"],
        pre_registered={"pre client": "s3cr:et"},
    )
    settings = McpOAuthClientSettings(client_id="pre client", client_secret="s3cr:et")
    response = call_mcp(make_session(server, settings=settings), http_client, server.mcp_url, "x")
    assert response.status_code == 200
    (token,) = server.find("/token")
    assert token.headers["authorization"].startswith("Basic ")
    assert "client_secret" not in token.form


def test_client_secret_post_sends_the_secret_in_the_body(
    auth_server: Start, http_client: httpx.Client, make_session: MakeSession
) -> None:
    server = auth_server(token_auth_methods=["client_secret_post"])
    response = call_mcp(make_session(server), http_client, server.mcp_url, "x")
    assert response.status_code == 200
    (registration,) = server.find("/register")
    assert registration.json["token_endpoint_auth_method"] == "client_secret_post"
    (token,) = server.find("/token")
    assert token.form["client_secret"]
    assert "authorization" not in token.headers


def test_a_client_id_metadata_document_is_used_when_the_server_supports_it(
    auth_server: Start, http_client: httpx.Client, make_session: MakeSession
) -> None:
    server = auth_server(cimd_supported=True)
    document = "https://client.example.com/mcpstream.json"
    settings = McpOAuthClientSettings(client_metadata_url=document)
    response = call_mcp(make_session(server, settings=settings), http_client, server.mcp_url, "x")
    assert response.status_code == 200
    assert not server.find("/register")
    assert server.find("/authorize")[0].query["client_id"] == document


def test_no_way_to_register_is_a_clear_error(
    auth_server: Start, http_client: httpx.Client, make_session: MakeSession
) -> None:
    server = auth_server(registration=False)
    with pytest.raises(McpOAuthRegistrationError, match="pre-registered client id"):
        call_mcp(make_session(server), http_client, server.mcp_url, "x")


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ({"challenge_scope": "mcp:basic", "prm_scopes_supported": ["a", "b"]}, "mcp:basic"),
        ({"prm_scopes_supported": ["a", "b"]}, "a b"),
        ({}, None),
    ],
)
def test_the_authorization_request_scope_follows_the_selection_strategy(
    auth_server: Start,
    http_client: httpx.Client,
    make_session: MakeSession,
    config: dict[str, object],
    expected: str | None,
) -> None:
    server = auth_server(**config)
    call_mcp(make_session(server), http_client, server.mcp_url, "x")
    assert server.find("/authorize")[0].query.get("scope") == expected


def test_a_403_insufficient_scope_steps_up_to_the_union_and_replays_even_tools_call(
    auth_server: Start, http_client: httpx.Client, make_session: MakeSession
) -> None:
    server = auth_server(
        challenge_scope="mcp:basic",
        required_scopes={"tools/list": ["mcp:basic"], "tools/call": ["mcp:basic", "mcp:write"]},
    )
    session = make_session(server)
    assert call_mcp(session, http_client, server.mcp_url, "tools/list").status_code == 200
    assert call_mcp(session, http_client, server.mcp_url, "tools/call").status_code == 200
    scopes = [r.query.get("scope") for r in server.find("/authorize")]
    assert scopes == ["mcp:basic", "mcp:basic mcp:write"]
    assert server.mcp_calls == ["tools/list", "tools/call"]


def test_step_up_stops_at_the_retry_limit(
    auth_server: Start, http_client: httpx.Client, make_session: MakeSession
) -> None:
    server = auth_server(
        challenge_scope="mcp:admin",
        required_scopes={"x": ["never-granted"]},
        withheld_scopes=["never-granted"],
    )
    with pytest.raises(McpOAuthInsufficientScopeError, match="2 step-up") as caught:
        call_mcp(make_session(server), http_client, server.mcp_url, "x")
    assert caught.value.required_scopes == ("never-granted",)
    assert len(server.find("/authorize")) == 3  # the login and two step-ups


def test_without_a_redirect_handler_insufficient_scope_names_the_login_command(
    auth_server: Start, http_client: httpx.Client, make_session: MakeSession
) -> None:
    server = auth_server(required_scopes={"x": ["mcp:write"]})
    store = McpOAuthMemoryTokenStore()
    call_mcp(make_session(server, store=store), http_client, server.mcp_url, "y")
    passive = make_session(server, store=store, redirect_handler=None)
    with pytest.raises(McpOAuthInsufficientScopeError, match="--scope mcp:write"):
        call_mcp(passive, http_client, server.mcp_url, "x")


def test_without_credentials_or_a_redirect_handler_the_login_command_is_named(
    auth_server: Start, http_client: httpx.Client, make_session: MakeSession
) -> None:
    server = auth_server()
    session = make_session(server, redirect_handler=None)
    with pytest.raises(
        McpOAuthAuthRequiredError, match=r"mcpstream auth login http://127\.0\.0\.1"
    ):
        session.request_auth(method="initialize").authorization_header()


def test_a_token_about_to_expire_is_refreshed_before_sending_and_rotated(
    auth_server: Start, http_client: httpx.Client, make_session: MakeSession
) -> None:
    server = auth_server(access_token_lifetime_s=30)  # inside the 60 s leeway
    store = McpOAuthMemoryTokenStore()
    session = make_session(server, store=store)
    call_mcp(session, http_client, server.mcp_url, "x")
    first = store.load("srv")
    assert first is not None and first.refresh_token
    call_mcp(session, http_client, server.mcp_url, "y")
    second = store.load("srv")
    assert second is not None
    assert second.refresh_token != first.refresh_token
    assert server.find("/token")[-1].form["grant_type"] == "refresh_token"
    assert server.find("/token")[-1].form["resource"] == server.mcp_url
    assert server.mcp_calls == ["x", "y"]


def _session_whose_access_token_was_revoked(
    server: AuthServer, make_session: MakeSession
) -> McpOAuthSession:
    """A session (that cannot log in again) over a stored login whose access token the server
    has since revoked, while the refresh token still works."""
    store = McpOAuthMemoryTokenStore()
    session = make_session(server, store=store, redirect_handler=None)
    make_session(server, store=store).login()
    server.access_tokens.clear()  # the server revoked every access token
    return session


def test_a_401_with_a_stored_token_refreshes_and_replays_once(
    auth_server: Start, http_client: httpx.Client, make_session: MakeSession
) -> None:
    server = auth_server()
    session = _session_whose_access_token_was_revoked(server, make_session)
    assert call_mcp(session, http_client, server.mcp_url, "tools/list").status_code == 200
    assert [r.form["grant_type"] for r in server.find("/token")] == [
        "authorization_code",
        "refresh_token",
    ]


def test_a_401_on_tools_call_refreshes_but_does_not_replay(
    auth_server: Start, http_client: httpx.Client, make_session: MakeSession
) -> None:
    server = auth_server()
    session = _session_whose_access_token_was_revoked(server, make_session)
    with pytest.raises(McpOAuthAuthRequiredError, match="not retried automatically"):
        call_mcp(session, http_client, server.mcp_url, "tools/call")
    assert server.mcp_calls == []
    assert server.find("/token")[-1].form["grant_type"] == "refresh_token"


def test_a_failed_refresh_clears_the_record_and_asks_for_a_new_login(
    auth_server: Start, http_client: httpx.Client, make_session: MakeSession
) -> None:
    server = auth_server(reject_refresh=True)
    store = McpOAuthMemoryTokenStore()
    make_session(server, store=store).login()
    server.access_tokens.clear()
    session = make_session(server, store=store, redirect_handler=None)
    with pytest.raises(McpOAuthReLoginRequired, match="could not be refreshed"):
        call_mcp(session, http_client, server.mcp_url, "x")
    assert store.load("srv") is None


def test_a_refresh_token_rotated_by_another_process_is_adopted(
    auth_server: Start, http_client: httpx.Client, make_session: MakeSession
) -> None:
    server = auth_server()
    store = McpOAuthMemoryTokenStore()
    make_session(server, store=store).login()
    stale = store.load("srv")
    assert stale is not None
    other = make_session(server, store=store, redirect_handler=None)
    server.access_tokens.clear()
    assert call_mcp(other, http_client, server.mcp_url, "x").status_code == 200
    # This session still holds the old record; its refresh token was used up by the other.
    mine = make_session(server, store=store, redirect_handler=None)
    adopted = mine._run(mine._core.refresh_flow(stale, None))
    assert adopted.access_token == store.load("srv").access_token  # type: ignore[union-attr]


def test_a_callback_with_another_state_is_refused(
    auth_server: Start, http_client: httpx.Client, make_session: MakeSession
) -> None:
    class ForgingHandler(HeadlessRedirectHandler):
        def authorize(self, prompt: AuthorizationPrompt) -> str:
            return super().authorize(prompt).replace(prompt.state, "forged")

    server = auth_server()
    session = make_session(server, redirect_handler=ForgingHandler(client=http_client))
    with pytest.raises(McpOAuthAuthorizationError, match="state does not match"):
        call_mcp(session, http_client, server.mcp_url, "x")
    assert not server.find("/token")


def test_an_error_callback_is_reported_with_its_oauth_code(
    auth_server: Start, http_client: httpx.Client, make_session: MakeSession
) -> None:
    class DenyingHandler(HeadlessRedirectHandler):
        def authorize(self, prompt: AuthorizationPrompt) -> str:
            return f"{self.redirect_uri}?error=access_denied&state={prompt.state}"

    server = auth_server()
    session = make_session(server, redirect_handler=DenyingHandler())
    with pytest.raises(McpOAuthAuthorizationError, match="access_denied") as caught:
        call_mcp(session, http_client, server.mcp_url, "x")
    assert caught.value.oauth_error == "access_denied"


def test_a_dynamic_registration_is_reused_by_the_next_login(
    auth_server: Start, http_client: httpx.Client, make_session: MakeSession
) -> None:
    server = auth_server()
    session = make_session(server)
    session.login()
    session.login()
    assert len(server.find("/register")) == 1
    assert len(server.find("/authorize")) == 2


def test_the_async_session_runs_the_same_flow(auth_server: Start) -> None:
    import asyncio

    server = auth_server(challenge_scope="mcp:basic")
    assert asyncio.run(acall_mcp(server.mcp_url, "tools/list")).status_code == 200
    assert server.find("/authorize")[0].query["scope"] == "mcp:basic"


def test_is_token_expired_uses_a_leeway_and_treats_unknown_lifetimes_as_valid() -> None:
    from mcpstream.oauth import is_token_expired
    from mcpstream.oauth_store import McpOAuthTokenRecord

    now = time.time()
    assert is_token_expired(McpOAuthTokenRecord(access_token="a", expires_at=now + 30))
    assert not is_token_expired(McpOAuthTokenRecord(access_token="a", expires_at=now + 600))
    assert not is_token_expired(McpOAuthTokenRecord(access_token="a"))
