"""Finding the authorization server of an MCP server.

1. Protected resource metadata (RFC 9728): the ``resource_metadata`` URL of the 401 challenge
   when there is one (and only it); else the well-known URLs, path-inserted then root.
2. The authorization server: the configured one, else the first of the metadata's
   ``authorization_servers``. Its metadata (RFC 8414 / OpenID Connect Discovery) is looked for at
   the URLs of :func:`~mcpstream.oauth.urls.authorization_server_metadata_urls`, in order, and
   its ``issuer`` must be, as an exact string, the issuer those URLs were built from (RFC 8414
   section 3.3): a document naming another is not used.
3. No protected resource metadata at all means a 2025-03-26 server: the authorization base URL
   is the server's origin, its metadata is looked for there (and its ``issuer`` must be at that
   origin), and when there is none the default endpoints ``/authorize``, ``/token`` and
   ``/register`` are used.

Every URL the documents name is held to the OAuth URL policy (:mod:`.policy`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import httpx

from ..errors import McpOAuthDiscoveryError, McpOAuthPkceNotSupportedError
from ._flow import Flow, build_request, http_step, response_json, run_async, run_sync
from .challenge import parse_www_authenticate_bearer_challenge
from .metadata import McpAuthorizationServerMetadata, McpProtectedResourceMetadata
from .urls import (
    authorization_server_metadata_urls,
    canonical_resource_uri,
    protected_resource_metadata_urls,
    resource_covers,
    safe_url,
    same_issuer,
    url_origin,
)

__all__ = [
    "McpOAuthDiscovery",
    "adiscover_authorization_server_metadata",
    "adiscover_oauth",
    "discover_authorization_server_metadata",
    "discover_oauth",
    "discovery_flow",
    "ensure_pkce_s256_supported",
]

_log = logging.getLogger("mcpstream.oauth")


@dataclass(frozen=True)
class McpOAuthDiscovery:
    """Everything discovery learned about one MCP server.

    ``resource`` is the value of the ``resource`` parameter: the protected resource metadata's
    ``resource`` exactly as published (it must be the MCP server's URL or a parent of it, or
    discovery fails), else the canonical URI of the MCP server.
    """

    resource: str
    authorization_server_url: str
    metadata: McpAuthorizationServerMetadata
    resource_metadata: McpProtectedResourceMetadata | None = None

    @property
    def is_legacy(self) -> bool:
        """Whether the server follows the 2025-03-26 rules (no protected resource metadata)."""
        return self.resource_metadata is None

    @property
    def scopes_supported(self) -> tuple[str, ...] | None:
        """The protected resource's ``scopes_supported`` (the scope fallback of the spec)."""
        return self.resource_metadata.scopes_supported if self.resource_metadata else None


def _metadata_headers(protocol_version: str | None) -> dict[str, str]:
    return {"MCP-Protocol-Version": protocol_version} if protocol_version else {}


def _fetch_json_document(
    url: str,
    *,
    server_id: str | None,
    timeout_s: float,
    protocol_version: str | None,
    what: str,
) -> Flow[tuple[int, object]]:
    """GET ``url``; returns ``(status, parsed JSON or None)``. Network errors are fatal."""
    request = build_request(
        "GET", url, timeout_s=timeout_s, headers=_metadata_headers(protocol_version)
    )
    response = yield from http_step(
        request,
        lambda error: McpOAuthDiscoveryError(
            f"could not fetch {what} from {safe_url(url)}: {error}", server_id=server_id
        ),
    )
    _log.debug("OAuth discovery: GET %s -> %s", safe_url(url), response.status_code)
    if response.status_code != 200:
        return response.status_code, None
    return 200, response_json(response)


def _protected_resource_metadata_flow(
    *,
    server_id: str | None,
    resource_server_url: str,
    resource_metadata_url: str | None,
    timeout_s: float,
    protocol_version: str | None,
) -> Flow[McpProtectedResourceMetadata | None]:
    candidates = (
        [resource_metadata_url]
        if resource_metadata_url
        else protected_resource_metadata_urls(resource_server_url)
    )
    for url in candidates:
        status, document = yield from _fetch_json_document(
            url,
            server_id=server_id,
            timeout_s=timeout_s,
            protocol_version=protocol_version,
            what="protected resource metadata",
        )
        if status != 200:
            if resource_metadata_url:
                raise McpOAuthDiscoveryError(
                    f"the protected resource metadata named by the server's challenge "
                    f"({safe_url(url)}) answered HTTP {status}",
                    server_id=server_id,
                )
            continue
        try:
            metadata = McpProtectedResourceMetadata.from_json(document, metadata_url=url)
        except ValueError as exc:
            raise McpOAuthDiscoveryError(
                f"invalid protected resource metadata at {safe_url(url)}: {exc}",
                server_id=server_id,
            ) from None
        if metadata.resource is not None and not resource_covers(
            metadata.resource, resource_server_url
        ):
            raise McpOAuthDiscoveryError(
                f"protected resource metadata at {safe_url(url)} is for resource "
                f"{safe_url(metadata.resource)}, not for {safe_url(resource_server_url)}",
                server_id=server_id,
            )
        return metadata
    return None


