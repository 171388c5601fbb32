"""The OAuth error classes, in a leaf module so that ``oauth`` and ``oauth_store`` share them
without importing each other. Import them from ``mcpstream.oauth`` (or ``mcpstream.oauth_store``
for the store's error); the tree is drawn in ``mcpstream.errors``.

Messages never contain a token, a client secret or an authorization code: they name the server,
the authorization server's URL (without userinfo, query or fragment), HTTP statuses and OAuth
error codes only.
"""

from __future__ import annotations

from typing import ClassVar

from .errors import McpAuthError

__all__ = [
    "McpOAuthAssertionRejectedError",
    "McpOAuthAuthRequiredError",
    "McpOAuthAuthorizationError",
    "McpOAuthConfigurationError",
    "McpOAuthDPoPError",
    "McpOAuthDiscoveryError",
    "McpOAuthError",
    "McpOAuthInsufficientScopeError",
    "McpOAuthIssuerMismatchError",
    "McpOAuthPkceNotSupportedError",
    "McpOAuthReLoginRequired",
    "McpOAuthRegistrationError",
    "McpOAuthTokenExchangeError",
    "McpOAuthTokenStoreError",
]


class McpOAuthError(McpAuthError):
    """Base class of every OAuth failure.

    ``server_id`` names the MCP server the credentials are for and ``authorization_server_url``
    the authorization server involved, when known; both are safe to show and log.
    """

    error_code: ClassVar[str] = "mcp_oauth_error"
    retryable: ClassVar[bool] = False

    def __init__(
        self,
        message: str,
        *,
        server_id: str | None = None,
        authorization_server_url: str | None = None,
    ) -> None:
        super().__init__(message)
        self.server_id = server_id
        self.authorization_server_url = authorization_server_url


class McpOAuthAuthRequiredError(McpOAuthError):
    """No usable credentials: the user has to log in (the message names the command)."""

    error_code: ClassVar[str] = "mcp_oauth_auth_required"


class McpOAuthReLoginRequired(McpOAuthAuthRequiredError):
    """Stored credentials exist but can no longer be used or refreshed: log in again."""

    error_code: ClassVar[str] = "mcp_oauth_relogin_required"


class McpOAuthDiscoveryError(McpOAuthError):
    """Protected resource or authorization server metadata could not be found or is invalid."""

    error_code: ClassVar[str] = "mcp_oauth_discovery_error"


class McpOAuthPkceNotSupportedError(McpOAuthDiscoveryError):
    """The authorization server's metadata does not list ``S256`` in
    ``code_challenge_methods_supported``, so the MCP specification forbids going on."""

    error_code: ClassVar[str] = "mcp_oauth_pkce_not_supported"


class McpOAuthRegistrationError(McpOAuthError):
    """No client registration could be had: none was configured, the server offers neither a
    Client ID Metadata Document nor dynamic registration, or the registration request failed."""

    error_code: ClassVar[str] = "mcp_oauth_registration_error"


class McpOAuthConfigurationError(McpOAuthError):
    """The OAuth settings cannot work as given (a missing private key, an unknown method...)."""

    error_code: ClassVar[str] = "mcp_oauth_configuration_error"


class McpOAuthAuthorizationError(McpOAuthError):
    """The authorization step failed: the server answered with an error, the ``state`` did not
    match, no code came back, or the user did not finish in time. ``oauth_error`` holds the
    server's OAuth error code when it sent one."""

    error_code: ClassVar[str] = "mcp_oauth_authorization_error"

    def __init__(
        self, message: str, *, oauth_error: str | None = None, **where: str | None
    ) -> None:
        super().__init__(message, **where)  # server_id, authorization_server_url
        self.oauth_error = oauth_error


class McpOAuthIssuerMismatchError(McpOAuthAuthorizationError):
    """The authorization response failed the RFC 9207 check: its ``iss`` is not, as an exact
    string, the issuer the request was sent to, or it has none although the server's metadata
    advertises ``authorization_response_iss_parameter_supported``. The code is not redeemed and
    any ``error`` the response carries is not believed (a mix-up attack may have forged it)."""

    error_code: ClassVar[str] = "mcp_oauth_issuer_mismatch"


class McpOAuthTokenExchangeError(McpOAuthError):
    """The token endpoint refused a request or answered with something unusable.

    ``oauth_error`` is the OAuth error code (``invalid_grant``...), ``error_description`` the
    server's description (control characters escaped, every secret the request sent cut out)
    and ``status_code`` the HTTP status, when there was an answer.
    """

    error_code: ClassVar[str] = "mcp_oauth_token_exchange_error"

    def __init__(
        self, message: str, *, status_code: int | None = None, **details: str | None
    ) -> None:
        oauth_error = details.pop("oauth_error", None)
        error_description = details.pop("error_description", None)
        super().__init__(message, **details)  # server_id, authorization_server_url
        self.oauth_error = oauth_error
        self.error_description = error_description
        self.status_code = status_code


class McpOAuthAssertionRejectedError(McpOAuthTokenExchangeError):
    """A token request made with an assertion the host supplied was refused: the JWT bearer
    grant (RFC 7523; workload identity, or the ID-JAG of enterprise-managed authorization) at
    the authorization server, or the token exchange (RFC 8693) of the ID token at the
    identity provider. mcpstream does not retry it and does not fall back to another grant.

    ``reason`` says why, from the server's ``error`` and ``error_description``:
    ``"expired"``, ``"wrong_audience"``, ``"malformed"`` (bad signature or claims, not a JWT),
    ``"invalid_grant"`` (refused for another reason), or the OAuth error code itself for the
    other refusals (``"invalid_scope"``, ``"unauthorized_client"``, ``"invalid_client"``,
    ``"invalid_request"``...; ``"refused"`` when the answer names none). ``grant`` is
    ``"jwt-bearer"`` or ``"token-exchange"``. The assertion is never part of the message.
    """

    error_code: ClassVar[str] = "mcp_oauth_assertion_rejected"

    def __init__(
        self,
        message: str,
        *,
        reason: str,
        grant: str = "jwt-bearer",
        status_code: int | None = None,
        **details: str | None,
    ) -> None:
        super().__init__(message, status_code=status_code, **details)
        self.reason = reason
        self.grant = grant


class McpOAuthInsufficientScopeError(McpOAuthError):
    """The server answered 403 ``insufficient_scope`` and stepping up was not possible or did not
    help within the retry limit. ``required_scopes`` holds the scopes the server asked for."""

    error_code: ClassVar[str] = "mcp_oauth_insufficient_scope"

    def __init__(
        self, message: str, *, required_scopes: tuple[str, ...] = (), **where: str | None
    ) -> None:
        super().__init__(message, **where)  # server_id, authorization_server_url
        self.required_scopes = required_scopes


class McpOAuthTokenStoreError(McpOAuthError):
    """The token store file could not be read or written; ``path`` names the file."""

    error_code: ClassVar[str] = "mcp_oauth_token_store_error"

    def __init__(self, message: str, *, path: str | None = None, **where: str | None) -> None:
        super().__init__(message, **where)  # server_id, authorization_server_url
        self.path = path


class McpOAuthDPoPError(McpOAuthError):
    """The MCP server refused the DPoP proof (RFC 9449): it asked for a nonce again
    (``use_dpop_nonce``) after the one retry with the nonce it gave. The token endpoint's
    refusals are :class:`McpOAuthTokenExchangeError` (``oauth_error`` ``use_dpop_nonce``)."""

    error_code: ClassVar[str] = "mcp_oauth_dpop_error"
    oauth_error: ClassVar[str] = "use_dpop_nonce"
