"""Protected resource metadata (RFC 9728) and authorization server metadata (RFC 8414 and
OpenID Connect Discovery), parsed into frozen dataclasses."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .policy import check_oauth_url

__all__ = ["McpAuthorizationServerMetadata", "McpProtectedResourceMetadata"]


def _str(data: Mapping[str, Any], key: str, *, required: bool = False) -> str | None:
    value = data.get(key)
    if value is None:
        if required:
            raise ValueError(f"{key!r} is missing")
        return None
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{key!r} is not a non-empty string")
    return value.strip()


def _url(data: Mapping[str, Any], key: str, *, required: bool = False) -> str | None:
    """A URL field, held to the OAuth URL policy (https, or http to a loopback host)."""
    value = _str(data, key, required=required)
    return None if value is None else check_oauth_url(value, repr(key))


def _str_tuple(data: Mapping[str, Any], key: str) -> tuple[str, ...] | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"{key!r} is not a list of strings")
    return tuple(value)


def _bool(data: Mapping[str, Any], key: str) -> bool:
    value = data.get(key)
    return value is True


@dataclass(frozen=True)
class McpProtectedResourceMetadata:
    """What an MCP server says about itself as an OAuth protected resource."""

    resource: str | None
    authorization_servers: tuple[str, ...]
    scopes_supported: tuple[str, ...] | None = None
    bearer_methods_supported: tuple[str, ...] | None = None
    resource_name: str | None = None
    metadata_url: str | None = None
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @classmethod
    def from_json(
        cls, data: Any, *, metadata_url: str | None = None
    ) -> McpProtectedResourceMetadata:
        """Parse a metadata document; raises ``ValueError`` when it is not one MCP can use
        (MCP requires ``authorization_servers``)."""
        if not isinstance(data, dict):
            raise ValueError("the document is not a JSON object")
        servers = _str_tuple(data, "authorization_servers")
        if not servers:
            raise ValueError("'authorization_servers' is missing or empty")
        for server in servers:
            check_oauth_url(server, "authorization server")
        return cls(
            resource=_str(data, "resource"),
            authorization_servers=servers,
            scopes_supported=_str_tuple(data, "scopes_supported"),
            bearer_methods_supported=_str_tuple(data, "bearer_methods_supported"),
            resource_name=_str(data, "resource_name"),
            metadata_url=metadata_url,
            raw=MappingProxyType(dict(data)),
        )


@dataclass(frozen=True)
class McpAuthorizationServerMetadata:
    """An authorization server's endpoints and capabilities.

    ``is_fallback`` marks the 2025-03-26 default endpoints (``/authorize``, ``/token``,
    ``/register`` at the authorization base URL) used when no metadata document exists; then
    ``metadata_url`` is ``None`` and ``code_challenge_methods_supported`` unknown.
    """

    issuer: str
    token_endpoint: str
    authorization_endpoint: str | None = None
    registration_endpoint: str | None = None
    revocation_endpoint: str | None = None
    scopes_supported: tuple[str, ...] | None = None
    response_types_supported: tuple[str, ...] | None = None
    grant_types_supported: tuple[str, ...] | None = None
    code_challenge_methods_supported: tuple[str, ...] | None = None
    token_endpoint_auth_methods_supported: tuple[str, ...] | None = None
    token_endpoint_auth_signing_alg_values_supported: tuple[str, ...] | None = None
    client_id_metadata_document_supported: bool = False
    authorization_response_iss_parameter_supported: bool = False
    metadata_url: str | None = None
    is_fallback: bool = False
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @classmethod
    def from_json(
        cls, data: Any, *, metadata_url: str | None = None
    ) -> McpAuthorizationServerMetadata:
        """Parse a metadata document; raises ``ValueError`` when ``issuer`` or
        ``token_endpoint`` is missing, a field has the wrong type, or a URL breaks the OAuth
        URL policy (:mod:`.policy`)."""
        if not isinstance(data, dict):
            raise ValueError("the document is not a JSON object")
        issuer = _url(data, "issuer", required=True)
        token_endpoint = _url(data, "token_endpoint", required=True)
        assert issuer is not None and token_endpoint is not None
        return cls(
            issuer=issuer,
            token_endpoint=token_endpoint,
            authorization_endpoint=_url(data, "authorization_endpoint"),
            registration_endpoint=_url(data, "registration_endpoint"),
            revocation_endpoint=_url(data, "revocation_endpoint"),
            scopes_supported=_str_tuple(data, "scopes_supported"),
            response_types_supported=_str_tuple(data, "response_types_supported"),
            grant_types_supported=_str_tuple(data, "grant_types_supported"),
            code_challenge_methods_supported=_str_tuple(data, "code_challenge_methods_supported"),
            token_endpoint_auth_methods_supported=_str_tuple(
                data, "token_endpoint_auth_methods_supported"
            ),
            token_endpoint_auth_signing_alg_values_supported=_str_tuple(
                data, "token_endpoint_auth_signing_alg_values_supported"
            ),
            client_id_metadata_document_supported=_bool(
                data, "client_id_metadata_document_supported"
            ),
            authorization_response_iss_parameter_supported=_bool(
                data, "authorization_response_iss_parameter_supported"
            ),
            metadata_url=metadata_url,
            raw=MappingProxyType(dict(data)),
        )

    @classmethod
    def fallback(cls, base_url: str) -> McpAuthorizationServerMetadata:
        """The 2025-03-26 default endpoints under ``base_url`` (the server's origin)."""
        base = base_url.rstrip("/")
        return cls(
            issuer=base,
            token_endpoint=f"{base}/token",
            authorization_endpoint=f"{base}/authorize",
            registration_endpoint=f"{base}/register",
            is_fallback=True,
        )

    @property
    def supports_pkce_s256(self) -> bool:
        """Whether ``S256`` is listed in ``code_challenge_methods_supported``."""
        return "S256" in (self.code_challenge_methods_supported or ())
