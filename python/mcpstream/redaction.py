"""Keeping secrets out of messages: URLs without credentials, bodies cut to a safe length."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

__all__ = ["BODY_SNIPPET_CHAR_LIMIT", "body_snippet", "redact_url", "url_without_secrets"]

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
