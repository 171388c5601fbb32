"""OpenTelemetry for the clients and the drop-in transports (docs/telemetry.md): what is
recorded of each message they send, by the MCP semantic conventions, decided here without
importing OpenTelemetry.

A client's or transport's ``Telemetry`` is asked, for each message it sends (``begin``), whether
to record it. A host that never imported ``opentelemetry`` cannot have
configured a tracer or meter provider, so the answer is then found in ``sys.modules`` alone:
nothing is imported or computed. Otherwise ``_otel`` (which imports the OpenTelemetry API) opens
the span, carries its context in ``params._meta`` and records the duration, when a provider is
configured.

This module holds the conventions' rules that need no OpenTelemetry: the span's name and
attributes for a method and its params, the address of the server, the ``error.type`` of a
failure.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from .errors import McpError
from .redaction import url_without_secrets
from .server_requests import McpServerRequestHandlerError

if TYPE_CHECKING:
    from ._otel import Operation, Served

__all__ = [
    "OTEL_MODULES",
    "Message",
    "Negotiating",
    "SessionClock",
    "Telemetry",
    "error_type",
    "operation_attributes",
    "server_endpoint",
]

OTEL_MODULES = ("opentelemetry.trace", "opentelemetry.metrics")
"""The API modules a host imports to configure a provider (directly, or through the SDK's
``set_tracer_provider`` and the auto-instrumentation): without one of them loaded, nothing is
configured."""

_RESOURCE_METHODS = frozenset(
    {"resources/read", "resources/subscribe", "resources/unsubscribe", "skills/get"}
)
"""The requests whose ``params.uri`` is the ``mcp.resource.uri`` of the span."""

_DEFAULT_PORTS = {"http": 80, "https": 443}


def server_endpoint(url: str) -> tuple[str | None, int | None]:
    """The ``server.address`` and ``server.port`` of the server at ``url`` (the host without
    userinfo; the scheme's default port when the URL names none); Nones when it has no host."""
    try:
        split = urlsplit(url)
        host, port = split.hostname, split.port
    except ValueError:
        return None, None
    if not host:
        return None, None
    return host, port if port is not None else _DEFAULT_PORTS.get(split.scheme.lower())


def operation_attributes(method: str, params: Any) -> tuple[str, dict[str, str]]:
    """The span name (``{mcp.method.name} {target}``, the target being the tool's or the
    prompt's name) and the attributes the method and its ``params`` give. A resource URI is
    kept without its userinfo, query and fragment (``redaction``), and never in the name (the
    conventions keep names low in cardinality)."""
    attributes = {"mcp.method.name": method}
    name = method
    if isinstance(params, Mapping):
        if method == "tools/call" or method == "prompts/get":
            target = params.get("name")
            if isinstance(target, str):
                name = f"{method} {target}"
                key = "gen_ai.tool.name" if method == "tools/call" else "gen_ai.prompt.name"
                attributes[key] = target
        elif method in _RESOURCE_METHODS:
            uri = params.get("uri")
            if isinstance(uri, str):
                attributes["mcp.resource.uri"] = url_without_secrets(uri)
    if method == "tools/call":
        attributes["gen_ai.operation.name"] = "execute_tool"
    return name, attributes


def error_type(exc: BaseException) -> str:
    """The ``error.type`` of a failure: the JSON-RPC code of an ``McpError`` (or of the error a
    handler of a server request answers with), else the class's name (the ``mcpstream.errors``
    classes, ``CancelledError``...)."""
    if isinstance(exc, McpError | McpServerRequestHandlerError):
        return str(exc.code)
    return type(exc).__qualname__


@dataclass(frozen=True, slots=True)
class Message:
    """A request or notification a drop-in transport sends (what ``begin`` records; the
    clients' steps have the same two fields)."""

    method: str
    params: Any


@dataclass(frozen=True, slots=True)
class Negotiating:
    """The negotiation of a drop-in transport (``era``: as ``Negotiation.era``)."""

    era: str | None


@dataclass(frozen=True, slots=True)
class SessionClock:
    """When the session being measured began (``time.perf_counter``) and its version."""

    started: float
    protocol_version: str


class Telemetry:
    """One client's telemetry: the server's address, whether to carry the trace context in
    ``params._meta`` (``trace_context``), and the session being measured (for
    ``mcp.client.session.duration``)."""

    __slots__ = ("server_address", "server_port", "session", "trace_context")

    def __init__(self, url: str, *, trace_context: bool) -> None:
        self.server_address, self.server_port = server_endpoint(url)
        self.trace_context = trace_context
        self.session: SessionClock | None = None

    def begin(self, step: Any, protocol_version: str | None, transport: object) -> Operation | None:
        """The recording of ``step``, a message (a ``method`` and ``params``: a client's
        ``Request`` or ``Notify``, a transport's ``Message``) or a negotiation (with a
        ``negotiation`` or an ``era``): ``with`` it gives the step to send instead. None when
        there is nothing to record: no OpenTelemetry loaded, no provider configured, a step
        that sends no MCP message."""
        modules = sys.modules
        if OTEL_MODULES[0] not in modules and OTEL_MODULES[1] not in modules:
            return None
        from . import _otel  # only once the host loaded OpenTelemetry

        return _otel.begin(self, step, protocol_version, transport)

    def serve(self, method: str, params: Any, request_id: object) -> Served | None:
        """The recording of the client's answer to the server's request ``method`` (a
        ``SERVER`` span; ``with`` it around the answer), or None when there is nothing to
        record (as ``begin``)."""
        modules = sys.modules
        if OTEL_MODULES[0] not in modules:
            return None
        from . import _otel  # only once the host loaded OpenTelemetry

        return _otel.serve(method, params, request_id)

    def end_session(self) -> None:
        """Record the duration of the session (the client is closing)."""
        if self.session is None:
            return
        from . import _otel  # a session was measured: OpenTelemetry is loaded

        _otel.end_session(self, None)
