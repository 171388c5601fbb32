"""The authorization rules of MCP 2026-07-28, against the loopback authorization server (OAuth
rules, so they hold whichever MCP wire the transport speaks): ``application_type`` in dynamic
registration, the RFC 9207 ``iss`` check by exact string, the metadata ``issuer`` check,
credentials bound to their issuer (re-registration when the resource moves to another
authorization server), ``offline_access`` only where advertised, the step-up scope union and the
resource identifier sent as published. Each test names the conformance scenario it mirrors."""

from __future__ import annotations

import asyncio

import httpx
import mcpstream.oauth as oauth
import pytest
from mcpstream.oauth.registration import application_type_for
from mcpstream.oauth.scopes import with_offline_access

from .auth_server import AuthServer
from .conftest import MakeSession, Start, acall_mcp, call_mcp

# -- application_type (SEP-837: sep-837-application-type-present) ----------------------------


def test_dynamic_registration_sends_native_for_a_loopback_redirect_uri(
    auth_server: Start, http_client: httpx.Client, make_session: MakeSession
) -> None:
    server = auth_server()
    call_mcp(make_session(server), http_client, server.mcp_url, "tools/list")
    (registration,) = server.find("/register")
    assert registration.json["application_type"] == "native"


def test_the_configured_application_type_wins(
    auth_server: Start, http_client: httpx.Client, make_session: MakeSession
) -> None:
    server = auth_server()
    settings = oauth.McpOAuthClientSettings(application_type="web")
    call_mcp(make_session(server, settings=settings), http_client, server.mcp_url, "tools/list")
    assert server.find("/register")[0].json["application_type"] == "web"
    with pytest.raises(ValueError, match="application_type"):
        oauth.McpOAuthClientSettings(application_type="desktop")


@pytest.mark.parametrize(
    ("redirect_uri", "expected"),
    [
        ("http://127.0.0.1:8976/callback", "native"),
        ("http://localhost:3000/cb", "native"),
        ("http://[::1]:3000/cb", "native"),
        ("com.example.app:/oauth2redirect", "native"),
        ("https://app.example.com/callback", "web"),
        (None, "web"),  # a machine client: no redirect at all
    ],
)
def test_application_type_follows_the_redirect_uri(redirect_uri: str | None, expected: str) -> None:
    assert application_type_for(redirect_uri) == expected


# -- the iss parameter (RFC 9207; auth/iss-*) -------------------------------------------------


@pytest.mark.parametrize(
    ("advertised", "sent", "accepted"),
    [
        (True, "correct", True),  # auth/iss-supported
        (None, "omit", True),  # auth/iss-not-advertised
        (None, "correct", True),  # present, not advertised, equal: proceed
        (True, "omit", False),  # auth/iss-supported-missing
        (True, "wrong", False),  # auth/iss-wrong-issuer
        (None, "wrong", False),  # auth/iss-unexpected
        (True, "normalized", False),  # auth/iss-normalized: the issuer plus a slash
    ],
)
def test_the_authorization_response_iss_is_compared_as_an_exact_string(
    auth_server: Start,
    http_client: httpx.Client,
    make_session: MakeSession,
    advertised: bool | None,
    sent: str,
    accepted: bool,
) -> None:
    server = auth_server(iss_supported=advertised, iss_in_redirect=sent)
    session = make_session(server)
    if accepted:
        assert call_mcp(session, http_client, server.mcp_url, "tools/list").status_code == 200
        return
    with pytest.raises(oauth.McpOAuthIssuerMismatchError, match="RFC 9207") as caught:
        call_mcp(session, http_client, server.mcp_url, "tools/list")
    assert server.find("/authorize")
    assert not server.find("/token"), "the code must not reach any token endpoint"
    assert "code-" not in str(caught.value)


def test_an_error_response_with_a_foreign_iss_is_not_believed(
    auth_server: Start, http_client: httpx.Client, make_session: MakeSession
) -> None:
    server = auth_server(iss_supported=True, iss_in_redirect="wrong", authorize_error="bad_x")
    with pytest.raises(oauth.McpOAuthIssuerMismatchError) as caught:
        call_mcp(make_session(server), http_client, server.mcp_url, "tools/list")
    assert "bad_x" not in str(caught.value)
    server.config.iss_in_redirect = "correct"
    with pytest.raises(oauth.McpOAuthAuthorizationError, match="bad_x") as believed:
        call_mcp(make_session(server), http_client, server.mcp_url, "tools/list")
    assert not isinstance(believed.value, oauth.McpOAuthIssuerMismatchError)


