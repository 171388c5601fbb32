"""The OpenTelemetry calls of the clients' and transports' telemetry (the package's gate decides
whether they are made; this module imports the OpenTelemetry API and is imported only once a
host loaded it).

One ``Operation`` per MCP message sent: a ``CLIENT`` span, current while the
message is out (the host's handlers of server requests during the call, and the spans of an
instrumented HTTP library on the calling thread or task, nest under it), the W3C trace context
of that span in ``params._meta``, and the ``mcp.client.operation.duration`` histogram. The
negotiation is an operation too, named after what it opened (``initialize`` or
``server/discover``); its end starts the session that ``mcp.client.session.duration`` measures.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import replace
from types import TracebackType
from typing import Any, TypeVar

from opentelemetry import context as otel_context
from opentelemetry import metrics, propagate, trace
from opentelemetry.trace import SpanKind, Status, StatusCode

from .._eras import MODERN_VERSIONS, Negotiated, Negotiation
from .._version import __version__
from ..errors import McpHttpTransportSessionExpiredError
from .semconv import SessionClock, TelemetryState, error_type, operation_attributes

try:  # the proxy a meter provider is until one is set (no public name for it)
    from opentelemetry.metrics._internal import _ProxyMeterProvider
except ImportError:  # pragma: no cover - every supported API version has it
    _ProxyMeterProvider = ()  # type: ignore[assignment,misc]

__all__ = ["Operation", "Served", "begin", "end_session", "serve"]

T = TypeVar("T")

SCOPE = "mcpstream"
"""The instrumentation scope of the spans and metrics."""

DURATION_BUCKETS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300)
"""The bucket boundaries (seconds) the conventions advise for both duration histograms."""

_METRIC_KEYS = (
    "mcp.method.name",
    "gen_ai.tool.name",
    "gen_ai.prompt.name",
    "gen_ai.operation.name",
    "mcp.protocol.version",
    "server.address",
    "server.port",
    "network.transport",
    "network.protocol.name",
    "error.type",
    "rpc.response.status_code",
)
"""The span's attributes the operation histogram keeps (not the high-cardinality ones: request
and session ids, resource URIs, which the conventions leave out or make opt-in there)."""

_SESSION_EXPIRED = McpHttpTransportSessionExpiredError.__qualname__


class _Instruments:
    """The tracer and histograms of one pair of providers (made once per provider)."""

    tracer_provider: object = None
    tracer: trace.Tracer | None = None
    meter_provider: object = None
    operation: metrics.Histogram | None = None
    session: metrics.Histogram | None = None


_cache = _Instruments()


def _tracer() -> trace.Tracer | None:
    """The mcpstream tracer of the configured tracer provider; None when none is."""
    provider = trace.get_tracer_provider()
    if isinstance(provider, trace.ProxyTracerProvider):
        return None
    if provider is not _cache.tracer_provider:
        _cache.tracer = provider.get_tracer(SCOPE, __version__)
        _cache.tracer_provider = provider
    return _cache.tracer


def _histograms() -> tuple[metrics.Histogram, metrics.Histogram] | None:
    """The two duration histograms of the configured meter provider; None when none is."""
    provider = metrics.get_meter_provider()
    if isinstance(provider, _ProxyMeterProvider):
        return None
    if provider is not _cache.meter_provider or _cache.operation is None or _cache.session is None:
        meter = provider.get_meter(SCOPE, __version__)
        _cache.operation = meter.create_histogram(
            "mcp.client.operation.duration",
            unit="s",
            description="The duration of the MCP request or notification as observed on the "
            "sender from the time it was sent until the response or ack is received.",
            explicit_bucket_boundaries_advisory=DURATION_BUCKETS,
        )
        _cache.session = meter.create_histogram(
            "mcp.client.session.duration",
            unit="s",
            description="The duration of the MCP session as observed on the MCP client.",
            explicit_bucket_boundaries_advisory=DURATION_BUCKETS,
        )
        _cache.meter_provider = provider
    return _cache.operation, _cache.session


def _common(telemetry: TelemetryState) -> dict[str, Any]:
    """The attributes of every span and measurement of the client's server."""
    common: dict[str, Any] = {"network.transport": "tcp", "network.protocol.name": "http"}
    if telemetry.server_address is not None:
        common["server.address"] = telemetry.server_address
        if telemetry.server_port is not None:
            common["server.port"] = telemetry.server_port
    return common


def _era(step: Any) -> tuple[bool, str | None]:
    """Whether ``step`` is a negotiation, and the era it pins (``Negotiate.negotiation.era``,
    ``Negotiating.era``)."""
    negotiation = getattr(step, "negotiation", step)
    if hasattr(negotiation, "era") and not hasattr(step, "method"):
        era = negotiation.era
        return True, era if isinstance(era, str) else None
    return False, None


