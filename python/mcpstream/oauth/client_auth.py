"""Client authentication at the token endpoint: ``client_secret_basic``,
``client_secret_post``, ``private_key_jwt`` (RFC 7523, signed with PyJWT) and ``none``."""

from __future__ import annotations

import base64
import secrets
import time
from urllib.parse import quote

from ..errors import McpOAuthConfigurationError
from ..oauth_store import McpOAuthClientRegistration
from .metadata import McpAuthorizationServerMetadata

__all__ = [
    "JWT_BEARER_ASSERTION_TYPE",
    "apply_client_authentication",
    "choose_token_endpoint_auth_method",
    "sign_client_assertion",
]

JWT_BEARER_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
_ASSERTION_LIFETIME_S = 300


def choose_token_endpoint_auth_method(
    supported: tuple[str, ...] | None,
    *,
    has_secret: bool,
    has_private_key: bool = False,
    prefer_public: bool = False,
) -> str:
    """The method to use (or, for dynamic registration, to ask for).

    ``supported`` is the metadata's ``token_endpoint_auth_methods_supported``; when the server
    does not say, RFC 8414's default ``client_secret_basic`` is assumed. A public client
    (``prefer_public``: a native app registering itself) takes ``none`` when offered.
    """
    offered = supported if supported else ("client_secret_basic",)
    if has_private_key:
        return "private_key_jwt"
    if prefer_public and "none" in offered:
        return "none"
    if has_secret or prefer_public:
        for method in ("client_secret_basic", "client_secret_post"):
            if method in offered:
                return method
        return "none" if "none" in offered else "client_secret_basic"
    return "none"


def _signing_algorithm(private_key_pem: str, requested: str | None) -> str:
    if requested:
        return requested
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    key = load_pem_private_key(private_key_pem.encode("utf-8"), password=None)
    if isinstance(key, ec.EllipticCurvePrivateKey):
        return {256: "ES256", 384: "ES384", 521: "ES512"}.get(key.curve.key_size, "ES256")
    if isinstance(key, rsa.RSAPrivateKey):
        return "RS256"
    if isinstance(key, ed25519.Ed25519PrivateKey):
        return "EdDSA"
    raise ValueError("unsupported private key type")


def sign_client_assertion(
    *,
    client_id: str,
    audience: str,
    private_key_pem: str,
    algorithm: str | None = None,
    now: float | None = None,
) -> str:
    """A client assertion JWT (RFC 7523 section 3): ``iss`` and ``sub`` the client id, ``aud``
    the authorization server's issuer, a five-minute lifetime and a random ``jti``."""
    import jwt

    issued = int(now if now is not None else time.time())
    claims = {
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "iat": issued,
        "exp": issued + _ASSERTION_LIFETIME_S,
        "jti": secrets.token_urlsafe(16),
    }
    try:
        alg = _signing_algorithm(private_key_pem, algorithm)
        return jwt.encode(claims, private_key_pem, algorithm=alg)
    except (ValueError, TypeError, jwt.PyJWTError) as exc:
        # The key's text must not reach the message: name the failure's type only.
        raise McpOAuthConfigurationError(
            f"cannot sign the private_key_jwt client assertion ({type(exc).__name__})"
        ) from None


def apply_client_authentication(
    registration: McpOAuthClientRegistration,
    *,
    form: dict[str, str],
    headers: dict[str, str],
    metadata: McpAuthorizationServerMetadata,
    private_key_pem: str | None = None,
    signing_algorithm: str | None = None,
    server_id: str | None = None,
) -> None:
    """Add the client's credentials to a token request's ``form`` and ``headers``."""
    method = registration.token_endpoint_auth_method
    client_id = registration.client_id
    if method == "client_secret_basic":
        if not registration.client_secret:
            raise McpOAuthConfigurationError(
                "client_secret_basic needs a client secret", server_id=server_id
            )
        # RFC 6749 section 2.3.1: both parts form-encoded before the Basic encoding.
        pair = f"{quote(client_id, safe='')}:{quote(registration.client_secret, safe='')}"
        headers["Authorization"] = "Basic " + base64.b64encode(pair.encode("utf-8")).decode()
        return
    form["client_id"] = client_id
    if method == "client_secret_post":
        if not registration.client_secret:
            raise McpOAuthConfigurationError(
                "client_secret_post needs a client secret", server_id=server_id
            )
        form["client_secret"] = registration.client_secret
    elif method == "private_key_jwt":
        if not private_key_pem:
            raise McpOAuthConfigurationError(
                "private_key_jwt needs a private key (private_key_pem)", server_id=server_id
            )
        form["client_assertion_type"] = JWT_BEARER_ASSERTION_TYPE
        form["client_assertion"] = sign_client_assertion(
            client_id=client_id,
            audience=metadata.issuer,
            private_key_pem=private_key_pem,
            algorithm=signing_algorithm,
        )
    elif method != "none":
        raise McpOAuthConfigurationError(
            f"unsupported token endpoint auth method {method!r}", server_id=server_id
        )
