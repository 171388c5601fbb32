"""Discovery against a real loopback server: the order of the URLs tried, the 2025-03-26
fallbacks, and the refusals (issuer or resource mismatch, no S256)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest
from mcpstream.oauth import (
    McpOAuthDiscoveryError,
    McpOAuthPkceNotSupportedError,
    discover_authorization_server_metadata,
    discover_oauth,
)

from .auth_server import AuthServer
from .conftest import call_mcp

Start = Callable[..., AuthServer]


def _challenge(server: AuthServer, client: httpx.Client) -> str:
    response = client.post(server.mcp_url, json={"jsonrpc": "2.0", "id": 1, "method": "x"})
    assert response.status_code == 401
    return response.headers["WWW-Authenticate"]


def test_the_challenges_resource_metadata_url_is_used_and_nothing_else(
    auth_server: Start, http_client: httpx.Client
) -> None:
    server = auth_server(prm_path="/custom/metadata.json", prm_in_challenge=True)
    challenge = _challenge(server, http_client)
    server.requests.clear()
    discovery = discover_oauth(
        server_id="srv",
        resource_server_url=server.mcp_url,
        www_authenticate=challenge,
        client=http_client,
    )
    assert server.paths("GET")[0] == "/custom/metadata.json"
    assert not any("oauth-protected-resource" in path for path in server.paths())
    assert discovery.metadata.issuer == server.issuer
    assert discovery.resource == server.mcp_url


def test_without_a_challenge_url_the_path_inserted_metadata_is_tried_before_the_root(
    auth_server: Start, http_client: httpx.Client
) -> None:
    server = auth_server(
        prm_path="/.well-known/oauth-protected-resource", prm_in_challenge=False, prm_resource=None
    )
    server.config.prm_resource = server.url
    discovery = discover_oauth(
        server_id="srv", resource_server_url=server.mcp_url, client=http_client
    )
    assert server.paths("GET")[:2] == [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ]
    # The metadata names a parent of the MCP URL: tokens are bound to what it declared.
    assert discovery.resource == server.url


def test_an_issuer_with_a_path_is_looked_up_in_spec_order_and_never_at_the_root(
    auth_server: Start, http_client: httpx.Client
) -> None:
    server = auth_server(as_prefix="/tenant1", metadata_style="openid-appended")
    metadata = discover_authorization_server_metadata(
        server_id="srv", resource_server_url=server.mcp_url, client=http_client
    )
    assert metadata.issuer == f"{server.url}/tenant1"
    assert [p for p in server.paths("GET") if "oauth-protected" not in p] == [
        "/.well-known/oauth-authorization-server/tenant1",
        "/.well-known/openid-configuration/tenant1",
        "/tenant1/.well-known/openid-configuration",
    ]


def test_an_issuer_without_a_path_falls_back_from_oauth_to_openid_configuration(
    auth_server: Start, http_client: httpx.Client
) -> None:
    server = auth_server(metadata_style="openid")
    discover_oauth(server_id="srv", resource_server_url=server.mcp_url, client=http_client)
    assert [p for p in server.paths("GET") if "oauth-protected" not in p] == [
        "/.well-known/oauth-authorization-server",
        "/.well-known/openid-configuration",
    ]


def test_a_2025_03_26_server_has_its_metadata_read_at_its_origin(
    auth_server: Start, http_client: httpx.Client
) -> None:
    server = auth_server(prm_path=None, as_prefix="/oauth", metadata_at_origin=True)
    discovery = discover_oauth(
        server_id="srv", resource_server_url=server.mcp_url, client=http_client
    )
    assert discovery.is_legacy
    assert discovery.metadata.token_endpoint == f"{server.url}/oauth/token"
    assert "/.well-known/oauth-authorization-server" in server.paths("GET")


def test_a_2025_03_26_server_without_metadata_gets_the_default_endpoints(
    auth_server: Start, http_client: httpx.Client, make_session: Callable[..., object]
) -> None:
    server = auth_server(prm_path=None, metadata_style=None)
    discovery = discover_oauth(
        server_id="srv", resource_server_url=server.mcp_url, client=http_client
    )
    assert discovery.metadata.is_fallback
    assert discovery.metadata.authorization_endpoint == f"{server.url}/authorize"
    assert discovery.metadata.token_endpoint == f"{server.url}/token"
    assert discovery.metadata.registration_endpoint == f"{server.url}/register"
    # And the whole flow works there: register, authorize with PKCE, exchange.
    session = make_session(server)
    response = call_mcp(session, http_client, server.mcp_url, "tools/list")  # type: ignore[arg-type]
    assert response.status_code == 200
    assert {"/register", "/authorize", "/token"} <= set(server.paths())


@pytest.mark.parametrize(
    ("server_options", "refusal"),
    [
        # Metadata naming another issuer than the URL it was found for.
        ({"issuer_override": "https://elsewhere.example.com"}, "names issuer"),
        # Protected resource metadata for another resource.
        ({"prm_resource": "https://evil.example.com/mcp"}, "is for resource"),
        # No authorization server metadata: the error names the URLs tried.
        ({"metadata_style": None}, "openid-configuration"),
    ],
    ids=["another-issuer", "another-resource", "no-metadata-names-the-urls-tried"],
)
def test_discovery_refuses_metadata_that_does_not_fit(
    auth_server: Start, http_client: httpx.Client, server_options: dict[str, Any], refusal: str
) -> None:
    server = auth_server(**server_options)
    with pytest.raises(McpOAuthDiscoveryError, match=refusal):
        discover_oauth(server_id="srv", resource_server_url=server.mcp_url, client=http_client)


@pytest.mark.parametrize("methods", [None, ["plain"]])
def test_metadata_without_s256_is_refused_before_any_authorization_request(
    auth_server: Start,
    http_client: httpx.Client,
    make_session: Callable[..., object],
    methods: list[str] | None,
) -> None:
    server = auth_server(code_challenge_methods=methods)
    session = make_session(server)
    with pytest.raises(McpOAuthPkceNotSupportedError, match="S256"):
        call_mcp(session, http_client, server.mcp_url, "initialize")  # type: ignore[arg-type]
    assert not server.find("/authorize")
    assert not server.find("/register")


def test_an_unreachable_server_is_a_discovery_error() -> None:
    with pytest.raises(McpOAuthDiscoveryError, match="could not fetch"):
        discover_oauth(server_id="srv", resource_server_url="http://127.0.0.1:9/mcp", timeout_s=2)