def begin(
    telemetry: TelemetryState, step: Any, protocol_version: str | None, transport: object
) -> Operation | None:
    """The operation recording ``step``, or None (no provider configured, or a step that is
    not an MCP message: the listen stream's reopening)."""
    negotiating, _ = _era(step)
    if not negotiating and not isinstance(getattr(step, "method", None), str):
        return None
    tracer = _tracer()
    histograms = _histograms()
    if tracer is None and histograms is None:
        return None
    return Operation(telemetry, step, protocol_version, transport, tracer, histograms)


def end_session(telemetry: TelemetryState, failure: str | None) -> None:
    """Record the measured session's duration (``failure``: its ``error.type``) and forget it."""
    clock, telemetry.session = telemetry.session, None
    histograms = _histograms()
    if clock is None or histograms is None:
        return
    attributes = _common(telemetry)
    attributes["mcp.protocol.version"] = clock.protocol_version
    if failure is not None:
        attributes["error.type"] = failure
    histograms[1].record(time.perf_counter() - clock.started, attributes)


class Operation:
    """The recording of one message: ``with operation as step:`` opens the span (current
    within the block) and gives the step to send (its params carrying the trace context);
    ``done`` reads the outcome; the block's end closes the span and records the duration."""

    __slots__ = (
        "_attributes",
        "_histograms",
        "_negotiating",
        "_session_id",
        "_span",
        "_started",
        "_step",
        "_telemetry",
        "_token",
        "_tracer",
        "name",
    )

    def __init__(
        self,
        telemetry: TelemetryState,
        step: Any,
        protocol_version: str | None,
        transport: object,
        tracer: trace.Tracer | None,
        histograms: tuple[metrics.Histogram, metrics.Histogram] | None,
    ) -> None:
        self._telemetry, self._step = telemetry, step
        self._tracer, self._histograms = tracer, histograms
        negotiating, era = _era(step)
        self._negotiating = negotiating
        if negotiating:
            # Renamed when done: the transport asks for 2026-07-28 first unless the host
            # pinned the handshake era, and falls back to ``initialize``.
            modern = era is None or era == "modern" or era in MODERN_VERSIONS
            method = "server/discover" if modern else "initialize"
            self.name, attributes = operation_attributes(method, None)
            if telemetry.session is not None:  # a new session: the server lost the last one
                end_session(telemetry, _SESSION_EXPIRED)
        else:
            self.name, attributes = operation_attributes(step.method, step.params)
            if protocol_version is not None:
                attributes["mcp.protocol.version"] = protocol_version
        self._attributes: dict[str, Any] = {**attributes, **_common(telemetry)}
        self._span: trace.Span | None = None
        self._token: object = None
        session_id = getattr(transport, "session_id", None)
        self._session_id = session_id if isinstance(session_id, str) and session_id else None
        self._started = 0.0

    def __enter__(self) -> Any:
        step = self._step
        if self._tracer is not None:
            attributes = dict(self._attributes)
            if self._session_id is not None:
                attributes["mcp.session.id"] = self._session_id
            span = self._tracer.start_span(self.name, kind=SpanKind.CLIENT, attributes=attributes)
            self._span = span
            current = trace.set_span_in_context(span)
            self._token = otel_context.attach(current)
            if self._telemetry.trace_context:
                step = (
                    _negotiation_with_trace_context(step, current)
                    if self._negotiating
                    else replace(step, params=_with_trace_context(step.params, current))
                )
        self._started = time.perf_counter()
        return step

    def done(self, outcome: T) -> T:
        """Read ``outcome`` (a response, a ``Negotiated``, None for a notification) into the
        span: the request id, a JSON-RPC error or a tool's error, what was negotiated.
        Returns ``outcome``."""
        if isinstance(outcome, Negotiated):
            method = "server/discover" if outcome.modern else "initialize"
            self.name, self._attributes["mcp.method.name"] = method, method
            self._attributes["mcp.protocol.version"] = outcome.version
            if self._span is not None:
                self._span.update_name(method)
                self._span.set_attributes(
                    {"mcp.method.name": method, "mcp.protocol.version": outcome.version}
                )
            self._telemetry.session = SessionClock(time.perf_counter(), outcome.version)
            return outcome
        request_id = getattr(outcome, "id", None)
        if self._span is not None and isinstance(request_id, int | str):
            self._span.set_attribute("jsonrpc.request.id", str(request_id))
        error = getattr(outcome, "error", None)
        if isinstance(error, Mapping):
            code = str(error.get("code"))
            message = error.get("message")
            self._fail(code, message if isinstance(message, str) else None)
            self._attributes["rpc.response.status_code"] = code
            if self._span is not None:
                self._span.set_attribute("rpc.response.status_code", code)
        elif self._attributes["mcp.method.name"] == "tools/call":
            result = getattr(outcome, "result", None)
            if isinstance(result, Mapping) and result.get("isError") is True:
                self._fail("tool_error", None)
        return outcome

    def _fail(self, kind: str, description: str | None) -> None:
        self._attributes["error.type"] = kind
        if self._span is not None:
            self._span.set_attribute("error.type", kind)
            self._span.set_status(Status(StatusCode.ERROR, description))

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        elapsed = time.perf_counter() - self._started
        span = self._span
        if exc is not None:
            self._fail(error_type(exc), str(exc) or None)
            if span is not None:
                span.record_exception(exc)
        if span is not None:
            span.end()
            otel_context.detach(self._token)  # type: ignore[arg-type]
        if self._histograms is not None:
            attributes = self._attributes
            kept = {key: attributes[key] for key in _METRIC_KEYS if key in attributes}
            self._histograms[0].record(elapsed, kept)


