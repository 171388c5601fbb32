"""PKCE (RFC 7636, S256 only) and the ``state`` value of an authorization request."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass

__all__ = [
    "PkcePair",
    "generate_pkce_pair",
    "generate_state",
    "s256_code_challenge",
    "states_match",
]


@dataclass(frozen=True, repr=False)
class PkcePair:
    """A code verifier and its S256 challenge. The verifier is a secret until the code is
    exchanged: it is not shown in ``repr``."""

    code_verifier: str
    code_challenge: str
    code_challenge_method: str = "S256"

    def __repr__(self) -> str:
        return f"PkcePair(code_verifier='<redacted>', code_challenge={self.code_challenge!r})"


def s256_code_challenge(code_verifier: str) -> str:
    """``BASE64URL(SHA256(ascii(code_verifier)))`` without padding."""
    digest = hashlib.sha256(code_verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def generate_pkce_pair() -> PkcePair:
    """A fresh verifier (64 characters from 48 random bytes, inside RFC 7636's 43..128) and its
    S256 challenge."""
    verifier = secrets.token_urlsafe(48)
    return PkcePair(code_verifier=verifier, code_challenge=s256_code_challenge(verifier))


def generate_state() -> str:
    """An unguessable ``state`` value (256 random bits)."""
    return secrets.token_urlsafe(32)


def states_match(expected: str, received: str | None) -> bool:
    """Constant-time comparison of the ``state`` sent and the one that came back."""
    if received is None:
        return False
    return hmac.compare_digest(expected.encode("utf-8"), received.encode("utf-8"))
