"""The client side of OAuth for one MCP server: who mcpstream is and how it authenticates."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from typing import Any

from ._flow import MAX_DOCUMENT_BYTES
from .assertions import AssertionCallable, AssertionSource
from .policy import check_oauth_url
from .token_exchange import IdentityProvider

__all__ = [
    "ASSERTION_GRANTS",
    "GRANTS",
    "GRANT_AUTHORIZATION_CODE",
    "GRANT_CLIENT_CREDENTIALS",
    "GRANT_ENTERPRISE",
    "GRANT_JWT_BEARER",
    "McpOAuthClientSettings",
]

GRANT_AUTHORIZATION_CODE = "authorization_code"
GRANT_CLIENT_CREDENTIALS = "client_credentials"
GRANT_JWT_BEARER = "jwt_bearer"
GRANT_ENTERPRISE = "enterprise"
ASSERTION_GRANTS = frozenset({GRANT_JWT_BEARER, GRANT_ENTERPRISE})
"""The grants that present an assertion with the JWT bearer grant (RFC 7523)."""
GRANTS = (GRANT_AUTHORIZATION_CODE, GRANT_CLIENT_CREDENTIALS, *sorted(ASSERTION_GRANTS))
"""Every ``grant_type`` the settings take."""
_ASSERTION_KEYWORDS = ("assertion", "assertion_file", "assertion_env")
_ID_TOKEN_KEYWORDS = ("id_token", "id_token_file", "id_token_env")
_IDP_KEYWORDS = ("idp_token_endpoint", "idp_client_id", "idp_client_secret")
_SECRET_FIELDS = frozenset({"client_secret", "private_key_pem", "idp_client_secret"})
_CALLABLE_FIELDS = frozenset({"assertion", "id_token"})
TOKEN_ENDPOINT_AUTH_METHODS = frozenset(
    {"client_secret_basic", "client_secret_post", "private_key_jwt", "none"}
)


@dataclass(frozen=True, repr=False)
class McpOAuthClientSettings:
    """OAuth client settings.

    - ``client_id`` / ``client_secret``: a pre-registered client (first in the registration
      priority); without them, a Client ID Metadata Document (``client_metadata_url``) when the
      server supports it, else dynamic client registration.
    - ``scopes``: asked for on top of what the server's challenge asks for.
    - ``authorization_server_url``: skip the protected resource metadata's choice.
    - ``token_endpoint_auth_method``: force one of ``client_secret_basic``,
      ``client_secret_post``, ``private_key_jwt``, ``none`` (chosen from the metadata otherwise).
    - ``grant_type``: ``authorization_code`` (a user logs in) or ``client_credentials``
      (a machine client, with a secret or ``private_key_pem`` for ``private_key_jwt``).
    - ``signing_algorithm``: the JWT algorithm for ``private_key_jwt`` (from the key when unset).
    - ``dpop``: sender-constrained tokens (DPoP, RFC 9449): ``True`` always, ``False`` never,
      ``None`` (auto) when the server asks for them (a ``DPoP`` challenge, or ES256 in the
      authorization server's ``dpop_signing_alg_values_supported``).
    - ``application_type``: ``native`` or ``web``, sent in dynamic client registration (from the
      redirect URI when unset: ``native`` for a loopback one).
    - ``max_document_bytes``: the byte budget of each OAuth document read (metadata,
      registration and token responses, after decompression; default 1 MiB).

    The assertion grants (one JWT bearer request, RFC 7523; no retry, no fallback to another
    grant: a refusal is an ``McpOAuthAssertionRejectedError`` naming the reason):

    - ``grant_type="jwt_bearer"`` (workload identity): the workload's JWT is the grant; its
      source is exactly one of ``assertion`` (a function returning it, called at every use; an
      async one with the async transport), ``assertion_file`` (a path, re-read at every use)
      and ``assertion_env`` (an environment variable's name, read at every use). Its ``aud``
      must be the authorization server's issuer. ``client_id`` is optional (without it the
      request carries no client authentication); with one, the client authenticates as usual.
    - ``grant_type="enterprise"`` (enterprise-managed authorization, ID-JAG): the user's ID
      token (exactly one of ``id_token``, ``id_token_file``, ``id_token_env``, read like the
      assertion) is exchanged (RFC 8693) at the identity provider's ``idp_token_endpoint`` as
      client ``idp_client_id`` (with ``idp_client_secret``, when it has one) for an ID-JAG for
      the authorization server and the MCP server, which the JWT bearer grant presents as
      ``client_id`` (pre-registered with the authorization server; required).

    Secrets are not shown in ``repr`` (nor the assertion functions, whose ``repr`` could hold
    bound arguments).
    """

    client_id: str | None = None
    client_secret: str | None = None
    scopes: tuple[str, ...] = ()
    authorization_server_url: str | None = None
    token_endpoint_auth_method: str | None = None
    client_metadata_url: str | None = None
    client_name: str = "mcpstream"
    grant_type: str = GRANT_AUTHORIZATION_CODE
    private_key_pem: str | None = field(default=None)
    signing_algorithm: str | None = None
    dpop: bool | None = None
    assertion: AssertionCallable | None = None
    assertion_file: str | os.PathLike[str] | None = None
    assertion_env: str | None = None
    id_token: AssertionCallable | None = None
    id_token_file: str | os.PathLike[str] | None = None
    id_token_env: str | None = None
    idp_token_endpoint: str | None = None
    idp_client_id: str | None = None
    idp_client_secret: str | None = None
    application_type: str | None = None
    max_document_bytes: int = MAX_DOCUMENT_BYTES

    def __post_init__(self) -> None:
        object.__setattr__(self, "scopes", tuple(self.scopes))
        if self.grant_type not in GRANTS:
            raise ValueError(
                f"unsupported grant_type {self.grant_type!r} (one of {', '.join(GRANTS)})"
            )
        self._check_assertion_grant()
        if self.application_type not in (None, "native", "web"):
            raise ValueError(f"unsupported application_type {self.application_type!r}")
        method = self.token_endpoint_auth_method
        if method is not None and method not in TOKEN_ENDPOINT_AUTH_METHODS:
            raise ValueError(f"unsupported token_endpoint_auth_method {method!r}")
        if self.dpop is not None and not isinstance(self.dpop, bool):
            raise ValueError("dpop must be True, False or None (auto)")
        if self.max_document_bytes < 1:
            raise ValueError("max_document_bytes must be at least 1")

    def _check_assertion_grant(self) -> None:
        """``ValueError`` for assertion settings that cannot work with the grant type."""
        grant = self.grant_type
        unused = {
            GRANT_JWT_BEARER: (*_ID_TOKEN_KEYWORDS, *_IDP_KEYWORDS),
            GRANT_ENTERPRISE: _ASSERTION_KEYWORDS,
        }.get(grant, (*_ASSERTION_KEYWORDS, *_ID_TOKEN_KEYWORDS, *_IDP_KEYWORDS))
        stray = [name for name in unused if getattr(self, name) is not None]
        if stray:
            needs = GRANT_JWT_BEARER if stray[0] in _ASSERTION_KEYWORDS else GRANT_ENTERPRISE
            raise ValueError(f"{', '.join(stray)} only apply with grant_type={needs!r}")
        if grant == GRANT_JWT_BEARER and self.assertion_source() is None:
            raise ValueError(
                "grant_type='jwt_bearer' needs the workload's assertion: one of assertion, "
                "assertion_file or assertion_env"
            )
        if grant != GRANT_ENTERPRISE:
            return
        if self.id_token_source() is None:
            raise ValueError(
                "grant_type='enterprise' needs the user's ID token: one of id_token, "
                "id_token_file or id_token_env"
            )
        missing = [
            name
            for name in ("idp_token_endpoint", "idp_client_id", "client_id")
            if not getattr(self, name)
        ]
        if missing:
            raise ValueError(f"grant_type='enterprise' needs {', '.join(missing)}")
        assert self.idp_token_endpoint is not None
        check_oauth_url(self.idp_token_endpoint, "idp_token_endpoint")  # an InsecureOAuthUrlError

    def assertion_source(self) -> AssertionSource | None:
        """Where the workload identity assertion is read from (``None``: not configured)."""
        return AssertionSource.from_settings(
            "workload identity assertion",
            _ASSERTION_KEYWORDS,
            self.assertion,
            self.assertion_file,
            self.assertion_env,
        )

    def id_token_source(self) -> AssertionSource | None:
        """Where the ID token of enterprise-managed authorization is read from."""
        return AssertionSource.from_settings(
            "ID token", _ID_TOKEN_KEYWORDS, self.id_token, self.id_token_file, self.id_token_env
        )

    def identity_provider(self) -> IdentityProvider | None:
        """The identity provider of enterprise-managed authorization (``None``: not set)."""
        if not self.idp_token_endpoint or not self.idp_client_id:
            return None
        return IdentityProvider(self.idp_token_endpoint, self.idp_client_id, self.idp_client_secret)

    def __repr__(self) -> str:
        return f"McpOAuthClientSettings({', '.join(shown_fields(self))})"

    @classmethod
    def from_config(cls, config: Any) -> McpOAuthClientSettings:
        """Settings from any object with some of these attribute names (``models.McpOAuthConfig``
        has ``client_id``, ``scopes`` and ``authorization_server_url``); ``None`` gives the
        defaults, and an instance of this class is returned as it is."""
        if config is None:
            return cls()
        if isinstance(config, cls):
            return config
        values: dict[str, Any] = {}
        for item in fields(cls):
            value = getattr(config, item.name, None)
            if value is not None:
                values[item.name] = tuple(value) if item.name == "scopes" else value
        return cls(**values)

    @property
    def is_machine_client(self) -> bool:
        """Whether tokens come without a browser step: the client-credentials grant, or an
        assertion grant (``jwt_bearer``, ``enterprise``)."""
        return self.grant_type == GRANT_CLIENT_CREDENTIALS or self.grant_type in ASSERTION_GRANTS


def shown_fields(settings: Any) -> list[str]:
    """``name=value`` for each dataclass field of ``settings`` as a ``repr`` shows it: secrets
    as ``<redacted>``, assertion functions as ``<callable>``."""
    shown = []
    for item in fields(settings):
        value = getattr(settings, item.name)
        if value is not None and item.name in _SECRET_FIELDS:
            value = "<redacted>"
        elif value is not None and item.name in _CALLABLE_FIELDS:
            value = "<callable>"
        shown.append(f"{item.name}={value!r}")
    return shown
