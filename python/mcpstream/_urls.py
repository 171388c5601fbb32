"""The check of a server URL, one rule for every entry point (``Client``, ``AsyncClient``, the
command, the drop-in transports): an ``http://`` or ``https://`` URL with a host and a valid
port, which httpx can parse, or a ``ValueError`` that names the bad part without quoting the
URL's userinfo, query or fragment (they may hold secrets)."""

from __future__ import annotations

import functools
import re
from urllib.parse import SplitResult, urlsplit

import httpx

from ._text import sanitize
from .redaction import redact_url

__all__ = ["check_url"]

_EXAMPLE = "such as http://127.0.0.1:8000/mcp"
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def check_url(url: str) -> SplitResult:
    """``url`` split, when it is an ``http://`` or ``https://`` URL with a host and a valid
    port; else a ``ValueError`` that names what is wrong (never quoting the URL's userinfo,
    query or fragment, which may hold secrets)."""
    if type(url) is str:
        # A session checks its URL twice as it is made, and a host opening a session per
        # call checks the same few URLs over and over: a URL that passed is remembered (a
        # ``SplitResult`` is immutable; a URL that fails raises each time).
        return _checked(url)
    return _check(url)


@functools.lru_cache(maxsize=256)
def _checked(url: str) -> SplitResult:
    return _check(url)


def _check(url: str) -> SplitResult:
    if not isinstance(url, str) or not url.strip():
        raise ValueError(f"the server URL is empty: give an http:// or https:// URL, {_EXAMPLE}")
    control = _CONTROL.search(url.strip())
    if control is not None:
        raise ValueError(
            "the server URL contains a control character (a tab, a line break, a NUL...) at "
            f"position {control.start()}; give one {_EXAMPLE}"
        )
    try:
        parts = urlsplit(url.strip())
    except ValueError as exc:  # a bracketed IPv6 host without its ']', say
        raise ValueError(f"the server URL is malformed ({exc}); give one {_EXAMPLE}") from None
    if "://" not in url:
        guess = redact_url("http://" + url.strip())
        hint = f" (did you mean {guess}?)" if guess != "<unparseable URL>" else ""
        raise ValueError(f"the server URL has no http:// or https:// scheme{hint}")
    if parts.scheme.lower() not in ("http", "https"):
        raise ValueError(
            f"the server URL's scheme {sanitize(parts.scheme, 20)!r} is not http or https: "
            f"MCP over HTTP needs an http:// or https:// URL, {_EXAMPLE}"
        )
    if not parts.hostname:
        raise ValueError(f"the server URL has no host; give one {_EXAMPLE}")
    try:
        port = parts.port
    except ValueError:
        port = -1
    if port is not None and not 0 < port < 65536:
        written = parts.netloc.rpartition("@")[2].rpartition(":")[2]
        # Not quoted when an '@' follows: in "http://user:pass/word@host", what urlsplit takes
        # for the host's port is the start of the password.
        secret = "@" in url.partition("://")[2]
        quoted = "" if secret and not written.isdigit() else f" {sanitize(written, 20)!r}"
        raise ValueError(f"the server URL's port{quoted} is not a port number (1 to 65535)")
    try:
        httpx.URL(url.strip())
    except httpx.InvalidURL:
        # httpx's own message may quote a part of the URL (a password, say): not repeated.
        raise ValueError(
            f"the server URL is malformed (httpx cannot parse it); give one {_EXAMPLE}"
        ) from None
    return parts
