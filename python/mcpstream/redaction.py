"""Keeping secrets out of messages: URLs without credentials, bodies cut to a safe length, and
known secrets scrubbed from text in every form a server or a library may echo them in."""

from __future__ import annotations

import base64
from collections.abc import Iterable
from urllib.parse import quote, quote_plus, urlsplit, urlunsplit

__all__ = [
    "BODY_SNIPPET_CHAR_LIMIT",
    "REDACTED",
    "body_snippet",
    "redact_url",
    "scrub_secrets",
    "secret_forms",
    "url_without_secrets",
]

REDACTED = "<redacted>"
_MIN_SECRET_CHARS = 4  # shorter "secrets" would scrub ordinary words

BODY_SNIPPET_CHAR_LIMIT = 1000


def redact_url(url: str) -> str:
    """Return ``url`` with its userinfo, query and fragment removed (scheme, host, port, path kept;
    an empty path becomes ``/``).

    A URL that cannot be parsed gives ``"<unparseable URL>"`` rather than an error, so that
    building an error message never fails.
    """
    return url_without_secrets(url, empty_path="/")


def url_without_secrets(url: str, *, empty_path: str = "") -> str:
    """``url`` without userinfo, query or fragment (scheme, host, port and path kept, an empty
    path replaced by ``empty_path``); ``"<unparseable URL>"`` for a URL that cannot be parsed."""
    try:
        split = urlsplit(url)
        host = split.hostname or ""
        port = split.port
    except ValueError:
        return "<unparseable URL>"
    if ":" in host:
        host = f"[{host}]"
    netloc = host if port is None else f"{host}:{port}"
    return urlunsplit((split.scheme, netloc, split.path or empty_path, "", ""))


def body_snippet(text: str, limit: int = BODY_SNIPPET_CHAR_LIMIT) -> str:
    """Return ``text`` stripped and cut to ``limit`` characters, marked when it was cut."""
    text = text.strip()
    if len(text) > limit:
        return text[:limit] + "...(truncated)"
    return text


def secret_forms(secret: str) -> set[str]:
    """The forms ``secret`` may be echoed in: as is, stripped, URL-encoded (``%2F`` and ``+``
    forms), Python-escaped (``repr`` of str and bytes, as in ``b'token\\r\\n'``), and base64
    (standard and URL-safe, with and without padding; and the ``user:secret`` pair's base64 is
    caught through its tail, which is the secret's base64 when aligned)."""
    forms = {secret, secret.strip()}
    for text in tuple(forms):
        forms.update({quote(text, safe=""), quote_plus(text, safe=""), quote(text)})
        escaped = text.encode("unicode_escape").decode("ascii")
        forms.add(escaped)
        forms.add(repr(text.encode("utf-8"))[2:-1])
        raw = text.encode("utf-8")
        for encoded in (base64.b64encode(raw), base64.urlsafe_b64encode(raw)):
            value = encoded.decode("ascii")
            forms.update({value, value.rstrip("=")})
    return {form for form in forms if len(form) >= _MIN_SECRET_CHARS}


def scrub_secrets(text: str, secrets: Iterable[str | None]) -> str:
    """``text`` with every form of each secret (:func:`secret_forms`) replaced by
    ``<redacted>``, longest first, so that no part of a longer form is left behind."""
    forms: set[str] = set()
    for secret in secrets:
        if secret and len(secret.strip()) >= _MIN_SECRET_CHARS:
            forms |= secret_forms(secret)
    for form in sorted(forms, key=len, reverse=True):
        if form in text:
            text = text.replace(form, REDACTED)
    return text
