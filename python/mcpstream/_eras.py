"""The protocol's eras, below every layer that speaks of them (the transport's core, the
client, telemetry): the versions this client speaks in each, what a client says of itself when
it negotiates (``Negotiation``) and what the negotiation found (``Negotiated``). Values only;
the rules of the eras are ``_http.core.era``'s, the negotiation ``_http.core.modern``'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["LEGACY_VERSIONS", "MODERN_VERSIONS", "Negotiated", "Negotiation"]

MODERN_VERSIONS = ("2026-07-28",)
"""The modern versions this client speaks, newest first."""
LEGACY_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
"""The handshake-era versions this client speaks, newest first."""


@dataclass(frozen=True, slots=True)
class Negotiation:
    """What a client says of itself when it negotiates (``capabilities``, ``client_info``),
    the era or version it pins (``era``: None to detect it, ``"modern"``, ``"legacy"``,
    ``"http+sse"`` or a version), the time the negotiation may take (None: the server's
    call timeout), and ``meta``: entries of ``params._meta`` for the negotiation's requests
    (the W3C trace context of the host's span, for one)."""

    capabilities: Mapping[str, Any]
    client_info: Mapping[str, Any]
    era: str | None = None
    timeout_s: float | None = None
    meta: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class Negotiated:
    """The era a transport negotiated: ``modern`` or not, the protocol ``version``, the
    server's answer (the ``server/discover`` or ``initialize`` result), and the ``transport``:
    ``"streamable-http"``, or ``"http+sse"`` for the 2024-11-05 HTTP+SSE transport (the
    handshake era on the old transport, see ``sse_legacy``)."""

    modern: bool
    version: str
    result: dict[str, Any]
    transport: str = "streamable-http"

    @property
    def era(self) -> str:
        """``"2026"`` style name of the era: ``modern`` or ``legacy``."""
        return "modern" if self.modern else "legacy"
