"""Token endpoint requests: the authorization code exchange, refresh (with rotation), the
client-credentials grant and the JWT bearer grant (RFC 7523); each sends the ``resource``
parameter (RFC 8707). Every grant's request goes through :func:`token_endpoint_step`, which
adds the DPoP proof when the login uses DPoP (RFC 9449) and retries once with the server's nonce.

Error messages carry the HTTP status, the OAuth error code and the server's description with
every secret this request sent cut out of it, never a token.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable

import httpx

from .._text import sanitize
from ..errors import McpOAuthTokenExchangeError
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
from .dpop import DPOP_HEADER, USE_DPOP_NONCE, DPoPKey, DPoPProver, is_nonce_challenge
from .metadata import McpAuthorizationServerMetadata
from .scopes import merge_scopes
from .urls import canonical_resource_uri, safe_url

__all__ = [
    "DEFAULT_EXPIRY_LEEWAY_S",
    "arefresh_access_token",
    "is_token_expired",
    "refresh_access_token",
    "refresh_flow",
    "token_endpoint_step",
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


def _body_error(response: httpx.Response) -> str | None:
    document = response_json(response)
    error = document.get("error") if isinstance(document, dict) else None
    return error if isinstance(error, str) else None


def token_endpoint_step(
    request: httpx.Request, failure: Callable[[str], Exception], dpop: DPoPProver | None
) -> Flow[httpx.Response]:
    """Send a token request: the hook every grant goes through. With ``dpop`` the request
    carries a fresh proof, and a 400 ``use_dpop_nonce`` with a ``DPoP-Nonce`` is answered by
    one more request with that nonce and a new ``jti`` (RFC 9449 section 8); what comes back
    then is returned as it is (a second ``use_dpop_nonce`` is refused by the caller)."""
    if dpop is None:
        return (yield from http_step(request, failure))
    url = str(request.url)

    def proven() -> Flow[httpx.Response]:
        request.headers[DPOP_HEADER] = dpop.proof("POST", url)
        response = yield from http_step(request, failure)
        dpop.nonces.learn(url, response.headers)
        return response

    response = yield from proven()
    if is_nonce_challenge(response.status_code, response.headers, _body_error(response)):
        _log.debug("OAuth: the token endpoint asked for a DPoP nonce; sending it")
        response = yield from proven()
    return response


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
    dpop: DPoPProver | None = None,
) -> Flow[McpOAuthTokenRecord]:
    """POST ``form`` to the token endpoint with the client's authentication; returns the new
    record. A refresh (``previous`` given) keeps the old refresh token when no new one comes
    and the old scopes when the answer names none. With ``dpop`` the request carries a DPoP
    proof (:func:`token_endpoint_step`) and a ``DPoP`` token is stored with its key. Without a
    ``registration`` the request carries no client authentication (a JWT bearer grant whose
    assertion is the credential)."""
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
    response = yield from token_endpoint_step(
        request, lambda error: failure(f"{grant} request to {endpoint} failed: {error}"), dpop
    )
    _log.debug("OAuth: %s request to %s -> HTTP %s", grant, endpoint, response.status_code)
    document = response_json(response)
    if response.status_code != 200:
        error = document.get("error") if isinstance(document, dict) else None
        description = document.get("error_description") if isinstance(document, dict) else None
        if isinstance(error, str):
            error = _scrub(error, sent_secrets)  # it becomes the error's oauth_error too
        detail = f"HTTP {response.status_code}"
        if isinstance(error, str) and error:
            detail += f", {error}"
        shown_description = None
        if isinstance(description, str) and description:
            shown_description = _scrub(description, sent_secrets)
            detail += f": {shown_description}"
        if dpop is not None and error == USE_DPOP_NONCE:
            detail += "; it asked for a DPoP nonce again after the retry with its nonce"
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
    bound = dpop is not None and isinstance(token_type, str) and token_type.lower() == "dpop"
    if not bound and (not isinstance(token_type, str) or token_type.lower() != "bearer"):
        raise failure(
            f"token endpoint {endpoint} issued a token of type {str(token_type)[:20]!r}; "
            "only Bearer tokens (and DPoP tokens, when the request carried a DPoP proof) are "
            "supported",
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
        token_type="DPoP" if bound else "Bearer",
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
        dpop_key=dpop.key.to_pem() if bound and dpop is not None else None,
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
    dpop: DPoPProver | None = None,
) -> Flow[McpOAuthTokenRecord]:
    """The refresh token grant; a rotated refresh token replaces the old one. A DPoP-bound
    record is refreshed with its own key (``dpop``, else the one stored in ``previous``): the
    refresh token is bound to it, and so is the new access token."""
    if not refresh_token:
        raise McpOAuthTokenExchangeError(
            "no refresh token is stored",
            server_id=server_id,
            authorization_server_url=safe_url(metadata.issuer),
        )
    if previous is None:
        previous = McpOAuthTokenRecord(access_token="-", refresh_token=refresh_token)
    if dpop is None and previous.dpop_key:
        try:
            dpop = DPoPProver(DPoPKey.from_pem(previous.dpop_key))
        except ValueError as exc:
            raise McpOAuthTokenExchangeError(
                f"cannot refresh: {exc}",
                server_id=server_id,
                authorization_server_url=safe_url(metadata.issuer),
            ) from None
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
            dpop=dpop,
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
