"""Enterprise-managed authorization: the user's ID token exchanged (RFC 8693) at the identity
provider for an ID-JAG, then the JWT bearer grant with it at the authorization server, against
the loopback servers (one port: the MCP resource, the authorization server, the IdP at /idp)."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

import jwt
import pytest
from mcpstream.models import McpOAuthConfig
from mcpstream.oauth import (
    McpOAuthAssertionRejectedError,
    McpOAuthClientSettings,
    McpOAuthTokenExchangeError,
)
from mcpstream.oauth.token_exchange import IdentityProvider

from .auth_server import (
    ID_JAG_TYPE,
    ID_TOKEN_TYPE,
    JWT_BEARER,
    TOKEN_EXCHANGE,
    AuthServer,
    Recorded,
)
from .conftest import Bench, MakeBench, acall_mcp

CLIENT = {"jag-client": "jag-secret"}


def start(bench: MakeBench, **config: Any) -> Bench:
    """The servers with an IdP, and the client pre-registered with the authorization server
    under the id the IdP writes into its ID-JAGs."""
    return bench(
        idp=True, token_auth_methods=["client_secret_basic"], pre_registered=CLIENT, **config
    )


def as_token_requests(server: AuthServer) -> list[Recorded]:
    """The requests to the authorization server's token endpoint (not the IdP's)."""
    return [r for r in server.find("/token") if not r.path.startswith("/idp")]


def enterprise(server: AuthServer, **options: Any) -> McpOAuthClientSettings:
    options.setdefault("id_token", server.id_token)
    return McpOAuthClientSettings(
        grant_type="enterprise",
        client_id="jag-client",
        client_secret="jag-secret",
        idp_token_endpoint=f"{server.url}/idp/token",
        idp_client_id="idp-client",
        **options,
    )


def test_the_id_token_becomes_an_id_jag_and_the_id_jag_a_token(
    bench: MakeBench,
) -> None:
    b = start(bench, prm_scopes_supported=["mcp:read"])
    server = b.server
    id_token = server.id_token()
    config = enterprise(server, id_token=lambda: id_token, idp_client_secret="idp-secret")
    session = b.session(config)
    assert b.call(session).status_code == 200

    (exchange,) = server.find("/idp/token")
    assert exchange.form == {
        "grant_type": TOKEN_EXCHANGE,
        "requested_token_type": ID_JAG_TYPE,
        "audience": server.issuer,
        "resource": server.mcp_url,
        "scope": "mcp:read",
        "subject_token": id_token,
        "subject_token_type": ID_TOKEN_TYPE,
        "client_id": "idp-client",
        "client_secret": "idp-secret",
    }
    (grant,) = as_token_requests(server)
    assert grant.form["grant_type"] == JWT_BEARER
    assert grant.headers["authorization"].startswith("Basic ")  # the client at the AS
    id_jag = grant.form["assertion"]
    assert jwt.get_unverified_header(id_jag)["typ"] == "oauth-id-jag+jwt"
    claims = jwt.decode(id_jag, options={"verify_signature": False})
    assert (claims["aud"], claims["resource"]) == (server.issuer, server.mcp_url)
    assert not server.find("/authorize") and not server.find("/register")


def test_the_id_token_file_is_read_at_every_login(
    bench: MakeBench,
    tmp_path: Path,
) -> None:
    b = start(bench)
    server = b.server
    path = tmp_path / "id_token"
    session = b.session(enterprise(server, id_token=None, id_token_file=str(path)))
    sent = []
    for subject in ("alice", "bob"):
        path.write_text(server.id_token(subject=subject))
        session.login()
        sent.append(server.find("/idp/token")[-1].form["subject_token"])
    assert [jwt.decode(t, options={"verify_signature": False})["sub"] for t in sent] == [
        "alice",
        "bob",
    ]


def test_an_expired_id_token_is_refused_at_the_idp_once_and_nothing_more_is_sent(
    bench: MakeBench,
) -> None:
    b = start(bench)
    server = b.server
    expired = server.id_token(expires_in=-60)
    session = b.session(enterprise(server, id_token=lambda: expired))
    with pytest.raises(McpOAuthAssertionRejectedError) as caught:
        b.call(session)
    error = caught.value
    assert (error.grant, error.reason, error.oauth_error) == (
        "token-exchange",
        "expired",
        "invalid_grant",
    )
    assert "identity provider" in str(error) and "ID token" in str(error)
    assert error.authorization_server_url == f"{server.url}/idp/token"
    assert expired not in str(error) and expired not in repr(error)
    assert len(server.find("/idp/token")) == 1
    assert not as_token_requests(server)


def test_an_idp_refusal_never_shows_the_id_token_or_the_secret_it_echoes(bench: MakeBench) -> None:
    b = start(bench)
    server = b.server
    id_token = server.id_token()
    server.config.idp_refusal = ("access_denied", f"policy refused {id_token} for idp-secret")
    config = enterprise(server, id_token=lambda: id_token, idp_client_secret="idp-secret")
    session = b.session(config)
    with pytest.raises(McpOAuthAssertionRejectedError) as caught:
        session.login()
    assert caught.value.reason == "access_denied"
    for text in (str(caught.value), str(caught.value.error_description)):
        assert id_token not in text and "idp-secret" not in text
        assert "policy refused" in text


def test_an_answer_that_is_no_id_jag_is_refused(bench: MakeBench) -> None:
    b = start(bench, idp_issued_token_type="urn:ietf:params:oauth:token-type:jwt")
    server = b.server
    session = b.session(enterprise(server))
    with pytest.raises(McpOAuthTokenExchangeError, match="not an ID-JAG") as caught:
        session.login()
    assert not isinstance(caught.value, McpOAuthAssertionRejectedError)
    assert not as_token_requests(server)


def test_the_idp_answer_is_held_to_the_document_budget(bench: MakeBench) -> None:
    b = start(bench, idp_padding=20_000)
    session = b.session(replace(enterprise(b.server), max_document_bytes=8192))
    with pytest.raises(McpOAuthTokenExchangeError, match="8192-byte limit") as caught:
        session.login()
    assert not isinstance(caught.value, McpOAuthAssertionRejectedError)
    assert len(b.server.find("/idp/token")) == 1 and not as_token_requests(b.server)


def test_an_id_jag_for_another_client_is_refused_by_the_authorization_server_once(
    bench: MakeBench,
) -> None:
    b = start(bench, jag_client_id="someone-else")
    server = b.server
    session = b.session(enterprise(server))
    with pytest.raises(McpOAuthAssertionRejectedError) as caught:
        b.call(session)
    assert (caught.value.grant, caught.value.reason) == ("jwt-bearer", "invalid_grant")
    assert "ID-JAG" in str(caught.value)
    assert len(server.find("/idp/token")) == 1
    assert len(as_token_requests(server)) == 1


def test_the_async_session_awaits_an_async_id_token_function(
    bench: MakeBench,
) -> None:
    b = start(bench)
    server = b.server
    id_token = server.id_token()

    async def supply() -> str:
        await asyncio.sleep(0)
        return id_token

    response = asyncio.run(
        acall_mcp(server.mcp_url, "tools/list", settings=enterprise(server, id_token=supply))
    )
    assert response.status_code == 200
    assert [r.form["subject_token"] for r in server.find("/idp/token")] == [id_token]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"id_token": None}, "needs the user's ID token"),
        ({"idp_token_endpoint": None}, "needs idp_token_endpoint"),
        ({"idp_client_id": None, "client_id": None}, "needs idp_client_id, client_id"),
        ({"idp_token_endpoint": "http://idp.example.com/token"}, "plain http://"),
        ({"idp_token_endpoint": "file:///etc/passwd"}, "not an absolute https://"),
        ({"assertion_env": "X"}, "only apply with grant_type='jwt_bearer'"),
    ],
)
def test_enterprise_settings_that_cannot_work_are_refused(
    options: dict[str, Any], message: str
) -> None:
    values: dict[str, Any] = {
        "grant_type": "enterprise",
        "client_id": "c",
        "id_token": lambda: "t",
        "idp_token_endpoint": "https://idp.example.com/token",
        "idp_client_id": "i",
    }
    values.update(options)
    for make in (McpOAuthClientSettings, McpOAuthConfig):
        with pytest.raises(ValueError, match=message):
            make(**values)


def test_the_identity_provider_settings_hide_the_secret() -> None:
    config = McpOAuthConfig(
        grant_type="enterprise",
        client_id="c",
        id_token_env="ID_TOKEN",
        idp_token_endpoint="https://idp.example.com/token",
        idp_client_id="i",
        idp_client_secret="idp-very-secret",
    )
    settings = McpOAuthClientSettings.from_config(config)
    for text in (repr(config), repr(settings), repr(settings.identity_provider())):
        assert "idp-very-secret" not in text
    assert settings.identity_provider() == IdentityProvider(
        "https://idp.example.com/token", "i", "idp-very-secret"
    )


def test_no_token_of_the_flow_reaches_a_log_line_or_a_repr(
    bench: MakeBench, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    b = start(bench)
    id_token = b.server.id_token()
    config = enterprise(b.server, id_token=lambda: id_token, idp_client_secret="idp-secret")
    session = b.session(config)
    record = session.login()
    b.server.config.jag_client_id = "someone-else"
    with pytest.raises(McpOAuthAssertionRejectedError) as caught:
        session.login()
    id_jags = [r.form["assertion"] for r in as_token_requests(b.server)]
    secrets = [id_token, "idp-secret", "jag-secret", record.access_token, *id_jags]
    texts = [r.getMessage() for r in caplog.records if r.name.startswith("mcpstream")]
    texts += [str(caught.value), repr(caught.value), repr(record), repr(config), repr(session)]
    assert len(id_jags) == 2 and texts
    for secret in secrets:
        assert all(secret not in text for text in texts)
