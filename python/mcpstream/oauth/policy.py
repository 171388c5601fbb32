"""The scheme and TLS policy of every OAuth URL, in one place.

Every URL that OAuth fetches or hands to a browser (the protected resource metadata, the
authorization server's metadata and each endpoint it names, the registration, token,
revocation and JWKS endpoints, the authorization URL) must be ``https://``, or ``http://`` to a
loopback host only (``127.0.0.0/8``, ``::1``, ``localhost``: development servers on this
machine, RFC 8252). So a client secret, a code or a token never travels in clear text beyond
this machine, and a server's metadata can never make the browser open ``file:``,
``javascript:``, a UNC path or a protocol handler such as ``ms-msdt:`` (CVE-2025-6514).

The policy is applied where server-controlled URLs are parsed (:mod:`.metadata`) and again at
the root, by the OAuth drivers before any request is sent and before any prompt is shown.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from .._text import sanitize
from ..redaction import url_without_secrets

__all__ = ["InsecureOAuthUrlError", "check_oauth_url", "is_loopback_host"]


class InsecureOAuthUrlError(ValueError):
    """A URL the policy refuses (the message names the URL without query or userinfo)."""


def is_loopback_host(host: str) -> bool:
    """Whether ``host`` is ``localhost`` or a loopback address (``127.0.0.0/8``, ``::1``)."""
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_oauth_url(url: str, what: str = "OAuth URL") -> str:
    """Return ``url`` when the policy allows it; raise :class:`InsecureOAuthUrlError` when it
    is not an absolute ``https://`` URL, or an ``http://`` URL to a loopback host."""
    shown = sanitize(url_without_secrets(url), 120)
    # No whitespace or control character anywhere (the URL is printed to a terminal and handed
    # to a browser), and no backslash (a UNC path, or a host that parsers disagree on).
    if "\\" in url or any(ord(ch) <= 0x20 or 0x7F <= ord(ch) <= 0x9F for ch in url):
        raise InsecureOAuthUrlError(f"the {what} {shown!r} is not a well-formed URL")
    try:
        split = urlsplit(url)
        host = split.hostname
        split.port  # noqa: B018 - raises ValueError for a bad port
    except ValueError:
        raise InsecureOAuthUrlError(f"the {what} {shown!r} is not a well-formed URL") from None
    scheme = split.scheme.lower()
    if not host or scheme not in ("https", "http"):
        raise InsecureOAuthUrlError(
            f"the {what} {shown!r} is not an absolute https:// URL; mcpstream refuses it"
        )
    if scheme == "http" and not is_loopback_host(host):
        raise InsecureOAuthUrlError(
            f"the {what} {shown!r} is plain http:// to a host that is not loopback; OAuth "
            "needs https:// (http:// is allowed only for 127.0.0.0/8, ::1 and localhost)"
        )
    return url
