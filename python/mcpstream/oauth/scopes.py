"""Which scopes to ask for, following the MCP specification's scope selection strategy.

- ``login``: the configured scopes (plus the challenge's, which the server needs); else the
  ``scope`` of the 401 challenge; else every scope in the protected resource metadata's
  ``scopes_supported``; else none, and the ``scope`` parameter is left out.
- ``step_up`` (403 ``insufficient_scope``): the scopes already granted, plus the challenge's,
  plus the configured ones: the union, so the new token loses nothing the old one had.
- ``refresh``: the scopes already granted (asking for more is an error at refresh time).
- ``client_credentials``: as ``login``.

:func:`with_offline_access` then adds or removes ``offline_access`` for a user's login: asked
for only where the authorization server's metadata lists it in ``scopes_supported``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from .challenge import split_scopes

__all__ = [
    "OFFLINE_ACCESS",
    "ScopePurpose",
    "merge_scopes",
    "resolve_requested_scopes",
    "with_offline_access",
]

OFFLINE_ACCESS = "offline_access"

ScopePurpose = Literal["login", "step_up", "refresh", "client_credentials"]


def merge_scopes(*groups: Iterable[str] | None) -> tuple[str, ...]:
    """The union of scope groups, in first-seen order."""
    merged: dict[str, None] = {}
    for group in groups:
        for scope in group or ():
            cleaned = scope.strip()
            if cleaned:
                merged.setdefault(cleaned, None)
    return tuple(merged)


def _as_scopes(value: Iterable[str] | str | None) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return split_scopes(value)
    return merge_scopes(value)


def resolve_requested_scopes(
    *,
    configured_scopes: Iterable[str] | str | None,
    challenge_scope: str | None,
    metadata_scopes_supported: Iterable[str] | None,
    existing_granted_scopes: Iterable[str] | None,
    purpose: ScopePurpose | str,
) -> tuple[str, ...]:
    """The scopes to request for ``purpose`` (see the module docstring); ``()`` means leave the
    ``scope`` parameter out."""
    configured = _as_scopes(configured_scopes)
    challenged = split_scopes(challenge_scope)
    granted = _as_scopes(existing_granted_scopes)
    if purpose == "refresh":
        return granted
    if purpose == "step_up":
        return merge_scopes(granted, challenged, configured)
    if purpose in ("login", "client_credentials"):
        if configured:
            return merge_scopes(configured, challenged)
        if challenged:
            return challenged
        return _as_scopes(metadata_scopes_supported)
    raise ValueError(f"unknown scope purpose {purpose!r}")


def with_offline_access(
    scopes: tuple[str, ...],
    *,
    authorization_server_scopes: Iterable[str] | None,
    configured_scopes: Iterable[str] = (),
) -> tuple[str, ...]:
    """``scopes`` with ``offline_access`` (a refresh token, OpenID Connect) added when the
    authorization server's ``scopes_supported`` lists it, and taken out when it does not (asking
    a server for a scope it does not know is an error; MCP servers should not challenge with it)
    unless the user configured it. Nothing is added to an empty set: that would turn "the
    server's default scopes" into "a refresh token only"."""
    supported = OFFLINE_ACCESS in (authorization_server_scopes or ())
    if supported:
        return merge_scopes(scopes, [OFFLINE_ACCESS]) if scopes else scopes
    if OFFLINE_ACCESS in configured_scopes:
        return scopes
    return tuple(scope for scope in scopes if scope != OFFLINE_ACCESS)
