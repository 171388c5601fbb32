"""The client side of OAuth for one MCP server: who mcpstream is and how it authenticates."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from ._flow import MAX_DOCUMENT_BYTES

__all__ = ["GRANT_AUTHORIZATION_CODE", "GRANT_CLIENT_CREDENTIALS", "McpOAuthClientSettings"]

GRANT_AUTHORIZATION_CODE = "authorization_code"
GRANT_CLIENT_CREDENTIALS = "client_credentials"
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

    Secrets are not shown in ``repr``.
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
    application_type: str | None = None
    max_document_bytes: int = MAX_DOCUMENT_BYTES

    def __post_init__(self) -> None:
        object.__setattr__(self, "scopes", tuple(self.scopes))
        if self.grant_type not in (GRANT_AUTHORIZATION_CODE, GRANT_CLIENT_CREDENTIALS):
            raise ValueError(f"unsupported grant_type {self.grant_type!r}")
        if self.application_type not in (None, "native", "web"):
            raise ValueError(f"unsupported application_type {self.application_type!r}")
        method = self.token_endpoint_auth_method
        if method is not None and method not in TOKEN_ENDPOINT_AUTH_METHODS:
            raise ValueError(f"unsupported token_endpoint_auth_method {method!r}")
        if self.dpop is not None and not isinstance(self.dpop, bool):
            raise ValueError("dpop must be True, False or None (auto)")
        if self.max_document_bytes < 1:
            raise ValueError("max_document_bytes must be at least 1")

    def __repr__(self) -> str:
        shown = []
        for item in fields(self):
            value = getattr(self, item.name)
            if item.name in ("client_secret", "private_key_pem") and value is not None:
                value = "<redacted>"
            shown.append(f"{item.name}={value!r}")
        return f"McpOAuthClientSettings({', '.join(shown)})"

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
        """Whether tokens come from the client-credentials grant (no user involved)."""
        return self.grant_type == GRANT_CLIENT_CREDENTIALS
