"""What an error message tells a user to check, free of I/O: whether an answer is a web page
rather than MCP (and its title), an error body cut to the documented length, the endpoint a
wrong path most likely meant, and a failure that means the URL's scheme does not match the
port (https:// to plain HTTP, http:// to TLS).

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
# The first bytes of a TLS alert or handshake record, as a quoted bytes value shows them.
_TLS_RECORD = re.compile(r"b'\\x1[56]\\x03")

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


def _at_scheme(url: str, scheme: str) -> str | None:
    """``url`` with ``scheme`` instead of its own, without userinfo, query or fragment (they
    may hold secrets); None for a URL that cannot be parsed."""
    try:
        parts = urlsplit(url)
        return urlunsplit((scheme, parts.netloc.rpartition("@")[2], parts.path, "", ""))
    except ValueError:
        return None


def _tls_answer(detail: str) -> bool:
    """True when ``detail`` (httpx's message) says the server's answer began with a byte no
    HTTP status line begins with: h11 says a bare "illegal request line" when the first byte
    is below 0x21, as the first byte of every TLS record is (0x15 an alert, 0x16 a
    handshake); a stack that quotes the line shows the record's first bytes."""
    return detail.strip() == "illegal request line" or _TLS_RECORD.search(detail) is not None


def tls_mismatch(url: str, detail: str, *, first_contact: bool = False) -> str | None:
    """The explanation of a failed request ``detail`` when it means the URL's scheme does not
    match the port: an ``https://`` URL to a port that speaks plain HTTP (OpenSSL's words for
    it), or an ``http://`` URL to a port that speaks TLS (an answer in TLS records; or, on
    ``first_contact``, the first request of a session, a server that closed without answering,
    as a TLS server built on OpenSSL does, said as a possibility). None otherwise."""
    lowered = detail.lower()
    if url.lower().startswith("https:"):
        if not any(s in lowered for s in _PLAIN_HTTP_ON_TLS):
            return None
        plain = _at_scheme(url, "http")
        if plain is None:
            return "the TLS handshake failed: the port answered in plain HTTP, not TLS"
        return (
            "the TLS handshake failed: the port answered in plain HTTP, not TLS (the server "
            f"speaks http://, not https://: try {plain})"
        )
    if not url.lower().startswith("http:"):
        return None
    secure = _at_scheme(url, "https")
    try_it = f": try {secure}" if secure is not None else ""
    if _tls_answer(detail):
        return (
            "the server's answer is not HTTP: it begins as a TLS record does, so this port "
            f"likely speaks TLS (https://){try_it}"
        )
    closed = detail.startswith("Server disconnected without sending a response") or (
        detail in ("ReadError", "RemoteProtocolError") or "connection reset" in lowered
    )
    if first_contact and closed:
        return (
            "the server closed the connection without an answer (this port may speak TLS, "
            f"whose servers close a plain HTTP request unanswered{try_it})"
        )
    return None
