"""Which scopes to ask for, following the MCP specification's scope selection strategy.

- ``login``: the configured scopes (plus the challenge's, which the server needs); else the
  ``scope`` of the 401 challenge; else every scope in the protected resource metadata's
  ``scopes_supported``; else none, and the ``scope`` parameter is left out.
- ``step_up`` (403 ``insufficient_scope``): the scopes already granted, plus the challenge's,
  plus the configured ones: the union, so the new token loses nothing the old one had.
- ``refresh``: the scopes already granted (asking for more is an error at refresh time).
- ``client_credentials``: as ``login``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from .challenge import split_scopes

__all__ = ["ScopePurpose", "merge_scopes", "resolve_requested_scopes"]

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
