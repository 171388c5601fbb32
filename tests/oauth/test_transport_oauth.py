"""OAuth wired into the sync transport, end to end: ``McpHttpTransport`` for a server with
``oauth`` settings, against the loopback authorization server and a real MCP server (the
official SDK's) that trusts its tokens.

Covered: the login on the first 401, the bearer on every POST, on the GET stream, on resumption
GETs and on the DELETE at close; refresh before expiry; a 401 refreshed and replayed once; a
``tools/call`` 401 refreshed but never replayed; 403 ``insufficient_scope`` step-up with its
limit; the errors without credentials, which name ``mcpstream auth login``; OAuth errors reach
the caller as they are; no secret in any error, log line or repr.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcpstream._http.core import McpHttpProtocol, ReconnectPolicy
from mcpstream.errors import McpHttpTransportAuthRequiredError, McpHttpTransportError
from mcpstream.models import McpOAuthConfig, ResolvedMcpServer
from mcpstream.oauth import (
    HeadlessRedirectHandler,
    McpOAuthAuthRequiredError,
    McpOAuthError,
    McpOAuthInsufficientScopeError,
    McpOAuthReLoginRequired,
    login,
)
from mcpstream.oauth_store import McpOAuthMemoryTokenStore, McpOAuthTokenStore
from mcpstream.transport_http import McpHttpTransport
from transport.helpers import ScriptedHandler, call_tool, initialize, tool_text

from .auth_server import AuthServer, wait_until
from .protected_mcp import ProtectedMcpServer, secrets_of

Protected = Callable[..., tuple[AuthServer, ProtectedMcpServer]]
FAST_RECONNECT = ReconnectPolicy(initial_delay_s=0.05, max_delay_s=0.1)


def grants(auth: AuthServer, grant_type: str) -> int:
    """How many token requests of ``grant_type`` the authorization server got."""
    return sum(1 for r in auth.find("/token") if r.form.get("grant_type") == grant_type)


def bearer(store: McpOAuthTokenStore) -> str:
    """The Authorization value of the stored record of server ``srv``."""
    record = store.load("srv")
    assert record is not None
    return f"Bearer {record.access_token}"


@pytest.fixture
def make(
    http_client: httpx.Client, tmp_path: Path
) -> Iterator[Callable[..., tuple[McpHttpTransport, McpOAuthMemoryTokenStore]]]:
    """``make(url, **options)``: a transport for server ``srv`` with OAuth settings (``oauth``,
    default: none configured, so dynamic registration), a memory store and a headless redirect
    handler (``can_login=False``: none). Closed after the test."""
    made: list[McpHttpTransport] = []

    def build(
        url: str,
        *,
        oauth: McpOAuthConfig | None = None,
        can_login: bool = True,
        store: McpOAuthMemoryTokenStore | None = None,
        **options: Any,
    ) -> tuple[McpHttpTransport, McpOAuthMemoryTokenStore]:
        store = store if store is not None else McpOAuthMemoryTokenStore()
        server = ResolvedMcpServer(
            id="srv", url=url, oauth=oauth or McpOAuthConfig(), call_timeout_s=10
        )
        handler = HeadlessRedirectHandler(client=http_client) if can_login else None
        transport = McpHttpTransport(
            server=server,
            workspace_root=tmp_path,
            oauth_store=store,
            oauth_redirect_handler=handler,
            **options,
        )
        made.append(transport)
        return transport, store

    yield build
    for transport in made:
        transport.close()


Ready = tuple[AuthServer, ProtectedMcpServer, McpHttpTransport, McpOAuthMemoryTokenStore]


@pytest.fixture
def ready(protected_mcp: Protected, make: Any) -> Ready:
    """``(auth, mcp, transport, store)``: the default servers and a transport (no GET stream)
    that has logged in and initialized."""
    auth, mcp = protected_mcp()
    transport, store = make(mcp.url, listen=False)
    initialize(transport)
    return auth, mcp, transport, store


def test_the_first_401_logs_in_and_every_request_carries_the_bearer(
    protected_mcp: Protected, make: Any
) -> None:
    auth, mcp = protected_mcp(challenge_scope="mcp:basic")
    handler = ScriptedHandler({"ping": {}})
    transport, store = make(mcp.url, server_request_handler=handler)
    initialize(transport)
    wait_until(lambda: transport.listening)
    assert tool_text(call_tool(transport, "poke")) == "poked"
    wait_until(
        lambda: any(
            n.method == "notifications/tools/list_changed" for n in transport.drain_notifications()
        )
    )
    transport.close()

    gate = mcp.gate
    assert [method for method, _, _ in handler.calls] == ["ping"]  # asked on the GET stream
    assert gate.statuses("POST", "initialize") == [401, 200]
    assert [r.path for r in auth.requests if r.method == "POST"][:1] == ["/register"]
    assert auth.find("/authorize")[0].query["scope"] == "mcp:basic"
    token = bearer(store)
    assert gate.records[0].authorization is None
    assert {r.authorization for r in gate.records[1:]} == {token}
    assert gate.statuses("GET")[0] == 200
    assert gate.statuses("DELETE") == [200]


def test_resumption_gets_carry_the_bearer(ready: Ready) -> None:
    _, mcp, transport, store = ready
    assert tool_text(call_tool(transport, "resumable")) == "resumed"
    resumed = [r for r in mcp.gate.records if r.http_method == "GET" and r.last_event_id]
    assert resumed
    assert {r.authorization for r in resumed} == {bearer(store)}
    assert {r.status for r in resumed} == {200}


def test_a_token_about_to_expire_is_refreshed_before_the_request(ready: Ready) -> None:
    auth, mcp, transport, store = ready
    record = store.load("srv")
    assert record is not None
    store.save("srv", record.with_changes(expires_at=time.time() + 5))
    response = transport.request(method="tools/list", params=None, timeout_s=10)
    assert response.error is None
    assert grants(auth, "refresh_token") == 1
    assert mcp.gate.statuses("POST", "tools/list") == [200]
    assert mcp.gate.records[-1].authorization == bearer(store) != f"Bearer {record.access_token}"


def test_a_401_refreshes_and_replays_the_request_once(ready: Ready) -> None:
    auth, mcp, transport, store = ready
    mcp.gate.revoke(bearer(store))
    assert transport.request(method="tools/list", params=None, timeout_s=10).error is None
    assert mcp.gate.statuses("POST", "tools/list") == [401, 200]
    assert grants(auth, "refresh_token") == 1

    # A second 401 after the replay: no more replays, the record is cleared, log in again.
    mcp.gate.always_unauthorized.add("tools/list")
    with pytest.raises(McpOAuthReLoginRequired, match="mcpstream auth login"):
        transport.request(method="tools/list", params=None, timeout_s=10)
    assert mcp.gate.statuses("POST", "tools/list") == [401, 200, 401, 401]
    assert store.load("srv") is None


def test_a_tools_call_401_refreshes_but_is_never_replayed(ready: Ready) -> None:
    auth, mcp, transport, store = ready
    revoked = bearer(store)
    mcp.gate.revoke(revoked)
    with pytest.raises(McpOAuthAuthRequiredError) as raised:
        call_tool(transport, "echo", {"text": "once"})
    assert type(raised.value) is McpOAuthAuthRequiredError
    assert "Retry" in str(raised.value) and "side effects" in str(raised.value)
    assert mcp.gate.statuses("POST", "tools/call") == [401]
    assert grants(auth, "refresh_token") == 1
    assert bearer(store) != revoked
    # The caller's own retry goes through with the renewed credentials.
    assert tool_text(call_tool(transport, "echo", {"text": "once"})) == "once"
    assert mcp.gate.statuses("POST", "tools/call") == [401, 200]


def test_insufficient_scope_steps_up_and_replays(protected_mcp: Protected, make: Any) -> None:
    auth, mcp = protected_mcp(
        challenge_scope="mcp:basic", required_scopes={"tools/call": ["mcp:basic", "mcp:write"]}
    )
    transport, _ = make(mcp.url, listen=False)
    initialize(transport)
    assert tool_text(call_tool(transport, "echo", {"text": "up"})) == "up"
    assert mcp.gate.statuses("POST", "tools/call") == [403, 200]
    scopes = [set(r.query["scope"].split()) for r in auth.find("/authorize")]
    assert scopes == [{"mcp:basic"}, {"mcp:basic", "mcp:write"}]


def test_step_up_gives_up_after_its_limit(protected_mcp: Protected, make: Any) -> None:
    auth, mcp = protected_mcp(
        required_scopes={"tools/call": ["mcp:admin"]}, withheld_scopes=["mcp:admin"]
    )
    transport, _ = make(mcp.url, listen=False)
    initialize(transport)
    with pytest.raises(McpOAuthInsufficientScopeError) as raised:
        call_tool(transport, "echo", {"text": "never"})
    assert not isinstance(raised.value, McpHttpTransportError)
    assert raised.value.required_scopes == ("mcp:admin",)
    assert mcp.gate.statuses("POST", "tools/call") == [403, 403, 403]
    assert len(auth.find("/authorize")) == 3  # the login and two step-ups


def test_without_credentials_the_error_names_mcpstream_auth_login(
    protected_mcp: Protected, make: Any
) -> None:
    _, mcp = protected_mcp()
    transport, _ = make(mcp.url, can_login=False)
    with pytest.raises(McpOAuthAuthRequiredError) as raised:
        initialize(transport)
    assert f"mcpstream auth login {mcp.url} --server-id srv" in str(raised.value)
    assert raised.value.server_id == "srv"
    assert mcp.gate.records == []  # refused before sending anything


def test_a_server_without_oauth_settings_points_at_mcpstream_auth_login(
    protected_mcp: Protected, tmp_path: Path
) -> None:
    _, mcp = protected_mcp()
    transport = McpHttpTransport(
        server=ResolvedMcpServer(id="plain", url=mcp.url), workspace_root=tmp_path
    )
    with transport, pytest.raises(McpHttpTransportAuthRequiredError) as raised:
        initialize(transport)
    assert f"mcpstream auth login {mcp.url} --server-id plain" in str(raised.value)


def test_the_get_stream_renews_a_rejected_token_and_reconnects(
    protected_mcp: Protected, make: Any
) -> None:
    auth, mcp = protected_mcp()
    transport, store = make(mcp.url, reconnect_policy=FAST_RECONNECT)
    mcp.gate.revoke_on_get = 1
    initialize(transport)
    wait_until(lambda: transport.listening)
    gets = [r for r in mcp.gate.records if r.http_method == "GET"]
    assert [r.status for r in gets] == [401, 200]
    assert gets[0].authorization != gets[1].authorization == bearer(store)
    assert grants(auth, "refresh_token") == 1


def test_stored_credentials_from_a_login_are_used_from_the_token_store_file(
    protected_mcp: Protected, http_client: httpx.Client, tmp_path: Path, config_dir: Path
) -> None:
    auth, mcp = protected_mcp()
    login(
        server_url=mcp.url,
        server_id="srv",
        redirect_handler=HeadlessRedirectHandler(client=http_client),
        client=http_client,
    )
    server = ResolvedMcpServer(id="srv", url=mcp.url, oauth=McpOAuthConfig())
    with McpHttpTransport(server=server, workspace_root=tmp_path, listen=False) as transport:
        initialize(transport)
    assert mcp.gate.statuses("POST", "initialize")[-1] == 200
    assert len(auth.find("/authorize")) == 1  # the login's; the transport needed none
    assert any(config_dir.iterdir())


def test_a_machine_client_uses_client_credentials_with_a_pre_registered_secret(
    protected_mcp: Protected, make: Any
) -> None:
    auth, mcp = protected_mcp(
        pre_registered={"machine": "m-s3cret"}, token_auth_methods=["client_secret_basic"]
    )
    oauth = McpOAuthConfig(
        client_id="machine", client_secret="m-s3cret", grant_type="client_credentials"
    )
    transport, _ = make(mcp.url, oauth=oauth, can_login=False, listen=False)
    initialize(transport)
    assert grants(auth, "client_credentials") == 1
    assert auth.find("/authorize") == []
    token_request = auth.find("/token")[0]
    assert token_request.headers["authorization"].startswith("Basic ")
    assert "client_secret" not in token_request.form
    assert "m-s3cret" not in repr(oauth) and "m-s3cret" not in repr(transport.server)


def test_no_secret_reaches_an_error_a_log_line_or_a_repr(
    protected_mcp: Protected, make: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    auth, mcp = protected_mcp(
        challenge_scope="mcp:basic",
        required_scopes={"tools/call": ["mcp:admin"]},
        withheld_scopes=["mcp:admin"],
    )
    transport, store = make(mcp.url, reconnect_policy=FAST_RECONNECT)
    mcp.gate.revoke_on_get = 1
    errors: list[BaseException] = []
    initialize(transport)
    wait_until(lambda: transport.listening)
    for method in ("tools/call", "tools/list"):
        with pytest.raises(McpOAuthError) as raised:
            transport.request(method=method, params={"name": "echo"}, timeout_s=10)
        errors.append(raised.value)
        mcp.gate.always_unauthorized.add("tools/list")
    transport.close()
    fresh, _ = make(mcp.url, can_login=False)
    with pytest.raises(McpOAuthError) as raised:
        initialize(fresh)
    errors.append(raised.value)

    # mcpstream's own log lines (httpcore's debug trace prints response headers as they are).
    ours = [r.getMessage() for r in caplog.records if r.name.startswith("mcpstream")]
    assert any("GET stream" in line for line in ours)  # the renewal of the GET stream, at least
    texts = [*ours, repr(transport), repr(transport.server), repr(store.load("srv"))]
    for error in errors:
        while error is not None:
            texts += [str(error), repr(error)]
            error = error.__cause__ or error.__context__  # type: ignore[assignment]
    secrets = secrets_of(auth, mcp.gate)
    assert len(secrets) >= 6
    leaked = {secret for secret in secrets for text in texts if secret in text}
    assert not leaked


def test_the_oauth_config_keeps_the_reference_keywords_and_hides_its_secrets() -> None:
    config = McpOAuthConfig("client", ["a", "b"], "https://as.example")  # type: ignore[arg-type]
    assert (config.client_id, config.scopes, config.authorization_server_url) == (
        "client",
        ("a", "b"),
        "https://as.example",
    )
    assert McpOAuthConfig().client_id is None
    secret = McpOAuthConfig(client_secret="s3cret", private_key_pem="-----BEGIN PRIVATE KEY")
    assert "s3cret" not in repr(secret) and "PRIVATE" not in repr(secret)
    with pytest.raises(ValueError, match="grant_type"):
        McpOAuthConfig(grant_type="password")
    with pytest.raises(ValueError, match="token_endpoint_auth_method"):
        McpOAuthConfig(token_endpoint_auth_method="tls_client_auth")


def test_oauth_credentials_replace_a_static_authorization_header() -> None:
    server = ResolvedMcpServer(
        id="s", url="http://127.0.0.1:1/mcp", headers={"authorization": "Bearer static"}
    )
    protocol = McpHttpProtocol(server, max_event_bytes=None, reconnect_policy=ReconnectPolicy())
    headers = protocol.post_headers(authorization="Bearer oauth")
    assert [v for k, v in headers.items() if k.lower() == "authorization"] == ["Bearer oauth"]
    assert protocol.post_headers()["authorization"] == "Bearer static"
