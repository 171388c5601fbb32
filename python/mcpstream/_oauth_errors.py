"""The OAuth error classes, kept importable from here for code that did; they are defined in
``mcpstream.errors`` (import them from there, or from ``mcpstream.oauth``), where the tree is
drawn."""

from __future__ import annotations

from .errors import (
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
