"""URL rules (canonical resource URI, well-known URL order) and WWW-Authenticate parsing."""

from __future__ import annotations

import pytest
from mcpstream.oauth import canonical_resource_uri, parse_www_authenticate_bearer_challenge
from mcpstream.oauth.challenge import parse_www_authenticate
from mcpstream.oauth.urls import (
    authorization_server_metadata_urls,
    protected_resource_metadata_urls,
    resource_covers,
    safe_url,
)


@pytest.mark.parametrize(
    ("url", "canonical"),
    [
        ("HTTPS://MCP.Example.com:443/mcp/", "https://mcp.example.com/mcp"),
        ("https://mcp.example.com/", "https://mcp.example.com"),
        ("http://127.0.0.1:8080/mcp#frag", "http://127.0.0.1:8080/mcp"),
        ("https://user:pw@mcp.example.com/a?x=1", "https://mcp.example.com/a?x=1"),
    ],
)
def test_canonical_resource_uri_lowercases_drops_default_port_fragment_and_trailing_slash(
    url: str, canonical: str
) -> None:
    assert canonical_resource_uri(url) == canonical


def test_canonical_resource_uri_refuses_a_relative_or_non_http_url() -> None:
    with pytest.raises(ValueError):
        canonical_resource_uri("/mcp")
    with pytest.raises(ValueError):
        canonical_resource_uri("ftp://example.com/mcp")


def test_protected_resource_metadata_urls_are_path_inserted_then_root() -> None:
    assert protected_resource_metadata_urls("https://ex.com/public/mcp") == [
        "https://ex.com/.well-known/oauth-protected-resource/public/mcp",
        "https://ex.com/.well-known/oauth-protected-resource",
    ]
    assert protected_resource_metadata_urls("https://ex.com/") == [
        "https://ex.com/.well-known/oauth-protected-resource"
    ]


def test_metadata_urls_for_an_issuer_with_a_path_follow_the_spec_order_and_skip_the_root() -> None:
    assert authorization_server_metadata_urls("https://auth.ex.com/tenant1") == [
        "https://auth.ex.com/.well-known/oauth-authorization-server/tenant1",
        "https://auth.ex.com/.well-known/openid-configuration/tenant1",
        "https://auth.ex.com/tenant1/.well-known/openid-configuration",
    ]


def test_metadata_urls_for_an_issuer_without_a_path_are_oauth_then_openid_at_the_root() -> None:
    assert authorization_server_metadata_urls("https://auth.ex.com/") == [
        "https://auth.ex.com/.well-known/oauth-authorization-server",
        "https://auth.ex.com/.well-known/openid-configuration",
    ]


def test_a_resource_covers_its_own_url_and_paths_below_it_only() -> None:
    assert resource_covers("https://ex.com/mcp", "https://ex.com/mcp/")
    assert resource_covers("https://ex.com", "https://ex.com/mcp")
    assert not resource_covers("https://ex.com/mc", "https://ex.com/mcp")
    assert not resource_covers("https://evil.example.com/mcp", "https://ex.com/mcp")


def test_safe_url_drops_userinfo_query_and_fragment() -> None:
    assert safe_url("https://u:p@ex.com:8443/a?token=x#f") == "https://ex.com:8443/a"


def test_the_bearer_challenge_is_found_among_several_schemes_with_quoted_escapes() -> None:
    header = (
        'DPoP algs="ES256", Bearer realm="mcp", error="insufficient_scope", '
        'scope="a b", resource_metadata="https://ex.com/.well-known/x", '
        'error_description="needs \\"b\\""'
    )
    params = parse_www_authenticate_bearer_challenge(header)
    assert params == {
        "realm": "mcp",
        "error": "insufficient_scope",
        "scope": "a b",
        "resource_metadata": "https://ex.com/.well-known/x",
        "error_description": 'needs "b"',
    }


def test_parameter_names_are_case_insensitive_and_tokens_need_no_quotes() -> None:
    assert parse_www_authenticate_bearer_challenge("bearer Error=invalid_token") == {
        "error": "invalid_token"
    }


def test_no_bearer_challenge_gives_an_empty_dict() -> None:
    assert parse_www_authenticate_bearer_challenge(None) == {}
    assert parse_www_authenticate_bearer_challenge('Basic realm="x"') == {}
    assert [s for s, _ in parse_www_authenticate('Basic abc==, Bearer scope="s"')] == [
        "basic",
        "bearer",
    ]
