"""Keeping secrets out of messages: URLs without credentials, bodies cut to a safe length."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

__all__ = ["BODY_SNIPPET_CHAR_LIMIT", "body_snippet", "redact_url"]

BODY_SNIPPET_CHAR_LIMIT = 1000


def redact_url(url: str) -> str:
    """Return ``url`` with its userinfo, query and fragment removed (scheme, host, port, path kept).

    A URL that cannot be parsed gives ``"<unparseable URL>"`` rather than an error, so that
    building an error message never fails.
    """
    try:
        split = urlsplit(url)
        host = split.hostname or ""
        port = split.port
    except ValueError:
        return "<unparseable URL>"
    if ":" in host:
        host = f"[{host}]"
    netloc = host if port is None else f"{host}:{port}"
    return urlunsplit((split.scheme, netloc, split.path or "/", "", ""))


def body_snippet(text: str, limit: int = BODY_SNIPPET_CHAR_LIMIT) -> str:
    """Return ``text`` stripped and cut to ``limit`` characters, marked when it was cut."""
    text = text.strip()
    if len(text) > limit:
        return text[:limit] + "...(truncated)"
    return text
