"""Keeping secrets out of messages: URLs without credentials, bodies cut to a safe length, and
known secrets scrubbed from text in every form a server or a library may echo them in."""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable, Iterator
from urllib.parse import quote, quote_plus, unquote, urlsplit, urlunsplit

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
    caught through its tail, which is the secret's base64 when aligned). These are the forms of
    the secret alone; :func:`scrub_secrets` also finds it inside larger encoded values."""
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
    """``text`` with each secret removed wherever it stands, in every form a server or a library
    may echo it in: as is or stripped; with any of its characters %-encoded (in either case,
    encoded again: a form body quoted in a URL) or ``+`` for a space; JSON- or Python-escaped
    (``\\uXXXX``, ``\\xXX``, ``\\"``, ``\\/``, ``\\n``..., escaped again); and inside a
    base64 or base64url value, alone or with anything around it (``client_id:secret`` of HTTP
    Basic, a form body, a JSON document: the whole value is then redacted). Each becomes
    ``<redacted>``. Secrets shorter than four characters are left alone (they would scrub
    ordinary words)."""
    wanted = _variants(secrets)
    if not wanted or not text:
        return text
    text = _redact_spans(text, _found(text, wanted))
    return _B64_RUN.sub(lambda run: _scrub_run(run.group(), wanted, _B64_DEPTH), text)


def _variants(secrets: Iterable[str | None]) -> tuple[str, ...]:
    """What to look for in decoded text: each secret and its stripped form, and those as the
    characters of their UTF-8 bytes (what ``%C3%A9`` or ``\\xc3\\xa9`` decode to here) and
    with UTF-16 surrogates (what JSON's ``\\ud83d\\ude00`` decodes to)."""
    found: set[str] = set()
    for secret in secrets:
        if not secret or len(secret.strip()) < _MIN_SECRET_CHARS:
            continue
        for text in (secret, secret.strip()):
            found.add(text)
            found.add(text.encode("utf-8").decode("latin-1"))
            found.add(
                "".join(
                    chr(0xD800 + ((ord(c) - 0x10000) >> 10)) + chr(0xDC00 + (ord(c) & 0x3FF))
                    if ord(c) > 0xFFFF
                    else c
                    for c in text
                )
            )
    return tuple(sorted(found, key=len, reverse=True))


_UNIT = re.compile(
    r"%(?P<pct>[0-9A-Fa-f]{2})"
    r"|\\(?:u(?P<u>[0-9A-Fa-f]{4})|x(?P<x>[0-9A-Fa-f]{2})|U(?P<U>[0-9A-Fa-f]{8})"
    r"|(?P<short>[nrtbf\"'\\/]))"
)
"""One encoded character: ``%XX``, or a JSON or Python escape."""
_SHORT = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f"}
_LAYERS = 3
"""How many times over an echo may be encoded (``%252F``: twice; ``\\\\\\"``: twice)."""


def _unit_char(match: re.Match[str]) -> str:
    for group in ("pct", "u", "x", "U"):
        digits = match.group(group)
        if digits is not None:
            code = int(digits, 16)
            return chr(code) if code <= 0x10FFFF else "\ufffd"
    short = match.group("short")
    return _SHORT.get(short, short)


def _decode_layer(
    text: str, starts: list[int], ends: list[int]
) -> tuple[str, list[int], list[int]]:
    """``text`` with each encoded character decoded, and where each character of the result
    came from in the original text (``starts``/``ends``: those of ``text``'s characters)."""
    parts: list[str] = []
    new_starts: list[int] = []
    new_ends: list[int] = []
    at = 0
    for match in _UNIT.finditer(text):
        begin, end = match.span()
        parts.append(text[at:begin])
        new_starts.extend(starts[at:begin])
        new_ends.extend(ends[at:begin])
        parts.append(_unit_char(match))
        new_starts.append(starts[begin])
        new_ends.append(ends[end - 1])
        at = end
    parts.append(text[at:])
    new_starts.extend(starts[at:])
    new_ends.extend(ends[at:])
    return "".join(parts), new_starts, new_ends


def _layers(
    text: str, starts: list[int], ends: list[int], *, spaces: bool, depth: int = _LAYERS
) -> Iterator[tuple[str, list[int], list[int]]]:
    """``text`` as it is and decoded once, twice... (while anything decodes), each with the
    original span of every character. With ``spaces`` (a secret has one), each layer is also
    read as a form body first: ``+`` is a space there, and what decodes to ``+`` is not."""
    yield text, starts, ends
    forms = [text]
    if spaces and "+" in text:
        forms.append(text.replace("+", " "))
        yield forms[-1], starts, ends
    if depth == 0 or not _UNIT.search(text):
        return
    for form in forms:
        decoded, new_starts, new_ends = _decode_layer(form, starts, ends)
        yield from _layers(decoded, new_starts, new_ends, spaces=spaces, depth=depth - 1)


def _found(text: str, wanted: tuple[str, ...]) -> list[tuple[int, int]]:
    """The spans of ``text`` that are, decoded, one of ``wanted``."""
    spans: list[tuple[int, int]] = []
    starts, ends = list(range(len(text))), list(range(1, len(text) + 1))
    spaces = any(" " in secret for secret in wanted)
    for decoded, at_start, at_end in _layers(text, starts, ends, spaces=spaces):
        for secret in wanted:
            at = decoded.find(secret)
            while at >= 0:
                spans.append((at_start[at], at_end[at + len(secret) - 1]))
                at = decoded.find(secret, at + len(secret))
    return spans


def _redact_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with each of ``spans`` (merged where they touch) replaced by ``<redacted>``."""
    if not spans:
        return text
    parts: list[str] = []
    at = 0
    for begin, end in _merged(spans):
        parts.append(text[at:begin])
        parts.append(REDACTED)
        at = end
    parts.append(text[at:])
    return "".join(parts)


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for begin, end in sorted(spans):
        if merged and begin <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((begin, end))
    return merged


_B64_RUN = re.compile(r"(?:[A-Za-z0-9+/_-]|%2[BbFf]){6,}(?:=|%3[Dd]){0,2}")
"""A run of base64 or base64url characters (``%``-encoded as a form body writes them), at least
as long as the base64 of a four-character secret."""
_B64_DEPTH = 2
"""How many base64 layers are looked through (a Basic value quoted in a base64 document)."""


def _decodings(run: str) -> Iterator[str]:
    """``run`` decoded as base64 from each of its first four characters on (the value it
    belongs to may start anywhere in the run), as text."""
    run = unquote(run).replace("-", "+").replace("_", "/").rstrip("=")
    for start in range(4):
        part = run[start:]
        part = part[: len(part) - 1] if len(part) % 4 == 1 else part
        try:
            data = base64.b64decode(part + "=" * (-len(part) % 4))
        except ValueError:
            continue
        yield data.decode("utf-8", errors="replace")


def _scrub_run(run: str, wanted: tuple[str, ...], depth: int) -> str:
    """``<redacted>`` when the base64 ``run`` carries a secret (in any form, in up to ``depth``
    base64 layers), else ``run``."""
    for decoded in _decodings(run):
        if _found(decoded, wanted):
            return REDACTED
        if depth > 1 and any(
            _scrub_run(inner.group(), wanted, depth - 1) == REDACTED
            for inner in _B64_RUN.finditer(decoded)
        ):
            return REDACTED
    return run
