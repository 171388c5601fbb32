"""DPoP (RFC 9449, MCP SEP-1932): sender-constrained tokens, without I/O.

A login that uses DPoP makes a fresh ES256 key pair (:class:`DPoPKey`); the token request and
every MCP request then carry a proof (a JWT in the ``DPoP`` header) signed with it, and the
tokens issued are bound to the key's thumbprint. The key is stored with the tokens (PEM, in the
token record's ``dpop_key``) and a refresh keeps it: a public client's refresh token is bound
to it too (RFC 9449 section 5).

A proof (section 4.2) has the header ``typ`` ``dpop+jwt``, ``alg`` ``ES256`` and the public
``jwk``, and the claims ``jti`` (fresh for every proof), ``htm`` and ``htu`` (the request's
method and URL, without query and fragment), ``iat``, ``ath`` (the base64url SHA-256 of the
access token, on requests to the resource server) and ``nonce`` once the server gave one.

A server may ask for a nonce (section 8 and 9): the token endpoint with 400 ``use_dpop_nonce``,
the resource server with 401 and ``WWW-Authenticate: DPoP error="use_dpop_nonce"``, both with
a ``DPoP-Nonce`` header. :class:`DPoPNonces` keeps the latest nonce of each server (by origin),
and the request is sent once more with it, never twice.

The private key never appears in a ``repr``, a message or a log line: :class:`DPoPKey` shows
its public thumbprint only.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..redaction import url_without_secrets
from .challenge import parse_www_authenticate
from .urls import url_origin

if TYPE_CHECKING:
    # cryptography (and PyJWT) are imported when a key is first made, read or used: a host
    # that never uses DPoP does not pay their import with mcpstream's.
    from cryptography.hazmat.primitives.asymmetric import ec

__all__ = [
    "DPOP_ALGORITHM",
    "DPOP_HEADER",
    "DPOP_NONCE_HEADER",
    "USE_DPOP_NONCE",
    "DPoPKey",
    "DPoPNonces",
    "DPoPProver",
    "access_token_hash",
    "is_nonce_challenge",
    "proof_htu",
    "server_offers_dpop",
]

DPOP_ALGORITHM = "ES256"
"""The one algorithm mcpstream signs proofs with (ECDSA P-256 and SHA-256)."""
DPOP_HEADER = "DPoP"
DPOP_NONCE_HEADER = "DPoP-Nonce"
USE_DPOP_NONCE = "use_dpop_nonce"
_NONCE_LIMIT = 500  # a longer "nonce" is not kept (it would go into every proof)


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def proof_htu(url: str) -> str:
    """The ``htu`` of a request to ``url``: its URI without query and fragment (and without
    userinfo, which is no part of the target URI)."""
    return url_without_secrets(url, empty_path="/")


def access_token_hash(access_token: str) -> str:
    """The ``ath`` claim: base64url (unpadded) of the SHA-256 of the token's ASCII bytes."""
    return _b64url(hashlib.sha256(access_token.encode("ascii")).digest())


