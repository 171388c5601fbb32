"""Token endpoint requests: the authorization code exchange, refresh (with rotation), the
client-credentials grant and the JWT bearer grant (RFC 7523); each sends the ``resource``
parameter (RFC 8707).

Error messages carry the HTTP status, the OAuth error code and the server's description with
every secret this request sent cut out of it, never a token.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable

import httpx

from .._oauth_errors import McpOAuthTokenExchangeError
from .._text import sanitize
from ..oauth_store import (
    McpOAuthClientRegistration,
    McpOAuthTokenRecord,
    finite_seconds,
    is_header_safe,
)
from ..redaction import scrub_secrets
from ._flow import Flow, build_request, http_step, response_json, run_async, run_sync
from .challenge import split_scopes
from .client_auth import apply_client_authentication
from .metadata import McpAuthorizationServerMetadata
from .scopes import merge_scopes
from .urls import canonical_resource_uri, safe_url

__all__ = [
    "DEFAULT_EXPIRY_LEEWAY_S",
    "arefresh_access_token",
    "is_token_expired",
    "refresh_access_token",
    "refresh_flow",
    "token_request_flow",
]

_log = logging.getLogger("mcpstream.oauth")
_MAX_LIFETIME_S = 10 * 365 * 86400.0
DEFAULT_EXPIRY_LEEWAY_S = 60.0
_DESCRIPTION_LIMIT = 300


def is_token_expired(
    record: McpOAuthTokenRecord,
    *,
    leeway_s: float = DEFAULT_EXPIRY_LEEWAY_S,
    now: float | None = None,
) -> bool:
    """Whether the access token expires within ``leeway_s`` (so it is refreshed before it
    does); a token without a known lifetime is taken as valid until a 401 says otherwise."""
    if record.expires_at is None:
        return False
    current = time.time() if now is None else now
    return record.expires_at - leeway_s <= current


def _scrub(text: str, secrets: Iterable[str | None]) -> str:
    return sanitize(" ".join(scrub_secrets(text, secrets).split()), _DESCRIPTION_LIMIT)


def token_request_flow(
    *,
    server_id: str | None,
    metadata: McpAuthorizationServerMetadata,
    registration: McpOAuthClientRegistration | None,
    form: dict[str, str],
    timeout_s: float,
    requested_scopes: tuple[str, ...] = (),
    resource: str | None = None,
    server_url: str | None = None,
    authorization_server_url: str | None = None,
    previous: McpOAuthTokenRecord | None = None,
    private_key_pem: str | None = None,
    signing_algorithm: str | None = None,
) -> Flow[McpOAuthTokenRecord]:
    """POST ``form`` to the token endpoint with the client's authentication; returns the new
    record. A refresh (``previous`` given) keeps the old refresh token when no new one comes
    and the old scopes when the answer names none. Without a ``registration`` the request
    carries no client authentication (a JWT bearer grant whose assertion is the credential)."""
    grant = form.get("grant_type", "?")
    body = dict(form)
    if requested_scopes:
        body["scope"] = " ".join(requested_scopes)
    if resource:
        body["resource"] = resource
    headers: dict[str, str] = {}
    if registration is not None:
        apply_client_authentication(
            registration,
            form=body,
            headers=headers,
            metadata=metadata,
            private_key_pem=private_key_pem,
            signing_algorithm=signing_algorithm,
            server_id=server_id,
        )
    sent_secrets = [
        form.get("code"),
        form.get("refresh_token"),
        form.get("code_verifier"),
        registration.client_secret if registration is not None else None,
        body.get("client_assertion"),
        form.get("assertion"),
    ]
    endpoint = safe_url(metadata.token_endpoint)
    issuer = safe_url(metadata.issuer)

    def failure(
        message: str,
        *,
        status_code: int | None = None,
        oauth_error: str | None = None,
        error_description: str | None = None,
    ) -> McpOAuthTokenExchangeError:
        return McpOAuthTokenExchangeError(
            message,
            server_id=server_id,
            authorization_server_url=issuer,
            oauth_error=oauth_error,
            error_description=error_description,
            status_code=status_code,
        )

    request = build_request(
        "POST", metadata.token_endpoint, timeout_s=timeout_s, headers=headers, data=body
    )
    response = yield from http_step(
        request, lambda error: failure(f"{grant} request to {endpoint} failed: {error}")
    )
    _log.debug("OAuth: %s request to %s -> HTTP %s", grant, endpoint, response.status_code)
    document = response_json(response)
    if response.status_code != 200:
        error = document.get("error") if isinstance(document, dict) else None
        description = document.get("error_description") if isinstance(document, dict) else None
        detail = f"HTTP {response.status_code}"
        if isinstance(error, str) and error:
            detail += f", {_scrub(error, sent_secrets)}"
        shown_description = None
        if isinstance(description, str) and description:
            shown_description = _scrub(description, sent_secrets)
            detail += f": {shown_description}"
        raise failure(
            f"token endpoint {endpoint} refused the {grant} request ({detail})",
            oauth_error=error if isinstance(error, str) else None,
            error_description=shown_description,
            status_code=response.status_code,
        )
    if not isinstance(document, dict):
        raise failure(
            f"token endpoint {endpoint} answered the {grant} request without a JSON object",
            status_code=200,
        )
    access_token = document.get("access_token")
    if not isinstance(access_token, str) or not access_token:
        raise failure(
            f"token endpoint {endpoint} returned no access_token for the {grant} request",
            status_code=200,
        )
    if not is_header_safe(access_token):
        # It could not be sent (an Authorization header is ASCII) and a CR/LF would split it.
        raise failure(
            f"token endpoint {endpoint} returned an access_token with characters other than "
            f"printable ASCII for the {grant} request; it cannot be sent as a Bearer token",
            status_code=200,
        )
    token_type = document.get("token_type", "Bearer")
    if not isinstance(token_type, str) or token_type.lower() != "bearer":
        raise failure(
            f"token endpoint {endpoint} issued a token of type {str(token_type)[:20]!r}; "
            "only Bearer tokens are supported",
            status_code=200,
        )
    now = time.time()
    expires_in = document.get("expires_in")
    expires_at: float | None = None
    if isinstance(expires_in, str) and expires_in.strip().isdecimal():
        expires_in = int(expires_in.strip()) if len(expires_in.strip()) < 20 else None
    lifetime = finite_seconds(expires_in, _MAX_LIFETIME_S)
    if lifetime is not None:
        # A lifetime past ten years (or NaN, Infinity, 10**400) is taken as "no lifetime given".
        expires_at = now + lifetime
    refresh_token = document.get("refresh_token")
    if not isinstance(refresh_token, str) or not refresh_token:
        refresh_token = previous.refresh_token if previous is not None else None
    scope_value = document.get("scope")
    if isinstance(scope_value, str) and scope_value.strip():
        granted = split_scopes(scope_value)
    elif requested_scopes:
        granted = merge_scopes(requested_scopes)
    else:
        granted = previous.granted_scopes if previous is not None else ()
    return McpOAuthTokenRecord(
        access_token=access_token,
        token_type="Bearer",
        refresh_token=refresh_token,
        expires_at=expires_at,
        granted_scopes=granted,
        issuer=metadata.issuer,
        authorization_server_url=authorization_server_url
        or (previous.authorization_server_url if previous else None),
        token_endpoint=metadata.token_endpoint,
        resource=resource,
        server_url=server_url or (previous.server_url if previous else None),
        client_registration=registration,
        grant_type=(
            previous.grant_type if previous is not None and grant == "refresh_token" else grant
        ),
        obtained_at=now,
    )


def refresh_flow(
    *,
    server_id: str | None,
    metadata: McpAuthorizationServerMetadata,
    registration: McpOAuthClientRegistration,
    refresh_token: str,
    resource: str | None,
    requested_scopes: tuple[str, ...],
    timeout_s: float,
    previous: McpOAuthTokenRecord | None = None,
    private_key_pem: str | None = None,
    signing_algorithm: str | None = None,
) -> Flow[McpOAuthTokenRecord]:
    """The refresh token grant; a rotated refresh token replaces the old one."""
    if not refresh_token:
        raise McpOAuthTokenExchangeError(
            "no refresh token is stored",
            server_id=server_id,
            authorization_server_url=safe_url(metadata.issuer),
        )
    if previous is None:
        previous = McpOAuthTokenRecord(access_token="-", refresh_token=refresh_token)
    return (
        yield from token_request_flow(
            server_id=server_id,
            metadata=metadata,
            registration=registration,
            form={"grant_type": "refresh_token", "refresh_token": refresh_token},
            timeout_s=timeout_s,
            requested_scopes=requested_scopes,
            resource=resource,
            previous=previous,
            private_key_pem=private_key_pem,
            signing_algorithm=signing_algorithm,
        )
    )


def _refresh_access_token_flow(
    *,
    server_id: str | None,
    metadata: McpAuthorizationServerMetadata,
    resource_server_url: str,
    client_id: str | None,
    refresh_token: str,
    requested_scopes: Iterable[str] | None,
    existing_granted_scopes: Iterable[str] | None,
    timeout_s: float,
    client_registration: McpOAuthClientRegistration | None,
    resource: str | None,
    previous_record: McpOAuthTokenRecord | None,
    private_key_pem: str | None,
) -> Flow[McpOAuthTokenRecord]:
    """The refresh flow behind :func:`refresh_access_token` and :func:`arefresh_access_token`;
    the argument checks run here, before either driver starts."""
    registration = client_registration
    if registration is None:
        if not client_id:
            raise McpOAuthTokenExchangeError(
                "cannot refresh: neither a client registration nor a client id is known",
                server_id=server_id,
                authorization_server_url=safe_url(metadata.issuer),
            )
        registration = McpOAuthClientRegistration(client_id=client_id)
    if resource is None and resource_server_url:
        try:
            resource = canonical_resource_uri(resource_server_url)
        except ValueError:
            resource = None
    previous = previous_record or McpOAuthTokenRecord(
        access_token="-",
        refresh_token=refresh_token,
        granted_scopes=tuple(existing_granted_scopes or ()),
        server_url=resource_server_url or None,
    )
    return refresh_flow(
        server_id=server_id,
        metadata=metadata,
        registration=registration,
        refresh_token=refresh_token,
        resource=resource,
        requested_scopes=merge_scopes(requested_scopes),
        timeout_s=timeout_s,
        previous=previous,
        private_key_pem=private_key_pem,
    )


def refresh_access_token(
    *,
    server_id: str | None,
    authorization_server_metadata: McpAuthorizationServerMetadata,
    resource_server_url: str,
    client_id: str | None,
    refresh_token: str,
    requested_scopes: Iterable[str] | None,
    existing_granted_scopes: Iterable[str] | None,
    timeout_s: float,
    client: httpx.Client | None = None,
    client_registration: McpOAuthClientRegistration | None = None,
    resource: str | None = None,
    previous_record: McpOAuthTokenRecord | None = None,
    private_key_pem: str | None = None,
) -> McpOAuthTokenRecord:
    """Refresh an access token (the reference transport's call). Pass ``client_registration``
    (the stored record's) for a client that registered dynamically or has a secret; with only
    ``client_id`` the client is public."""
    flow = _refresh_access_token_flow(
        server_id=server_id,
        metadata=authorization_server_metadata,
        resource_server_url=resource_server_url,
        client_id=client_id,
        refresh_token=refresh_token,
        requested_scopes=requested_scopes,
        existing_granted_scopes=existing_granted_scopes,
        timeout_s=timeout_s,
        client_registration=client_registration,
        resource=resource,
        previous_record=previous_record,
        private_key_pem=private_key_pem,
    )
    return run_sync(flow, client)


async def arefresh_access_token(
    *,
    server_id: str | None,
    authorization_server_metadata: McpAuthorizationServerMetadata,
    resource_server_url: str,
    client_id: str | None,
    refresh_token: str,
    requested_scopes: Iterable[str] | None,
    existing_granted_scopes: Iterable[str] | None,
    timeout_s: float,
    client: httpx.AsyncClient | None = None,
    client_registration: McpOAuthClientRegistration | None = None,
    resource: str | None = None,
    previous_record: McpOAuthTokenRecord | None = None,
    private_key_pem: str | None = None,
) -> McpOAuthTokenRecord:
    """The async form of :func:`refresh_access_token`."""
    flow = _refresh_access_token_flow(
        server_id=server_id,
        metadata=authorization_server_metadata,
        resource_server_url=resource_server_url,
        client_id=client_id,
        refresh_token=refresh_token,
        requested_scopes=requested_scopes,
        existing_granted_scopes=existing_granted_scopes,
        timeout_s=timeout_s,
        client_registration=client_registration,
        resource=resource,
        previous_record=previous_record,
        private_key_pem=private_key_pem,
    )
    return await run_async(flow, client)
