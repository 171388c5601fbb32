"""The MCP semantic conventions' rules that need no OpenTelemetry (the gate in ``__init__`` and
``otel`` use them): the span's name and attributes for a method and its params, the address of the
server, the ``error.type`` of a failure, and the state a client or transport keeps for its
telemetry."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ..errors import McpError
from ..redaction import url_without_secrets
from ..server_requests import McpServerRequestHandlerError

__all__ = [
    "Message",
    "Negotiating",
    "SessionClock",
    "TelemetryState",
    "error_type",
    "operation_attributes",
    "server_endpoint",
]

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


class TelemetryState:
    """A client's or transport's telemetry state: the server's address, whether to carry the
    trace context in ``params._meta`` (``trace_context``), and the session being measured (for
    ``mcp.client.session.duration``)."""

    __slots__ = ("server_address", "server_port", "session", "trace_context")

    def __init__(self, url: str, *, trace_context: bool) -> None:
        self.server_address, self.server_port = server_endpoint(url)
        self.trace_context = trace_context
        self.session: SessionClock | None = None