def _with_trace_context(params: Any, current: otel_context.Context) -> Any:
    """``params`` with the W3C trace context of ``current`` (``traceparent``, ``tracestate``,
    and ``baggage`` with the default propagators) in ``_meta``, each key only where the host's
    ``_meta`` has none; params that are not an object are left as they are."""
    carrier: dict[str, str] = {}
    propagate.inject(carrier, context=current)
    if not carrier or not (params is None or isinstance(params, Mapping)):
        return params
    out = dict(params) if params is not None else {}
    meta = out.get("_meta")
    if meta is not None and not isinstance(meta, Mapping):
        return params
    out["_meta"] = {**carrier, **meta} if meta else carrier
    return out


def _negotiation_with_trace_context(step: Any, current: otel_context.Context) -> Any:
    """A negotiation step (a ``Negotiation``, or a step holding one as ``negotiation``) whose
    requests carry the W3C trace context of ``current`` in ``_meta`` (``Negotiation.meta``),
    each key only where the negotiation's own ``meta`` has none."""
    carrier: dict[str, str] = {}
    propagate.inject(carrier, context=current)
    negotiation = getattr(step, "negotiation", step)
    if not carrier or not isinstance(negotiation, Negotiation):
        return step
    traced = replace(negotiation, meta={**carrier, **(negotiation.meta or {})})
    return traced if negotiation is step else replace(step, negotiation=traced)


def serve(method: str, params: Any, request_id: object) -> Served | None:
    """The ``SERVER`` span of the client's answer to a server request, or None (no tracer
    provider configured)."""
    tracer = _tracer()
    return Served(tracer, method, params, request_id) if tracer is not None else None


def _extracted(params: Any) -> otel_context.Context | None:
    """The trace context the server sent in ``params._meta``, or None (none, or not valid)."""
    meta = params.get("_meta") if isinstance(params, Mapping) else None
    if not isinstance(meta, Mapping) or not meta:
        return None
    try:
        extracted = propagate.extract(meta)
    except (TypeError, ValueError):
        return None
    return extracted if trace.get_current_span(extracted).get_span_context().is_valid else None


class Served:
    """The ``SERVER`` span of the client's answer to one server request (elicitation,
    sampling, roots, an input request of 2026-07-28), the conventions' span of an operation the
    server initiates: its parent is the context the server sent in ``_meta`` (else the current
    one, the span of the call the request came during, when it came on the call's stream), and
    a different current span is linked. Current while the host's handler runs."""

    __slots__ = ("_attributes", "_parent", "_span", "_token", "_tracer", "name")

    def __init__(self, tracer: trace.Tracer, method: str, params: Any, request_id: object) -> None:
        self._tracer = tracer
        self.name, attributes = operation_attributes(method, params)
        if isinstance(request_id, int | str) and not isinstance(request_id, bool):
            attributes["jsonrpc.request.id"] = str(request_id)
        self._attributes = attributes
        self._parent = _extracted(params)
        self._span: trace.Span | None = None
        self._token: object = None

    def __enter__(self) -> Served:
        links = []
        if self._parent is not None:
            ambient = trace.get_current_span().get_span_context()
            if ambient.is_valid:
                links.append(trace.Link(ambient))
        span = self._tracer.start_span(
            self.name,
            context=self._parent,
            kind=SpanKind.SERVER,
            attributes=self._attributes,
            links=links,
        )
        self._span = span
        self._token = otel_context.attach(trace.set_span_in_context(span))
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        span = self._span
        assert span is not None
        if exc is not None:
            span.set_attribute("error.type", error_type(exc))
            span.set_status(Status(StatusCode.ERROR, str(exc) or None))
            span.record_exception(exc)
        span.end()
        otel_context.detach(self._token)  # type: ignore[arg-type]
