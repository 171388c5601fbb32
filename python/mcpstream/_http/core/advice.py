"""What an error message tells a user to check, free of I/O: whether an answer is a web page
rather than MCP (and its title), an error body cut to the documented length, the endpoint a
wrong path most likely meant, and a TLS failure that means plain HTTP was spoken on the port.

These only shape messages: no decision of the transport depends on them.
"""

from __future__ import annotations

import html
import re
from urllib.parse import urlsplit, urlunsplit

from ..._text import SERVER_TEXT_CHAR_LIMIT, sanitize
from ...redaction import body_snippet

__all__ = ["body_excerpt", "html_title", "likely_endpoint", "tls_mismatch"]

_HTML_START = re.compile(r"^\s*(<!doctype\s+html|<html|<head|<body|<title|<h1)", re.IGNORECASE)
_TITLE = re.compile(r"<title[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
_H1 = re.compile(r"<h1[^>]*>(.*?)</h1\s*>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>")

# What OpenSSL says when the peer of a TLS handshake answers in plain HTTP (an https:// URL to
# a port that serves http://): OpenSSL 1.1 and 3.x spell it differently.
_PLAIN_HTTP_ON_TLS = (
    "wrong_version_number",
    "wrong version number",
    "record layer failure",
    "packet length too long",
    "http_request",
)


def html_title(text: str) -> str | None:
    """None when ``text`` is not an HTML page; else its title (or first heading), as plain
    text, possibly empty."""
    if not _HTML_START.match(text):
        return None
    found = _TITLE.search(text) or _H1.search(text)
    if found is None:
        return ""
    return " ".join(html.unescape(_TAG.sub("", found.group(1))).split())


def body_excerpt(text: str, limit: int = SERVER_TEXT_CHAR_LIMIT) -> str:
    """An error body as a message quotes it: an HTML page as ``an HTML page ('<title>')``,
    other text cut to ``limit`` characters (marked when cut); empty for an empty body."""
    title = html_title(text)
    if title is None:
        return body_snippet(text, limit)
    return f"an HTML page ({sanitize(title, 80)!r})" if title else "an HTML page"


def likely_endpoint(url: str) -> str | None:
    """The MCP endpoint a URL with a wrong path most likely meant: its origin with ``/mcp``
    (the path servers and the SDKs use by default), or ``/sse`` for a URL already at ``/mcp``
    (a server of the HTTP+SSE transport); None for a URL that cannot be parsed. The query and
    fragment are left out (they may carry secrets)."""
    try:
        parts = urlsplit(url)
        netloc = parts.netloc.rpartition("@")[2]
    except ValueError:
        return None
    path = "/sse" if parts.path.rstrip("/") == "/mcp" else "/mcp"
    return urlunsplit((parts.scheme, netloc, path, "", ""))


def tls_mismatch(url: str, detail: str) -> str | None:
    """The explanation of a failed connection ``detail`` when it means an ``https://`` URL
    reached a port that speaks plain HTTP; None otherwise."""
    lowered = detail.lower()
    if not url.lower().startswith("https:") or not any(s in lowered for s in _PLAIN_HTTP_ON_TLS):
        return None
    plain = "http:" + url[len("https:") :]
    try:
        parts = urlsplit(plain)
        plain = urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, "", ""))
    except ValueError:
        return "the TLS handshake failed: the port answered in plain HTTP, not TLS"
    return (
        "the TLS handshake failed: the port answered in plain HTTP, not TLS (the server speaks "
        f"http://, not https://: try {plain})"
    )
