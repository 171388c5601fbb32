"""No token, secret or authorization code reaches an error message, a repr or a log line."""

from __future__ import annotations

import logging
from collections.abc import Callable

import httpx
import pytest
from mcpstream.oauth import (
    McpOAuthClientSettings,
    McpOAuthReLoginRequired,
    McpOAuthSession,
    McpOAuthTokenExchangeError,
)
from mcpstream.oauth_store import McpOAuthMemoryTokenStore

from .auth_server import AuthServer
from .conftest import call_mcp


def _secrets_of(server: AuthServer) -> list[str]:
    values = list(server.access_tokens) + list(server.refresh_tokens)
    values += list(server.used_refresh_tokens)
    values += [secret for secret, _ in server.clients.values() if secret]
    values += [r.form["code"] for r in server.find("/token") if "code" in r.form]
    values += [r.form["code_verifier"] for r in server.find("/token") if "code_verifier" in r.form]
    return values


def test_a_whole_login_refresh_and_failure_logs_no_secret(
    auth_server: Callable[..., AuthServer],
    http_client: httpx.Client,
    make_session: Callable[..., McpOAuthSession],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    server = auth_server(
        token_auth_methods=["client_secret_basic"],
        access_token_lifetime_s=10,
        token_error_description_echo=True,
    )
    store = McpOAuthMemoryTokenStore()
    session = make_session(server, store=store)
    call_mcp(session, http_client, server.mcp_url, "a")
    call_mcp(session, http_client, server.mcp_url, "b")  # refreshes before expiry
    record = store.load("srv")
    assert record is not None
    # Now the server rejects the refresh and echoes the refresh token in its description.
    server.config.reject_refresh = True
    passive = make_session(server, store=store, redirect_handler=None)
    with pytest.raises(McpOAuthReLoginRequired) as caught:
        call_mcp(passive, http_client, server.mcp_url, "c")
    cause = caught.value.__cause__
    assert isinstance(cause, McpOAuthTokenExchangeError)
    assert "<redacted>" in str(cause)
    secrets = _secrets_of(server)
    assert len(secrets) >= 6
    texts = [str(caught.value), str(cause), repr(record), repr(record.client_registration)]
    # httpcore's own DEBUG trace prints response headers (a Location carries the code); that
    # is the HTTP library's business. mcpstream's loggers must print none.
    ours = [r for r in caplog.records if r.name.startswith("mcpstream")]
    assert ours
    texts += [r.getMessage() for r in ours]
    texts += [repr(session.discovery)]
    for secret in secrets:
        for text in texts:
            assert secret not in text


def test_settings_repr_hides_the_client_secret_and_private_key() -> None:
    settings = McpOAuthClientSettings(
        client_id="id", client_secret="very-secret", private_key_pem="-----BEGIN KEY-----"
    )
    assert "very-secret" not in repr(settings)
    assert "BEGIN KEY" not in repr(settings)


def test_a_default_server_id_never_keeps_the_urls_query_string() -> None:
    from mcpstream.oauth import default_server_id

    server_id = default_server_id("https://MCP.example.com:443/mcp/?api_key=s3cr3t#frag")
    assert server_id == "https://mcp.example.com/mcp"
    assert "s3cr3t" not in server_id
