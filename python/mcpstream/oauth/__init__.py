"""OAuth 2.1 authorization for HTTP MCP servers, per the MCP authorization specification
(revisions 2025-03-26 to 2026-07-28; the 2026-07-28 rules are OAuth rules, applied whichever
MCP wire the transport speaks: issuers compared as exact strings, the authorization response's
``iss`` checked (RFC 9207), ``application_type`` in registration, credentials bound to their
issuer, ``offline_access`` only where advertised, step-up to the union of scopes).

The pieces, each in its own module:

- ``discovery``: protected resource metadata (RFC 9728) and authorization server metadata
  (RFC 8414, OpenID Connect Discovery) in the specification's order, with the 2025-03-26
  fallbacks; PKCE S256 support is required.
- ``registration``: pre-registered client, Client ID Metadata Document, dynamic registration
  (RFC 7591), in that priority.
- ``authorize``: the authorization code flow with PKCE, ``state`` and ``resource`` (RFC 8707);
  the client-credentials grant; the JWT bearer grant (RFC 7523) of workload identity and of
  enterprise-managed authorization.
- ``assertions``: the assertions the host supplies (a callable, a file re-read at every use,
  an environment variable) and what a refusal means (no retry, no fallback).
- ``token_exchange``: the token exchange (RFC 8693) of an ID token for an ID-JAG at the
  company's identity provider.
- ``tokens``: the token endpoint (code exchange, refresh with rotation), with
  ``client_secret_basic``, ``client_secret_post``, ``private_key_jwt`` or ``none``.
- ``scopes``: the scope selection strategy and step-up.
- ``session``: the hook a transport calls before each request and on 401/403 (the transports
  use it for a server with ``oauth`` settings, see ``mcpstream._http.auth``).
- ``redirect``: the loopback listener for a user's browser, and a headless handler.
- ``login``: logging in ahead of time (``mcpstream auth login``).

Every exchange is a sans-I/O generator run by a blocking or an async driver, so sync and async
callers share one implementation. No token, secret or authorization code is ever put in an
exception message, a log line or a ``repr``.

Against a hostile server (``policy`` and the drivers in ``_flow`` hold these for every flow):

- URLs: every OAuth URL (metadata, each endpoint, the identity provider's token endpoint, the
  authorization URL handed to the browser) is ``https://``, or ``http://`` to ``127.0.0.0/8``,
  ``::1`` or ``localhost`` only; anything else (``file:``, ``javascript:``, UNC paths,
  ``ms-msdt:``, plain http to another host) is refused before use. In the 2025-03-26 fallback
  the metadata's ``issuer`` must be at the MCP server's origin.
- Time: the HTTP steps of one operation (discovery, a token request, a login's exchanges) share
  one deadline, the operation's ``timeout_s`` (default 10 s for discovery and tokens; a
  session's ``timeout_s``), covering connect, headers and body; the clock restarts after the
  user's browser step. The login listener (``LoopbackRedirectHandler(timeout_s=300)``) holds
  every connection to its deadline; the login probe (``probe_www_authenticate``) too.
- Size: each OAuth document is read up to ``McpOAuthClientSettings.max_document_bytes``
  (default 1 MiB, ``_flow.MAX_DOCUMENT_BYTES``) after decompression, ``Content-Length`` checked
  first, on every path (discovery, registration, token, refresh, the identity provider): gzip
  and deflate are undone 256 KiB at a time, so a bomb is refused within a piece of the budget.
  The token store file is refused over 16 MiB (``MAX_STORE_FILE_BYTES``).
- Values: deep JSON is an invalid document; an ``expires_in`` that is not a finite number of
  seconds up to ten years means "no lifetime given"; an access token that is not printable
  ASCII is refused. Server text in messages is sanitized (``mcpstream._text``: control
  characters escaped, 200 characters by default, 300 for an error description) and secrets
  scrubbed wherever they stand inside a value, raw, %- or form-encoded, JSON- or Python-escaped,
  base64 or base64url (alone or in a ``client_id:secret`` pair) (``mcpstream.redaction``).
"""

