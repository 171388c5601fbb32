"""Parsing ``WWW-Authenticate`` (RFC 9110 section 11.6.1) for the Bearer challenge (RFC 6750),
or the DPoP one (RFC 9449).

Several challenges may share one header value (``DPoP algs="ES256", Bearer scope="a b"``), and
httpx joins repeated headers with ", ": the parser walks the challenges and returns the Bearer
one's parameters, names lower-cased, quoted strings unescaped.
"""

from __future__ import annotations

__all__ = ["parse_www_authenticate", "parse_www_authenticate_bearer_challenge", "split_scopes"]

_SEPARATORS = frozenset(' \t,="')


def _skip(text: str, pos: int, chars: str) -> int:
    while pos < len(text) and text[pos] in chars:
        pos += 1
    return pos


def _read_token(text: str, pos: int) -> tuple[str, int]:
    start = pos
    while pos < len(text) and text[pos] not in _SEPARATORS:
        pos += 1
    return text[start:pos], pos


def _read_value(text: str, pos: int) -> tuple[str, int]:
    pos = _skip(text, pos, " \t")
    if pos < len(text) and text[pos] == '"':
        pos += 1
        chars: list[str] = []
        while pos < len(text) and text[pos] != '"':
            if text[pos] == "\\" and pos + 1 < len(text):
                pos += 1
            chars.append(text[pos])
            pos += 1
        return "".join(chars), pos + 1
    start = pos
    while pos < len(text) and text[pos] not in " \t,":
        pos += 1
    return text[start:pos], pos


def parse_www_authenticate(header_value: str | None) -> list[tuple[str, dict[str, str]]]:
    """Every challenge in ``header_value`` as ``(scheme in lower case, parameters)``.

    A token68 credential (``Basic abc==``) is not kept; the first of repeated parameters wins.
    """
    challenges: list[tuple[str, dict[str, str]]] = []
    if not header_value:
        return challenges
    text = header_value
    pos = 0
    while pos < len(text):
        pos = _skip(text, pos, " \t,")
        if pos >= len(text):
            break
        token, after = _read_token(text, pos)
        if not token:
            pos += 1
            continue
        probe = _skip(text, after, " \t")
        if probe < len(text) and text[probe] == "=" and challenges:
            value, pos = _read_value(text, probe + 1)
            challenges[-1][1].setdefault(token.lower(), value)
            continue
        if probe < len(text) and text[probe] == "=":
            # A parameter before any scheme: malformed, skip it.
            _, pos = _read_value(text, probe + 1)
            continue
        challenges.append((token.lower(), {}))
        pos = after
    return challenges


def parse_www_authenticate_bearer_challenge(header_value: str | None) -> dict[str, str]:
    """The parameters of the Bearer challenge in ``header_value``, else of its DPoP challenge
    (RFC 9449 section 7.1: a server that takes DPoP tokens only challenges with that scheme,
    with the same parameters), ``{}`` when there is neither: ``error``,
    ``error_description``, ``scope``, ``resource_metadata``, ``realm``..."""
    challenges = dict(reversed(parse_www_authenticate(header_value)))  # the first of each wins
    return challenges["bearer"] if "bearer" in challenges else challenges.get("dpop", {})


def split_scopes(value: str | None) -> tuple[str, ...]:
    """A space-delimited scope string as a tuple, duplicates and empty items dropped."""
    if not value:
        return ()
    return tuple(dict.fromkeys(item for item in value.split() if item))
