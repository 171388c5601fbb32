"""URL rules of MCP authorization: the canonical resource URI (RFC 8707) and the well-known
metadata URLs, in the order the MCP specification (2025-11-25) gives."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from .._text import sanitize
from ..redaction import url_without_secrets

__all__ = [
    "authorization_server_metadata_urls",
    "canonical_resource_uri",
    "protected_resource_metadata_urls",
    "resource_covers",
    "safe_url",
    "same_issuer",
    "url_origin",
]

_DEFAULT_PORTS = {"http": 80, "https": 443}


def safe_url(url: str) -> str:
    """``url`` without userinfo, query or fragment, control characters escaped and cut to 300
    characters: fit for messages and logs."""
    return sanitize(url_without_secrets(url), 300)


def _netloc(scheme: str, host: str, port: int | None) -> str:
    if ":" in host:
        host = f"[{host}]"
    if port is None or _DEFAULT_PORTS.get(scheme) == port:
        return host
    return f"{host}:{port}"


def canonical_resource_uri(url: str) -> str:
    """The canonical URI of an MCP server, for the ``resource`` parameter.

    Lower-case scheme and host, no default port, no userinfo, no fragment, and no trailing
    slash (the MCP specification prefers the form without one); path and query are kept.
    Raises ``ValueError`` for a URL that is not absolute http(s).
    """
    split = urlsplit(url.strip())
    scheme = split.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not split.hostname:
        raise ValueError("the MCP server URL must be an absolute http:// or https:// URL")
    path = split.path.rstrip("/")
    return urlunsplit(
        (scheme, _netloc(scheme, split.hostname.lower(), split.port), path, split.query, "")
    )


def url_origin(url: str) -> str:
    """``scheme://host[:port]`` of ``url`` (its authorization base URL in the 2025-03-26 rules)."""
    split = urlsplit(url)
    scheme = split.scheme.lower()
    return urlunsplit(
        (scheme, _netloc(scheme, (split.hostname or "").lower(), split.port), "", "", "")
    )


def protected_resource_metadata_urls(server_url: str) -> list[str]:
    """RFC 9728 well-known URLs for ``server_url``: path-inserted first (when the server URL has
    a path), then the root."""
    origin = url_origin(server_url)
    path = urlsplit(server_url).path.rstrip("/")
    urls = [f"{origin}/.well-known/oauth-protected-resource{path}"] if path else []
    urls.append(f"{origin}/.well-known/oauth-protected-resource")
    return urls


def authorization_server_metadata_urls(issuer_url: str) -> list[str]:
    """Where to look for an authorization server's metadata, in the specification's order.

    With a path (``https://auth.example.com/tenant1``): RFC 8414 path-inserted, OpenID
    Connect path-inserted, OpenID Connect path-appended. Without one: RFC 8414, then OpenID
    Connect, both at the root.
    """
    origin = url_origin(issuer_url)
    path = urlsplit(issuer_url).path.rstrip("/")
    if path:
        return [
            f"{origin}/.well-known/oauth-authorization-server{path}",
            f"{origin}/.well-known/openid-configuration{path}",
            f"{origin}{path}/.well-known/openid-configuration",
        ]
    return [
        f"{origin}/.well-known/oauth-authorization-server",
        f"{origin}/.well-known/openid-configuration",
    ]


def resource_covers(resource: str, server_url: str) -> bool:
    """Whether the protected resource ``resource`` (from its metadata) covers ``server_url``:
    same origin, and its path equal to or a parent (segment-wise) of the server's path."""
    try:
        declared = urlsplit(canonical_resource_uri(resource))
        actual = urlsplit(canonical_resource_uri(server_url))
    except ValueError:
        return False
    if (declared.scheme, declared.netloc) != (actual.scheme, actual.netloc):
        return False
    declared_path = declared.path.rstrip("/")
    actual_path = actual.path.rstrip("/")
    return actual_path == declared_path or actual_path.startswith(declared_path + "/")


def same_issuer(left: str, right: str) -> bool:
    """Whether two issuer identifiers are the same: simple string comparison (RFC 3986 section
    6.2.1), as RFC 8414 section 3.3 asks of the metadata ``issuer`` and RFC 9207 of the
    authorization response's ``iss``. No case folding, default-port elision, trailing-slash or
    percent-encoding normalization: ``https://as.example`` and ``https://as.example/`` are two
    issuers (the MCP specification, 2026-07-28, forbids normalizing them into one)."""
    return left == right