def test_the_async_driver_runs_the_same_iss_check(auth_server: Start) -> None:
    server = auth_server(iss_supported=True, iss_in_redirect="normalized")
    with pytest.raises(oauth.McpOAuthIssuerMismatchError):
        asyncio.run(acall_mcp(server.mcp_url, "tools/list"))
    assert not server.find("/token")
    server.config.iss_in_redirect = "correct"
    assert asyncio.run(acall_mcp(server.mcp_url, "tools/list")).status_code == 200


# -- the metadata issuer (RFC 8414 section 3.3; auth/metadata-issuer-mismatch) ----------------


@pytest.mark.parametrize("variant", ["attacker", "trailing-slash"])
def test_metadata_whose_issuer_is_not_the_looked_up_one_is_not_used(
    auth_server: Start, http_client: httpx.Client, make_session: MakeSession, variant: str
) -> None:
    server = auth_server()
    server.config.issuer_override = (
        "https://attacker.example.com" if variant == "attacker" else server.url + "/"
    )
    with pytest.raises(oauth.McpOAuthDiscoveryError, match="compared exactly"):
        call_mcp(make_session(server), http_client, server.mcp_url, "tools/list")
    assert server.find("/.well-known/oauth-authorization-server")
    assert not server.find("/register") and not server.find("/authorize")


# -- credentials bound to their issuer (SEP-2352; auth/authorization-server-migration) ---------


def _migrate(resource: AuthServer, to: AuthServer) -> None:
    """The protected resource now names ``to`` and accepts only its tokens."""
    resource.config.authorization_server_url = to.url
    resource.access_tokens.clear()
    resource.token_peers = [to]


def test_a_resource_moving_to_another_authorization_server_means_registering_there(
    auth_server: Start, http_client: httpx.Client, make_session: MakeSession
) -> None:
    first, second = auth_server(), auth_server()
    session = make_session(first)
    assert call_mcp(session, http_client, first.mcp_url, "tools/list").status_code == 200
    (old_registration,) = first.find("/register")
    old_client_id = first.find("/authorize")[0].query["client_id"]
    refreshes_before = len(first.find("/token"))
    _migrate(first, second)

    assert call_mcp(session, http_client, first.mcp_url, "tools/list").status_code == 200
    assert len(second.find("/register")) == 1, "re-registered with the new server"
    assert len(first.find("/token")) == refreshes_before, "no refresh at the old server"
    for request in second.requests:
        assert old_client_id not in (request.query.get("client_id"), request.form.get("client_id"))
        assert old_client_id not in request.headers.get("authorization", "")
    stored = session._core.store.load("srv")
    assert stored is not None and stored.issuer == second.issuer
    assert stored.client_registration is not None
    assert stored.client_registration.issuer == second.issuer
    assert old_registration.json["application_type"] == "native"


def test_a_stored_registration_of_another_issuer_is_not_reused(
    auth_server: Start, http_client: httpx.Client, make_session: MakeSession
) -> None:
    first, second = auth_server(), auth_server()
    session = make_session(first)
    call_mcp(session, http_client, first.mcp_url, "tools/list")
    store = session._core.store
    _migrate(first, second)
    # A new process: only the store remembers the first server's registration.
    fresh = make_session(first, store=store)
    assert call_mcp(fresh, http_client, first.mcp_url, "tools/list").status_code == 200
    assert second.find("/register")


def test_a_pre_registered_client_id_is_not_shown_to_another_authorization_server(
    auth_server: Start, http_client: httpx.Client, make_session: MakeSession
) -> None:
    first, second = auth_server(pre_registered={"pre-id": ""}), auth_server()
    settings = oauth.McpOAuthClientSettings(client_id="pre-id")
    session = make_session(first, settings=settings)
    assert call_mcp(session, http_client, first.mcp_url, "tools/list").status_code == 200
    _migrate(first, second)
    with pytest.raises(oauth.McpOAuthRegistrationError, match="now names") as caught:
        call_mcp(session, http_client, first.mcp_url, "tools/list")
    assert second.url in str(caught.value)
    assert not [r for r in second.requests if "pre-id" in str(r.query) + str(r.form)]


