"""The ways to get a first token: the authorization code flow with PKCE (a user logs in
through a browser), and for a machine client the client-credentials grant or the JWT bearer
grant (RFC 7523) with a workload's assertion or the ID-JAG of enterprise-managed
authorization (:mod:`.assertions`, :mod:`.token_exchange`)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from urllib.parse import parse_qs, urlencode, urlsplit

from ..errors import (
    McpOAuthAuthorizationError,
    McpOAuthDiscoveryError,
    McpOAuthIssuerMismatchError,
    McpOAuthTokenExchangeError,
)
from ..oauth_store import McpOAuthClientRegistration, McpOAuthTokenRecord
from ._flow import AuthorizationPrompt, Flow, prompt_step
from .assertions import JWT_BEARER_GRANT, assertion_rejected, read_assertion_flow
from .discovery import McpOAuthDiscovery, ensure_pkce_s256_supported
from .dpop import DPoPProver
from .metadata import McpAuthorizationServerMetadata
from .pkce import PkcePair, generate_pkce_pair, generate_state, states_match
from .registration import registration_flow
from .settings import ASSERTION_GRANTS, GRANT_ENTERPRISE, McpOAuthClientSettings
from .token_exchange import id_jag_flow
from .tokens import token_request_flow
from .urls import safe_url, same_issuer

__all__ = [
    "McpOAuthPendingAuthorization",
    "authorization_code_flow",
    "build_authorization_request",
    "client_credentials_flow",
    "parse_authorization_callback",
]

_log = logging.getLogger("mcpstream.oauth")


@dataclass(frozen=True, repr=False)
class McpOAuthPendingAuthorization:
    """An authorization request on its way: the URL to visit and what the callback and the
    code exchange need (``state`` and the PKCE verifier stay secret: not in ``repr``)."""

    authorization_url: str
    redirect_uri: str
    state: str
    pkce: PkcePair
    resource: str
    scopes: tuple[str, ...]
    metadata: McpAuthorizationServerMetadata
    registration: McpOAuthClientRegistration

    def __repr__(self) -> str:
        return (
            f"McpOAuthPendingAuthorization(issuer={self.metadata.issuer!r}, "
            f"redirect_uri={self.redirect_uri!r}, scopes={self.scopes!r})"
        )


def build_authorization_request(
    *,
    metadata: McpAuthorizationServerMetadata,
    registration: McpOAuthClientRegistration,
    redirect_uri: str,
    resource: str,
    scopes: tuple[str, ...],
    server_id: str | None = None,
    dpop_jkt: str | None = None,
) -> McpOAuthPendingAuthorization:
    """The authorization URL: ``response_type=code``, PKCE S256, a fresh ``state``, the
    ``resource`` and, when there are any, the ``scope``; with ``dpop_jkt`` (the thumbprint of
    the DPoP key the code will be redeemed with) the code is bound to that key, so that a code
    stolen from the redirect cannot be redeemed with another key (RFC 9449 section 10).
    Refuses servers without S256."""
    ensure_pkce_s256_supported(metadata, server_id=server_id)
    if not metadata.authorization_endpoint:
        raise McpOAuthDiscoveryError(
            f"authorization server {safe_url(metadata.issuer)} has no authorization_endpoint",
            server_id=server_id,
            authorization_server_url=safe_url(metadata.issuer),
        )
    pkce = generate_pkce_pair()
    state = generate_state()
    params = {
        "response_type": "code",
        "client_id": registration.client_id,
        "redirect_uri": redirect_uri,
        "code_challenge": pkce.code_challenge,
        "code_challenge_method": pkce.code_challenge_method,
        "state": state,
        "resource": resource,
    }
    if scopes:
        params["scope"] = " ".join(scopes)
    if dpop_jkt:
        params["dpop_jkt"] = dpop_jkt
    endpoint = metadata.authorization_endpoint
    separator = "&" if urlsplit(endpoint).query else "?"
    return McpOAuthPendingAuthorization(
        authorization_url=f"{endpoint}{separator}{urlencode(params)}",
        redirect_uri=redirect_uri,
        state=state,
        pkce=pkce,
        resource=resource,
        scopes=scopes,
        metadata=metadata,
        registration=registration,
    )


def parse_authorization_callback(
    pending: McpOAuthPendingAuthorization, callback_url: str, *, server_id: str | None = None
) -> str:
    """The authorization code from the callback URL, after checking ``state`` and ``iss``
    (RFC 9207: compared with the recorded issuer when present, required when the metadata
    advertises ``authorization_response_iss_parameter_supported``; a mismatch is an
    :class:`McpOAuthIssuerMismatchError`, raised before an ``error`` in the response is read)."""
    issuer = safe_url(pending.metadata.issuer)
    params = {k: v[0] for k, v in parse_qs(urlsplit(callback_url).query).items() if v}
    if not states_match(pending.state, params.get("state")):
        raise McpOAuthAuthorizationError(
            "the authorization callback's state does not match the request's; refusing it",
            server_id=server_id,
            authorization_server_url=issuer,
        )
    # RFC 9207 section 2.4, before anything else in the response is believed (its error
    # included): a present iss must be the recorded issuer exactly, advertised or not; an
    # absent one is refused only when the metadata promised it.
    returned_issuer = params.get("iss")
    if returned_issuer is not None and not same_issuer(returned_issuer, pending.metadata.issuer):
        raise McpOAuthIssuerMismatchError(
            "the authorization response's iss parameter is not the issuer the request was sent "
            f"to ({issuer}, compared as exact strings, RFC 9207); refusing the response",
            server_id=server_id,
            authorization_server_url=issuer,
        )
    if returned_issuer is None and pending.metadata.authorization_response_iss_parameter_supported:
        raise McpOAuthIssuerMismatchError(
            "the authorization response lacks the iss parameter its server's metadata promises "
            "(authorization_response_iss_parameter_supported, RFC 9207); refusing it",
            server_id=server_id,
            authorization_server_url=issuer,
        )
    error = params.get("error")
    if error:
        description = params.get("error_description", "")
        raise McpOAuthAuthorizationError(
            f"authorization failed: {error}" + (f": {description[:300]}" if description else ""),
            server_id=server_id,
            authorization_server_url=issuer,
            oauth_error=error,
        )
    code = params.get("code")
    if not code:
        raise McpOAuthAuthorizationError(
            "the authorization callback carries no code",
            server_id=server_id,
            authorization_server_url=issuer,
        )
    return code


@dataclass(frozen=True)
class _Grant:
    """What both grants work with: the MCP server, what discovery found for it, the client's
    settings and the time budget of each request; ``dpop``, when the login uses DPoP, proves
    possession of its key at the token endpoint (every grant's :meth:`token_flow`)."""

    server_id: str | None
    server_url: str
    discovery: McpOAuthDiscovery
    settings: McpOAuthClientSettings
    timeout_s: float
    dpop: DPoPProver | None = None

    def registration_flow(self, redirect_uri: str | None) -> Flow[McpOAuthClientRegistration]:
        """The client's registration with the authorization server."""
        return registration_flow(
            server_id=self.server_id,
            metadata=self.discovery.metadata,
            settings=self.settings,
            redirect_uri=redirect_uri,
            timeout_s=self.timeout_s,
        )

    def token_flow(
        self,
        registration: McpOAuthClientRegistration | None,
        form: dict[str, str],
        requested_scopes: tuple[str, ...] = (),
    ) -> Flow[McpOAuthTokenRecord]:
        """Send ``form`` to the token endpoint, authenticated as the settings say."""
        return token_request_flow(
            server_id=self.server_id,
            metadata=self.discovery.metadata,
            registration=registration,
            form=form,
            timeout_s=self.timeout_s,
            requested_scopes=requested_scopes,
            resource=self.discovery.resource,
            server_url=self.server_url,
            authorization_server_url=self.discovery.authorization_server_url,
            private_key_pem=self.settings.private_key_pem,
            signing_algorithm=self.settings.signing_algorithm,
            dpop=self.dpop,
        )


def authorization_code_flow(
    *,
    server_id: str | None,
    server_url: str,
    discovery: McpOAuthDiscovery,
    settings: McpOAuthClientSettings,
    redirect_uri: str,
    scopes: tuple[str, ...],
    timeout_s: float,
    registration: McpOAuthClientRegistration | None = None,
    dpop: DPoPProver | None = None,
) -> Flow[McpOAuthTokenRecord]:
    """Register (unless ``registration`` is given), send the user to the authorization URL,
    check the callback and exchange the code (with a DPoP proof when ``dpop`` is given)."""
    grant = _Grant(server_id, server_url, discovery, settings, timeout_s, dpop)
    metadata = discovery.metadata
    ensure_pkce_s256_supported(metadata, server_id=server_id)
    if registration is None:
        registration = yield from grant.registration_flow(redirect_uri)
    pending = build_authorization_request(
        metadata=metadata,
        registration=registration,
        redirect_uri=redirect_uri,
        resource=discovery.resource,
        scopes=scopes,
        server_id=server_id,
        dpop_jkt=None if dpop is None else dpop.key.thumbprint,
    )
    _log.debug(
        "OAuth: authorization request to %s (scopes: %s)",
        safe_url(metadata.authorization_endpoint or metadata.issuer),
        " ".join(scopes) or "none",
    )
    callback = yield from prompt_step(
        AuthorizationPrompt(
            authorization_url=pending.authorization_url,
            redirect_uri=redirect_uri,
            state=pending.state,
        )
    )
    code = parse_authorization_callback(pending, callback, server_id=server_id)
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": pending.redirect_uri,
        "code_verifier": pending.pkce.code_verifier,
    }
    record = yield from grant.token_flow(registration, form)
    if not record.granted_scopes and pending.scopes:
        # RFC 6749 section 5.1: an answer without scope grants what was asked for.
        record = record.with_changes(granted_scopes=pending.scopes)
    return record


