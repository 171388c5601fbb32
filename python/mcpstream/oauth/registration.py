"""Client registration, in the MCP specification's priority order:

1. pre-registered credentials (``client_id`` in the settings);
2. a Client ID Metadata Document, when the server advertises
   ``client_id_metadata_document_supported`` and the settings name the document's URL;
3. dynamic client registration (RFC 7591) at the ``registration_endpoint``, with the
   ``application_type`` of :func:`application_type_for`;
4. else a :class:`McpOAuthRegistrationError` that says what to configure.

Every registration records the ``issuer`` it was made with: its client id is sent to that
authorization server only (see ``McpOAuthClientRegistration.is_bound_to``).
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

from .._text import sanitize
from ..errors import McpOAuthRegistrationError
from ..oauth_store import McpOAuthClientRegistration, finite_seconds
from ._flow import Flow, build_request, http_step, response_json
from .client_auth import choose_token_endpoint_auth_method
from .metadata import McpAuthorizationServerMetadata
from .settings import GRANT_CLIENT_CREDENTIALS, McpOAuthClientSettings
from .urls import safe_url

__all__ = ["application_type_for", "registration_flow"]

_log = logging.getLogger("mcpstream.oauth")


def _pre_registered(
    settings: McpOAuthClientSettings, metadata: McpAuthorizationServerMetadata
) -> McpOAuthClientRegistration:
    assert settings.client_id is not None
    method = settings.token_endpoint_auth_method or choose_token_endpoint_auth_method(
        metadata.token_endpoint_auth_methods_supported,
        has_secret=bool(settings.client_secret),
        has_private_key=bool(settings.private_key_pem),
    )
    return McpOAuthClientRegistration(
        client_id=settings.client_id,
        method="pre_registered",
        client_secret=settings.client_secret,
        token_endpoint_auth_method=method,
        issuer=metadata.issuer,
    )


_LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


def application_type_for(redirect_uri: str | None) -> str:
    """The OpenID Connect ``application_type`` to register with (the MCP specification,
    2026-07-28, requires one: left out, OIDC servers assume ``web`` and may refuse a loopback
    redirect URI). ``native`` for a redirect URI on a loopback host (``localhost``,
    ``127.0.0.1``, ``[::1]``) or with a private-use scheme: a CLI, a desktop app, a locally
    served page; ``web`` for an http(s) redirect URI on any other host, and for a machine
    client, which has none (a confidential client running on a server)."""
    if redirect_uri is None:
        return "web"
    split = urlsplit(redirect_uri)
    if split.scheme.lower() not in ("http", "https"):
        return "native"
    return "native" if (split.hostname or "").lower() in _LOOPBACK_HOSTS else "web"


def registration_flow(
    *,
    server_id: str | None,
    metadata: McpAuthorizationServerMetadata,
    settings: McpOAuthClientSettings,
    redirect_uri: str | None,
    timeout_s: float,
) -> Flow[McpOAuthClientRegistration]:
    """Obtain a client registration (see the module docstring)."""

    def failure(message: str) -> McpOAuthRegistrationError:
        return McpOAuthRegistrationError(
            message, server_id=server_id, authorization_server_url=safe_url(metadata.issuer)
        )

    if settings.client_id:
        return _pre_registered(settings, metadata)
    if metadata.client_id_metadata_document_supported and settings.client_metadata_url:
        return McpOAuthClientRegistration(
            client_id=settings.client_metadata_url,
            method="client_id_metadata_document",
            token_endpoint_auth_method="none",
            redirect_uris=(redirect_uri,) if redirect_uri else (),
            issuer=metadata.issuer,
        )
    if not metadata.registration_endpoint:
        raise failure(
            f"authorization server {safe_url(metadata.issuer)} offers no dynamic client "
            "registration"
            + (
                ""
                if metadata.client_id_metadata_document_supported
                else " and no Client ID Metadata Documents"
            )
            + "; configure a pre-registered client id (and secret)"
            + (
                " or a client metadata document URL"
                if metadata.client_id_metadata_document_supported
                else ""
            )
        )
    machine = settings.grant_type == GRANT_CLIENT_CREDENTIALS
    requested_method = settings.token_endpoint_auth_method or choose_token_endpoint_auth_method(
        metadata.token_endpoint_auth_methods_supported,
        has_secret=False,
        prefer_public=not machine,
    )
    body: dict[str, object] = {
        "client_name": settings.client_name,
        "grant_types": ["client_credentials"]
        if machine
        else ["authorization_code", "refresh_token"],
        "response_types": [] if machine else ["code"],
        "token_endpoint_auth_method": requested_method,
        "application_type": settings.application_type or application_type_for(redirect_uri),
    }
    if redirect_uri and not machine:
        body["redirect_uris"] = [redirect_uri]
    if settings.scopes:
        body["scope"] = " ".join(settings.scopes)
    request = build_request(
        "POST", metadata.registration_endpoint, timeout_s=timeout_s, json_body=body
    )
    endpoint = safe_url(metadata.registration_endpoint)
    response = yield from http_step(
        request, lambda error: failure(f"dynamic client registration at {endpoint} failed: {error}")
    )
    document = response_json(response)
    if response.status_code not in (200, 201) or not isinstance(document, dict):
        error = document.get("error") if isinstance(document, dict) else None
        raise failure(
            f"dynamic client registration at {endpoint} was refused: HTTP "
            f"{response.status_code}" + (f" ({sanitize(error)})" if isinstance(error, str) else "")
        )
    client_id = document.get("client_id")
    if not isinstance(client_id, str) or not client_id:
        raise failure(f"dynamic client registration at {endpoint} returned no client_id")
    secret = document.get("client_secret")
    secret = secret if isinstance(secret, str) and secret else None
    method = document.get("token_endpoint_auth_method")
    if not isinstance(method, str) or not method:
        method = requested_method
    if method in ("client_secret_basic", "client_secret_post") and secret is None:
        method = "none"
    expires = document.get("client_secret_expires_at")
    uris = document.get("redirect_uris")
    access_token = document.get("registration_access_token")
    client_uri = document.get("registration_client_uri")
    _log.debug("OAuth: registered dynamically at %s (auth method %s)", endpoint, method)
    return McpOAuthClientRegistration(
        client_id=client_id,
        method="dynamic",
        client_secret=secret,
        token_endpoint_auth_method=method,
        client_secret_expires_at=finite_seconds(expires) or None,
        redirect_uris=tuple(u for u in uris if isinstance(u, str))
        if isinstance(uris, list)
        else ((redirect_uri,) if redirect_uri else ()),
        registration_access_token=access_token if isinstance(access_token, str) else None,
        registration_client_uri=client_uri if isinstance(client_uri, str) else None,
        issuer=metadata.issuer,
    )