# -- offline_access (SEP-2207; auth/offline-access-scope, auth/offline-access-not-supported) ---


@pytest.mark.parametrize(
    ("as_scopes", "expected_scope"),
    [
        (["mcp:basic", "offline_access"], "mcp:basic offline_access"),
        (["mcp:basic", "mcp:read"], "mcp:basic"),
        (None, "mcp:basic"),
    ],
    ids=["advertised", "not-advertised", "no-scopes-supported"],
)
def test_offline_access_is_asked_for_only_where_the_authorization_server_lists_it(
    auth_server: Start,
    http_client: httpx.Client,
    make_session: MakeSession,
    as_scopes: list[str] | None,
    expected_scope: str,
) -> None:
    server = auth_server(
        as_scopes_supported=as_scopes,
        prm_scopes_supported=["mcp:basic"],
        prm_in_challenge=True,
        challenge_scope="mcp:basic offline_access" if as_scopes is None else None,
    )
    call_mcp(make_session(server), http_client, server.mcp_url, "tools/list")
    assert server.find("/authorize")[0].query["scope"] == expected_scope
    assert "refresh_token" in server.find("/register")[0].json["grant_types"]


def test_offline_access_rules() -> None:
    supported = ["a", "offline_access"]
    assert with_offline_access((), authorization_server_scopes=supported) == ()
    assert with_offline_access(("a",), authorization_server_scopes=supported) == (
        "a",
        "offline_access",
    )
    kept = with_offline_access(
        ("a", "offline_access"),
        authorization_server_scopes=None,
        configured_scopes=["offline_access"],
    )
    assert kept == ("a", "offline_access")


# -- step-up union (SEP-2350; auth/scope-step-up: sep-2350-scope-union-on-reauth) ---------------


def test_step_up_keeps_the_scopes_asked_for_before_even_when_not_granted(
    auth_server: Start, http_client: httpx.Client, make_session: MakeSession
) -> None:
    server = auth_server(
        challenge_scope="mcp:basic mcp:extra",
        withheld_scopes=["mcp:extra"],
        required_scopes={"tools/call": ["mcp:write"]},
    )
    session = make_session(server)
    assert call_mcp(session, http_client, server.mcp_url, "tools/list").status_code == 200
    assert call_mcp(session, http_client, server.mcp_url, "tools/call").status_code == 200
    first, second = server.find("/authorize")
    assert first.query["scope"] == "mcp:basic mcp:extra"
    # mcp:extra was asked for, not granted: the union still carries it.
    assert set(second.query["scope"].split()) == {"mcp:basic", "mcp:extra", "mcp:write"}


# -- the resource identifier (RFC 9728; auth/resource-mismatch, resource-parameter-matches-prm) -


def test_the_resource_is_sent_exactly_as_the_metadata_publishes_it(
    auth_server: Start, http_client: httpx.Client, make_session: MakeSession
) -> None:
    server = auth_server()
    server.config.prm_resource = server.mcp_url + "/"
    call_mcp(make_session(server), http_client, server.mcp_url, "tools/list")
    assert server.find("/authorize")[0].query["resource"] == server.mcp_url + "/"
    assert server.find("/token")[0].form["resource"] == server.mcp_url + "/"


@pytest.mark.parametrize(
    "resource", ["https://evil.example.com/mcp", "http://127.0.0.1:1/mcp", "{origin}/other"]
)
def test_metadata_for_another_resource_stops_before_any_authorization_request(
    auth_server: Start, http_client: httpx.Client, make_session: MakeSession, resource: str
) -> None:
    server = auth_server()
    server.config.prm_resource = resource.format(origin=server.url)
    with pytest.raises(oauth.McpOAuthDiscoveryError, match="is for resource"):
        call_mcp(make_session(server), http_client, server.mcp_url, "tools/list")
    assert not server.find("/authorize") and not server.find("/register")