from __future__ import annotations

from ..errors import (
    McpOAuthAssertionRejectedError,
    McpOAuthAuthorizationError,
    McpOAuthAuthRequiredError,
    McpOAuthConfigurationError,
    McpOAuthDiscoveryError,
    McpOAuthDPoPError,
    McpOAuthError,
    McpOAuthInsufficientScopeError,
    McpOAuthIssuerMismatchError,
    McpOAuthPkceNotSupportedError,
    McpOAuthRegistrationError,
    McpOAuthReLoginRequired,
    McpOAuthTokenExchangeError,
    McpOAuthTokenStoreError,
)
from ._flow import AsyncMcpOAuthRedirectHandler, AuthorizationPrompt, McpOAuthRedirectHandler
from .authorize import (
    McpOAuthPendingAuthorization,
    build_authorization_request,
    parse_authorization_callback,
)
from .challenge import parse_www_authenticate, parse_www_authenticate_bearer_challenge
from .discovery import (
    McpOAuthDiscovery,
    adiscover_authorization_server_metadata,
    adiscover_oauth,
    discover_authorization_server_metadata,
    discover_oauth,
    ensure_pkce_s256_supported,
)
from .login import login, probe_www_authenticate
from .metadata import McpAuthorizationServerMetadata, McpProtectedResourceMetadata
from .redirect import AsyncHeadlessRedirectHandler, HeadlessRedirectHandler, LoopbackRedirectHandler
from .scopes import resolve_requested_scopes
from .session import (
    AsyncMcpOAuthRequestAuth,
    AsyncMcpOAuthSession,
    McpOAuthRequestAuth,
    McpOAuthSession,
    default_server_id,
    login_command,
)
from .settings import McpOAuthClientSettings
from .tokens import arefresh_access_token, is_token_expired, refresh_access_token
from .urls import canonical_resource_uri

__all__ = [
    "AsyncHeadlessRedirectHandler",
    "AsyncMcpOAuthRedirectHandler",
    "AsyncMcpOAuthRequestAuth",
    "AsyncMcpOAuthSession",
    "AuthorizationPrompt",
    "HeadlessRedirectHandler",
    "LoopbackRedirectHandler",
    "McpAuthorizationServerMetadata",
    "McpOAuthAssertionRejectedError",
    "McpOAuthAuthRequiredError",
    "McpOAuthAuthorizationError",
    "McpOAuthClientSettings",
    "McpOAuthConfigurationError",
    "McpOAuthDPoPError",
    "McpOAuthDiscovery",
    "McpOAuthDiscoveryError",
    "McpOAuthError",
    "McpOAuthInsufficientScopeError",
    "McpOAuthIssuerMismatchError",
    "McpOAuthPendingAuthorization",
    "McpOAuthPkceNotSupportedError",
    "McpOAuthReLoginRequired",
    "McpOAuthRedirectHandler",
    "McpOAuthRegistrationError",
    "McpOAuthRequestAuth",
    "McpOAuthSession",
    "McpOAuthTokenExchangeError",
    "McpOAuthTokenStoreError",
    "McpProtectedResourceMetadata",
    "adiscover_authorization_server_metadata",
    "adiscover_oauth",
    "arefresh_access_token",
    "build_authorization_request",
    "canonical_resource_uri",
    "default_server_id",
    "discover_authorization_server_metadata",
    "discover_oauth",
    "ensure_pkce_s256_supported",
    "is_token_expired",
    "login",
    "login_command",
    "parse_authorization_callback",
    "parse_www_authenticate",
    "parse_www_authenticate_bearer_challenge",
    "probe_www_authenticate",
    "refresh_access_token",
    "resolve_requested_scopes",
]
