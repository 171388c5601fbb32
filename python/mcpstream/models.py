"""Configuration objects the transports read: a resolved MCP server and its OAuth settings.

Both are frozen dataclasses. Their ``repr`` shows no secret: header values, the URL's userinfo,
query and fragment, the OAuth client secrets and private key, the assertion functions are left
out, since static headers usually carry an API key and the URL may carry a token in its query
string.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import KW_ONLY, dataclass, field
from types import MappingProxyType

from .redaction import redact_url

__all__ = ["McpOAuthConfig", "ResolvedMcpServer"]

DEFAULT_CALL_TIMEOUT_S = 60.0
"""The default budget of a request that is not a tool call (``ResolvedMcpServer.call_timeout_s``,
the clients' ``request_timeout_s``): the table of docs/limits.md has every default."""


@dataclass(frozen=True, slots=True, repr=False)
class McpOAuthConfig:
    """OAuth settings of one server (``ResolvedMcpServer.oauth``).

    The reference's keywords come first and keep their meaning: ``client_id`` (a client
    registered with the authorization server ahead of time; ``None`` lets mcpstream use a Client
    ID Metadata Document or dynamic client registration instead), ``scopes`` (asked for on top
    of what the server's challenge asks for) and ``authorization_server_url`` (when the protected
    resource metadata should not choose). The others are keyword-only:

    - ``client_secret``: the pre-registered client's secret (confidential clients).
    - ``token_endpoint_auth_method``: ``client_secret_basic``, ``client_secret_post``,
      ``private_key_jwt`` or ``none`` (chosen from the metadata and registration when unset).
    - ``client_metadata_url``: the URL of this client's Client ID Metadata Document, used when
      the authorization server supports those.
    - ``grant_type``: ``authorization_code`` (a person logs in, ``mcpstream auth login``) or
      ``client_credentials`` (a machine client, with a secret or ``private_key_pem``).
    - ``private_key_pem`` / ``signing_algorithm``: the key (PEM) and JWT algorithm for
      ``private_key_jwt`` (the algorithm is taken from the key when unset).
    - ``dpop``: DPoP-bound tokens (RFC 9449): ``True`` always, ``False`` never, ``None`` (the
      default) when the server asks for them (``WWW-Authenticate: DPoP``, or ES256 in the
      authorization server's ``dpop_signing_alg_values_supported``). The per-login key is
      kept with the tokens in the token store.

    - ``application_type``: ``native`` or ``web``, sent in dynamic client registration (from
      the redirect URI when unset). ``max_document_bytes``: the byte budget of each OAuth
      document read (default 1 MiB).

    Workload identity, ``grant_type="jwt_bearer"`` (the JWT bearer grant, RFC 7523: one token
    request with the workload's JWT, no retry and no other grant when it is refused, which
    raises ``McpOAuthAssertionRejectedError`` with its ``reason``: ``expired``,
    ``wrong_audience``, ``malformed``...). The JWT comes from exactly one of:

    - ``assertion``: a function returning it, called at every token request (for the async
      transport it may be an ``async`` function);
    - ``assertion_file``: a file holding it, re-read at every token request (platforms rotate
      such files in place: a Kubernetes projected service account token, a SPIFFE JWT-SVID);
    - ``assertion_env``: the name of an environment variable holding it, read at every use.

    Its ``aud`` must be the authorization server's issuer. ``client_id`` is optional here
    (without one the request carries no client authentication).

    Enterprise-managed authorization, ``grant_type="enterprise"`` (ID-JAG): the user's ID token
    from the company's single sign-on is exchanged (RFC 8693) at the identity provider for an
    ID-JAG naming the authorization server (``audience``) and the MCP server (``resource``),
    which the JWT bearer grant then presents; ``client_id`` (and ``client_secret``) is the
    client pre-registered with the MCP server's authorization server (required). The rest:

    - ``id_token`` / ``id_token_file`` / ``id_token_env``: the ID token, exactly one source,
      read like the assertion above;
    - ``idp_token_endpoint``: the identity provider's token endpoint (https://, or http:// to
      loopback);
    - ``idp_client_id`` / ``idp_client_secret``: the client the user signed in with at the
      identity provider (the secret, when it has one, is sent with ``client_secret_post``).

    Invalid values of ``grant_type``, ``token_endpoint_auth_method`` or ``dpop``, and assertion
    settings that cannot work together, raise ``ValueError``. ``repr`` hides the client secrets, the
    private key and the assertion functions.
    """

    client_id: str | None = None
    scopes: tuple[str, ...] = ()
    authorization_server_url: str | None = None
    _: KW_ONLY
    client_secret: str | None = None
    token_endpoint_auth_method: str | None = None
    client_metadata_url: str | None = None
    grant_type: str = "authorization_code"
    private_key_pem: str | None = None
    signing_algorithm: str | None = None
    dpop: bool | None = None
    application_type: str | None = None
    max_document_bytes: int | None = None
    assertion: Callable[[], str] | Callable[[], Awaitable[str]] | None = None
    assertion_file: str | os.PathLike[str] | None = None
    assertion_env: str | None = None
    id_token: Callable[[], str] | Callable[[], Awaitable[str]] | None = None
    id_token_file: str | os.PathLike[str] | None = None
    id_token_env: str | None = None
    idp_token_endpoint: str | None = None
    idp_client_id: str | None = None
    idp_client_secret: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "scopes", tuple(self.scopes))
        # Imported here: the OAuth package is heavier than this module and not needed to load it.
        from .oauth.settings import McpOAuthClientSettings

        McpOAuthClientSettings.from_config(self)  # raises ValueError for values that cannot work

    def __repr__(self) -> str:
        from .oauth.settings import shown_fields

        return f"McpOAuthConfig({', '.join(shown_fields(self))})"


@dataclass(frozen=True, slots=True, repr=False)
class ResolvedMcpServer:
    """One MCP server, resolved from the host's configuration.

    ``id`` names the server in messages. ``transport`` is ``"http"`` for the Streamable HTTP
    transport (``"stdio"`` is accepted for hosts that keep both kinds in one list; the HTTP
    transport refuses it). ``url`` is the MCP endpoint. ``headers`` are sent with every HTTP
    request (an ``Authorization`` header for a static token, for instance). ``call_timeout_s`` is
    the default budget of one call, used where a call gives none. ``oauth`` is ``None`` or the
    server's OAuth settings.
    """

    id: str
    transport: str = "http"
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    call_timeout_s: float = DEFAULT_CALL_TIMEOUT_S
    oauth: McpOAuthConfig | None = None

    def __post_init__(self) -> None:
        # A read-only copy: the caller's dict can change later without changing this server.
        object.__setattr__(self, "headers", MappingProxyType(dict(self.headers)))
        if self.call_timeout_s <= 0:
            raise ValueError("call_timeout_s must be greater than 0")

    def __repr__(self) -> str:
        url = redact_url(self.url) if self.url is not None else None
        header_names = sorted(self.headers)
        return (
            f"ResolvedMcpServer(id={self.id!r}, transport={self.transport!r}, url={url!r}, "
            f"headers=<{len(header_names)} header(s): {', '.join(header_names)}>, "
            f"call_timeout_s={self.call_timeout_s!r}, oauth={self.oauth!r})"
        )