def _authorization_server_metadata_flow(
    *,
    server_id: str | None,
    authorization_server_url: str,
    timeout_s: float,
    protocol_version: str | None,
    check_issuer: bool,
) -> Flow[McpAuthorizationServerMetadata | None]:
    for url in authorization_server_metadata_urls(authorization_server_url):
        status, document = yield from _fetch_json_document(
            url,
            server_id=server_id,
            timeout_s=timeout_s,
            protocol_version=protocol_version,
            what="authorization server metadata",
        )
        if status != 200:
            continue
        try:
            metadata = McpAuthorizationServerMetadata.from_json(document, metadata_url=url)
        except ValueError as exc:
            raise McpOAuthDiscoveryError(
                f"invalid authorization server metadata at {safe_url(url)}: {exc}",
                server_id=server_id,
                authorization_server_url=safe_url(authorization_server_url),
            ) from None
        if not check_issuer and url_origin(metadata.issuer) != url_origin(authorization_server_url):
            # 2025-03-26 (no protected resource metadata): the authorization server is the MCP
            # server's origin, so metadata found there must name an issuer at that origin.
            raise McpOAuthDiscoveryError(
                f"authorization server metadata at {safe_url(url)} names issuer "
                f"{safe_url(metadata.issuer)}, which is not at the MCP server's origin "
                f"{safe_url(authorization_server_url)} (2025-03-26 rules); not using it",
                server_id=server_id,
                authorization_server_url=safe_url(authorization_server_url),
            )
        if check_issuer and not same_issuer(metadata.issuer, authorization_server_url):
            raise McpOAuthDiscoveryError(
                f"authorization server metadata at {safe_url(url)} names issuer "
                f"{safe_url(metadata.issuer)}, not {safe_url(authorization_server_url)} (the "
                "issuer it was looked up for, compared exactly, RFC 8414); not using it",
                server_id=server_id,
                authorization_server_url=safe_url(authorization_server_url),
            )
        return metadata
    return None


def discovery_flow(
    *,
    server_id: str | None,
    resource_server_url: str,
    www_authenticate: str | None = None,
    authorization_server_url: str | None = None,
    timeout_s: float = 10.0,
    protocol_version: str | None = None,
) -> Flow[McpOAuthDiscovery]:
    """The discovery flow (see the module docstring)."""
    try:
        resource = canonical_resource_uri(resource_server_url)
    except ValueError as exc:
        raise McpOAuthDiscoveryError(str(exc), server_id=server_id) from None
    challenge = parse_www_authenticate_bearer_challenge(www_authenticate)
    resource_metadata = yield from _protected_resource_metadata_flow(
        server_id=server_id,
        resource_server_url=resource_server_url,
        resource_metadata_url=challenge.get("resource_metadata") or None,
        timeout_s=timeout_s,
        protocol_version=protocol_version,
    )
    if resource_metadata is not None:
        declared = resource_metadata.resource
        if declared is not None:
            # Sent exactly as published (RFC 9728 section 3.3): a canonical form that adds or
            # drops a slash names another resource to a strict server. A fragment, which RFC
            # 8707 forbids in ``resource``, is the one thing taken off.
            resource = declared if "#" not in declared else canonical_resource_uri(declared)
        as_url = authorization_server_url or resource_metadata.authorization_servers[0]
        check_issuer = True
    else:
        _log.debug("OAuth discovery: no protected resource metadata; using 2025-03-26 rules")
        as_url = authorization_server_url or url_origin(resource_server_url)
        check_issuer = authorization_server_url is not None
    metadata = yield from _authorization_server_metadata_flow(
        server_id=server_id,
        authorization_server_url=as_url,
        timeout_s=timeout_s,
        protocol_version=protocol_version,
        check_issuer=check_issuer,
    )
    if metadata is None:
        if resource_metadata is not None:
            raise McpOAuthDiscoveryError(
                f"no authorization server metadata found for {safe_url(as_url)} (tried "
                f"{', '.join(safe_url(u) for u in authorization_server_metadata_urls(as_url))})",
                server_id=server_id,
                authorization_server_url=safe_url(as_url),
            )
        _log.debug("OAuth discovery: no metadata; default endpoints under %s", safe_url(as_url))
        metadata = McpAuthorizationServerMetadata.fallback(url_origin(as_url))
    return McpOAuthDiscovery(
        resource=resource,
        authorization_server_url=as_url,
        metadata=metadata,
        resource_metadata=resource_metadata,
    )