def client_credentials_flow(
    *,
    server_id: str | None,
    server_url: str,
    dpop: DPoPProver | None = None,
    discovery: McpOAuthDiscovery,
    settings: McpOAuthClientSettings,
    scopes: tuple[str, ...],
    timeout_s: float,
) -> Flow[McpOAuthTokenRecord]:
    """The client-credentials grant with the configured client (``client_secret_basic`` /
    ``client_secret_post`` with a secret, ``private_key_jwt`` with a key; a DPoP proof when
    ``dpop`` is given); for an assertion grant type (``jwt_bearer``, ``enterprise``), the JWT
    bearer grant instead (a machine client's other way to its token, see
    :func:`_assertion_grant_flow`)."""
    grant = _Grant(server_id, server_url, discovery, settings, timeout_s, dpop)
    if settings.grant_type in ASSERTION_GRANTS:
        return (yield from _assertion_grant_flow(grant, scopes))
    registration = yield from grant.registration_flow(None)
    form = {"grant_type": "client_credentials"}
    return (yield from grant.token_flow(registration, form, scopes))


def _assertion_grant_flow(grant: _Grant, scopes: tuple[str, ...]) -> Flow[McpOAuthTokenRecord]:
    """One JWT bearer grant request (RFC 7523) with the assertion read now: the workload's own
    (``jwt_bearer``), or the ID-JAG the identity provider issues for this authorization server
    and MCP server in exchange for the user's ID token (``enterprise``, RFC 8693). A refusal
    is an :class:`McpOAuthAssertionRejectedError`: no retry, no other grant. Without a
    ``client_id`` (workload identity only) the request carries no client authentication."""
    settings, server_id = grant.settings, grant.server_id
    metadata = grant.discovery.metadata
    registration = (yield from grant.registration_flow(None)) if settings.client_id else None
    if settings.grant_type == GRANT_ENTERPRISE:
        source, idp = settings.id_token_source(), settings.identity_provider()
        assert source is not None and idp is not None  # the settings checked both
        id_token = yield from read_assertion_flow(source, server_id=server_id)
        assertion = yield from id_jag_flow(idp, id_token, grant, scopes)
        what = "ID-JAG (the identity provider's grant)"
    else:
        source = settings.assertion_source()
        assert source is not None  # the settings checked it
        assertion = yield from read_assertion_flow(source, server_id=server_id)
        what = source.what
    form = {"grant_type": JWT_BEARER_GRANT, "assertion": assertion}
    try:
        return (yield from grant.token_flow(registration, form, scopes))
    except McpOAuthTokenExchangeError as exc:
        if exc.status_code is None or exc.status_code == 200:
            raise  # no answer, or an unusable token: not a refusal of the assertion
        where = f"authorization server {safe_url(metadata.issuer)}"
        raise assertion_rejected(exc, what=what, where=where, grant="jwt-bearer") from None
