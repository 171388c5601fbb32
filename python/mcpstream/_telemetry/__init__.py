"""OpenTelemetry for the clients and the drop-in transports (docs/telemetry.md): whether to
record each message they send, decided without importing OpenTelemetry.

A client's or transport's ``Telemetry`` is asked, for each message it sends (``begin``), whether
to record it. A host that never imported ``opentelemetry`` cannot have configured a tracer or
meter provider, so the answer is then found in ``sys.modules`` alone: nothing is imported or
computed. Otherwise ``otel`` (which imports the OpenTelemetry API) opens the span, carries its
context in ``params._meta`` and records the duration, when a provider is configured. The
conventions' rules that need no OpenTelemetry are in ``semconv``.

The package's modules, from the bottom up: ``semconv`` (names and attributes, no
OpenTelemetry), ``otel`` (the API calls, imported only once the host loaded OpenTelemetry) and
this gate, the drivers' one entry.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from .semconv import Message, Negotiating, TelemetryState

if TYPE_CHECKING:
    from .otel import Operation, Served

__all__ = ["OTEL_MODULES", "Message", "Negotiating", "Telemetry", "otel_loaded"]

OTEL_MODULES = ("opentelemetry.trace", "opentelemetry.metrics")
"""The API modules a host imports to configure a provider (directly, or through the SDK's
``set_tracer_provider`` and the auto-instrumentation): without one of them loaded, nothing is
configured."""


def otel_loaded() -> bool:
    """Whether the host loaded OpenTelemetry's API (``OTEL_MODULES``): without it, no message
    is recorded (``Telemetry.begin`` is None)."""
    modules = sys.modules
    return OTEL_MODULES[0] in modules or OTEL_MODULES[1] in modules


class Telemetry(TelemetryState):
    """One client's or transport's telemetry (its state: ``TelemetryState``), asked before each
    message it sends."""

    __slots__ = ()

    def begin(self, step: Any, protocol_version: str | None, transport: object) -> Operation | None:
        """The recording of ``step``, a message (a ``method`` and ``params``: a client's
        ``Request`` or ``Notify``, a transport's ``Message``) or a negotiation (with a
        ``negotiation`` or an ``era``): ``with`` it gives the step to send instead. None when
        there is nothing to record: no OpenTelemetry loaded, no provider configured, a step
        that sends no MCP message."""
        if not otel_loaded():
            return None
        from . import otel  # only once the host loaded OpenTelemetry

        return otel.begin(self, step, protocol_version, transport)

    def serve(self, method: str, params: Any, request_id: object) -> Served | None:
        """The recording of the client's answer to the server's request ``method`` (a
        ``SERVER`` span; ``with`` it around the answer), or None when there is nothing to
        record (as ``begin``)."""
        modules = sys.modules
        if OTEL_MODULES[0] not in modules:
            return None
        from . import otel  # only once the host loaded OpenTelemetry

        return otel.serve(method, params, request_id)

    def end_session(self) -> None:
        """Record the duration of the session (the client is closing)."""
        if self.session is None:
            return
        from . import otel  # a session was measured: OpenTelemetry is loaded

        otel.end_session(self, None)
