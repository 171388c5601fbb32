"""The client-credentials grant for machine clients: client_secret_basic and private_key_jwt."""

from __future__ import annotations

from collections.abc import Callable

import httpx
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from mcpstream.oauth import McpOAuthClientSettings, McpOAuthSession

from .auth_server import AuthServer
from .conftest import call_mcp


def test_client_credentials_with_client_secret_basic_needs_no_user(
    auth_server: Callable[..., AuthServer],
    http_client: httpx.Client,
    make_session: Callable[..., McpOAuthSession],
) -> None:
    server = auth_server(
        token_auth_methods=["client_secret_basic"],
        pre_registered={"machine": "secret"},
        prm_scopes_supported=["mcp:read"],
    )
    settings = McpOAuthClientSettings(
        client_id="machine", client_secret="secret", grant_type="client_credentials"
    )
    session = make_session(server, settings=settings, redirect_handler=None)
    assert call_mcp(session, http_client, server.mcp_url, "tools/list").status_code == 200
    (token,) = server.find("/token")
    assert token.form["grant_type"] == "client_credentials"
    assert token.form["scope"] == "mcp:read"
    assert token.form["resource"] == server.mcp_url
    assert token.headers["authorization"].startswith("Basic ")
    assert not server.find("/authorize")


def test_client_credentials_with_private_key_jwt_signs_an_assertion_for_the_issuer(
    auth_server: Callable[..., AuthServer],
    http_client: httpx.Client,
    make_session: Callable[..., McpOAuthSession],
) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    server = auth_server(
        token_auth_methods=["private_key_jwt"], jwt_public_keys={"machine": key.public_key()}
    )
    settings = McpOAuthClientSettings(
        client_id="machine", private_key_pem=pem, grant_type="client_credentials"
    )
    session = make_session(server, settings=settings, redirect_handler=None)
    assert call_mcp(session, http_client, server.mcp_url, "tools/list").status_code == 200
    (token,) = server.find("/token")
    assert token.form["client_assertion_type"].endswith(":jwt-bearer")
    assert "client_secret" not in token.form
