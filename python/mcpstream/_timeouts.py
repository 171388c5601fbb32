"""Timeouts, one rule for every entry point: the default of each kind of timeout (the table of
docs/limits.md), and the check of a timeout a host gives: None means no limit, and zero, a
negative value or NaN is refused with ``ValueError``."""

from __future__ import annotations

import math

from .models import DEFAULT_CALL_TIMEOUT_S

__all__ = [
    "DEFAULT_CONNECT_TIMEOUT_S",
    "DEFAULT_REQUEST_TIMEOUT_S",
    "DEFAULT_TOOL_TIMEOUT_S",
    "NO_LIMIT_S",
    "call_timeout",
    "check_connect_timeout",
    "check_timeout",
]

DEFAULT_CONNECT_TIMEOUT_S = 10.0
"""How long establishing each HTTP connection to the server (TCP and TLS) may take."""
DEFAULT_REQUEST_TIMEOUT_S = DEFAULT_CALL_TIMEOUT_S
"""Budget of the handshake, a listing, a read, a prompt or a ping (60 s)."""
DEFAULT_TOOL_TIMEOUT_S = 600.0
"""Budget of a tool call: tools may run for minutes."""

NO_LIMIT_S = 10 * 365 * 86400.0
"""What a timeout of None (or ``math.inf``) becomes: ten years, a bound no call reaches, kept
finite so that every deadline, socket timeout and wait stays a plain number."""


def check_timeout(name: str, value: float | None) -> float:
    """``value`` as a float, None (or ``math.inf``) as no limit (``NO_LIMIT_S``); a
    ``ValueError`` naming the argument ``name`` for zero, a negative value or NaN, a
    ``TypeError`` for a value that is not a number."""
    if type(value) is float and 0 < value <= NO_LIMIT_S:  # the common case, checked first
        return value
    if value is None:
        return NO_LIMIT_S
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(
            f"{name} must be a number of seconds or None (no limit), not {type(value).__name__}"
        )
    if math.isnan(value) or not value > 0:
        raise ValueError(f"{name} must be greater than 0, or None for no limit (not {value!r})")
    return min(float(value), NO_LIMIT_S)


def check_connect_timeout(value: float | None) -> float | None:
    """``connect_timeout_s`` checked: None for no bound of its own (a connection then has the
    call's whole deadline), else as ``check_timeout``."""
    return None if value is None else check_timeout("connect_timeout_s", value)


def call_timeout(value: float | None, default: float) -> float:
    """A call's ``timeout_s``: None for the client's ``default`` (its ``request_timeout_s`` or
    ``tool_timeout_s``), else checked as ``check_timeout`` (``math.inf``: no limit)."""
    return default if value is None else check_timeout("timeout_s", value)