def ensure_pkce_s256_supported(
    metadata: McpAuthorizationServerMetadata, *, server_id: str | None = None
) -> None:
    """Refuse an authorization server whose metadata does not list ``S256`` (the MCP
    specification's MUST; the SDKs let it pass, mcpstream does not). The 2025-03-26 default
    endpoints carry no metadata to check, so they pass, and S256 is used all the same."""
    if metadata.is_fallback or metadata.supports_pkce_s256:
        return
    raise McpOAuthPkceNotSupportedError(
        f"authorization server {safe_url(metadata.issuer)} does not list S256 in "
        "code_challenge_methods_supported; MCP requires PKCE with S256, so mcpstream will not "
        "authorize against it",
        server_id=server_id,
        authorization_server_url=safe_url(metadata.issuer),
    )


def _challenge_of(
    unauthorized_response: httpx.Response | None, www_authenticate: str | None
) -> str | None:
    if www_authenticate is not None:
        return www_authenticate
    if unauthorized_response is not None:
        value: str | None = unauthorized_response.headers.get("WWW-Authenticate")
        return value
    return None


def discover_oauth(
    *,
    server_id: str | None,
    resource_server_url: str,
    unauthorized_response: httpx.Response | None = None,
    www_authenticate: str | None = None,
    authorization_server_url: str | None = None,
    timeout_s: float = 10.0,
    client: httpx.Client | None = None,
    protocol_version: str | None = None,
) -> McpOAuthDiscovery:
    """Run discovery with a blocking client; the challenge comes from ``www_authenticate`` or
    from the ``WWW-Authenticate`` header of ``unauthorized_response``."""
    flow = discovery_flow(
        server_id=server_id,
        resource_server_url=resource_server_url,
        www_authenticate=_challenge_of(unauthorized_response, www_authenticate),
        authorization_server_url=authorization_server_url,
        timeout_s=timeout_s,
        protocol_version=protocol_version,
    )
    return run_sync(flow, client)


async def adiscover_oauth(
    *,
    server_id: str | None,
    resource_server_url: str,
    unauthorized_response: httpx.Response | None = None,
    www_authenticate: str | None = None,
    authorization_server_url: str | None = None,
    timeout_s: float = 10.0,
    client: httpx.AsyncClient | None = None,
    protocol_version: str | None = None,
) -> McpOAuthDiscovery:
    """The async form of :func:`discover_oauth`."""
    flow = discovery_flow(
        server_id=server_id,
        resource_server_url=resource_server_url,
        www_authenticate=_challenge_of(unauthorized_response, www_authenticate),
        authorization_server_url=authorization_server_url,
        timeout_s=timeout_s,
        protocol_version=protocol_version,
    )
    return await run_async(flow, client)


def discover_authorization_server_metadata(
    *,
    server_id: str | None,
    resource_server_url: str,
    unauthorized_response: httpx.Response | None = None,
    authorization_server_url: str | None = None,
    timeout_s: float = 10.0,
    client: httpx.Client | None = None,
    www_authenticate: str | None = None,
) -> McpAuthorizationServerMetadata:
    """The authorization server metadata of an MCP server (what the reference transport calls);
    :func:`discover_oauth` returns the whole discovery."""
    return discover_oauth(
        server_id=server_id,
        resource_server_url=resource_server_url,
        unauthorized_response=unauthorized_response,
        www_authenticate=www_authenticate,
        authorization_server_url=authorization_server_url,
        timeout_s=timeout_s,
        client=client,
    ).metadata


async def adiscover_authorization_server_metadata(
    *,
    server_id: str | None,
    resource_server_url: str,
    unauthorized_response: httpx.Response | None = None,
    authorization_server_url: str | None = None,
    timeout_s: float = 10.0,
    client: httpx.AsyncClient | None = None,
    www_authenticate: str | None = None,
) -> McpAuthorizationServerMetadata:
    """The async form of :func:`discover_authorization_server_metadata`."""
    discovery = await adiscover_oauth(
        server_id=server_id,
        resource_server_url=resource_server_url,
        unauthorized_response=unauthorized_response,
        www_authenticate=www_authenticate,
        authorization_server_url=authorization_server_url,
        timeout_s=timeout_s,
        client=client,
    )
    return discovery.metadata