class DPoPKey:
    """An ES256 key pair for DPoP proofs. ``repr`` and ``str`` show the public thumbprint only."""

    __slots__ = ("_private", "public_jwk", "thumbprint")

    def __init__(self, private_key: ec.EllipticCurvePrivateKey) -> None:
        from cryptography.hazmat.primitives.asymmetric import ec

        if not isinstance(private_key.curve, ec.SECP256R1):
            raise ValueError("a DPoP key must be an EC P-256 key (ES256)")
        self._private = private_key
        numbers = private_key.public_key().public_numbers()
        self.public_jwk: dict[str, str] = {
            "crv": "P-256",
            "kty": "EC",
            "x": _b64url(numbers.x.to_bytes(32, "big")),
            "y": _b64url(numbers.y.to_bytes(32, "big")),
        }
        """The public key as a JWK (RFC 7517), as it goes into each proof's header."""
        # RFC 7638: the required members in lexicographic order, no whitespace.
        canonical = json.dumps(self.public_jwk, separators=(",", ":"), sort_keys=True)
        self.thumbprint: str = _b64url(hashlib.sha256(canonical.encode("ascii")).digest())
        """The JWK SHA-256 thumbprint (RFC 7638): what a bound token's ``cnf.jkt`` holds."""

    @classmethod
    def generate(cls) -> DPoPKey:
        """A new key pair (one per login)."""
        from cryptography.hazmat.primitives.asymmetric import ec

        return cls(ec.generate_private_key(ec.SECP256R1()))

    @classmethod
    def from_pem(cls, pem: str) -> DPoPKey:
        """The key stored by :meth:`to_pem`; ``ValueError`` when it is not an EC P-256 key.
        The message never quotes the PEM."""
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ec

        try:
            key = serialization.load_pem_private_key(pem.encode("ascii"), password=None)
        except (ValueError, TypeError, UnicodeEncodeError):
            raise ValueError("the stored DPoP key is not a PEM private key") from None
        if not isinstance(key, ec.EllipticCurvePrivateKey):
            raise ValueError("the stored DPoP key is not an EC key")
        return cls(key)

    def to_pem(self) -> str:
        """The private key as unencrypted PKCS#8 PEM, for the token store (a secret)."""
        from cryptography.hazmat.primitives import serialization

        return self._private.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ).decode("ascii")

    def proof(
        self, method: str, url: str, *, access_token: str | None = None, nonce: str | None = None
    ) -> str:
        """A DPoP proof JWT for one ``method`` request to ``url``; ``access_token`` adds its
        ``ath`` (requests to the resource server), ``nonce`` the server's nonce."""
        import jwt

        claims: dict[str, Any] = {
            "jti": secrets.token_urlsafe(24),
            "htm": method.upper(),
            "htu": proof_htu(url),
            "iat": int(time.time()),
        }
        if access_token is not None:
            claims["ath"] = access_token_hash(access_token)
        if nonce:
            claims["nonce"] = nonce
        headers = {"typ": "dpop+jwt", "jwk": self.public_jwk}
        return jwt.encode(claims, self._private, algorithm=DPOP_ALGORITHM, headers=headers)

    def __repr__(self) -> str:
        return f"DPoPKey({DPOP_ALGORITHM}, thumbprint={self.thumbprint!r})"

    __str__ = __repr__

    def __reduce__(self) -> Any:
        # Pickling would carry the private key out of every redaction; store it with to_pem.
        raise TypeError("a DPoPKey cannot be pickled; store it with to_pem()")


def _header(headers: Mapping[str, str], name: str) -> str | None:
    wanted = name.lower()
    for key, value in headers.items():
        if key.lower() == wanted:
            return value
    return None


class DPoPNonces:
    """The latest ``DPoP-Nonce`` of each server, by origin. Thread-safe: each call is one
    dict operation, and the latest nonce wins."""

    def __init__(self) -> None:
        self._nonces: dict[str, str] = {}

    def get(self, url: str) -> str | None:
        """The nonce to put in a proof for ``url``, if its server gave one."""
        return self._nonces.get(url_origin(url))

    def learn(self, url: str, headers: Mapping[str, str]) -> str | None:
        """Keep the ``DPoP-Nonce`` of an answer from ``url``'s server; returns it (None when
        the answer has none usable)."""
        nonce = (_header(headers, DPOP_NONCE_HEADER) or "").strip()
        usable = nonce.isascii() and nonce.isprintable() and 0 < len(nonce) <= _NONCE_LIMIT
        if usable:
            self._nonces[url_origin(url)] = nonce
        return nonce if usable else None


class DPoPProver:
    """A key and the nonces of the servers it signs for: what a flow needs to prove possession.
    ``repr`` shows the key's thumbprint only."""

    __slots__ = ("key", "nonces")

    def __init__(self, key: DPoPKey, nonces: DPoPNonces | None = None) -> None:
        self.key = key
        self.nonces = nonces if nonces is not None else DPoPNonces()

    def proof(self, method: str, url: str, access_token: str | None = None) -> str:
        """A fresh proof for ``method url`` with the server's latest nonce, if any."""
        nonce = self.nonces.get(url)
        return self.key.proof(method, url, access_token=access_token, nonce=nonce)

    def __repr__(self) -> str:
        return f"DPoPProver({self.key!r})"


def is_nonce_challenge(status_code: int, headers: Mapping[str, str], error: str | None) -> bool:
    """Whether an answer asks for a DPoP nonce: 400 (token endpoint) or 401 (resource server,
    ``WWW-Authenticate: DPoP error="use_dpop_nonce"``) with the error ``use_dpop_nonce``
    (``error``: the one of the JSON body, if any) and a ``DPoP-Nonce`` header."""
    if status_code not in (400, 401) or not (_header(headers, DPOP_NONCE_HEADER) or "").strip():
        return False
    if error == USE_DPOP_NONCE:
        return True
    challenges = parse_www_authenticate(_header(headers, "WWW-Authenticate"))
    return any(s == "dpop" and p.get("error") == USE_DPOP_NONCE for s, p in challenges)


def server_offers_dpop(metadata_raw: Mapping[str, Any]) -> bool:
    """Whether an authorization server's metadata lists ES256 in
    ``dpop_signing_alg_values_supported`` (RFC 9449 section 5.1)."""
    algorithms = metadata_raw.get("dpop_signing_alg_values_supported")
    return isinstance(algorithms, list) and DPOP_ALGORITHM in algorithms
