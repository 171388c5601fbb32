"""OpenTelemetry of ``Client``, ``AsyncClient`` and the drop-in transports
(``mcpstream._telemetry``: its gate, ``semconv`` and ``otel``) against the official SDK's
server (the demo server, on a thread of this process), recorded by the OpenTelemetry SDK's
in-memory span exporter and metric reader: one CLIENT span per message with the MCP semantic
conventions' name and attributes, under the host's span; the server's own spans (the SDK makes
them from the ``_meta`` it received) under the client's; errors; the duration metrics; nothing
at all without a provider.

A process has one global tracer and meter provider, and the SDK's server caches the tracer of
the first: the ``otel`` fixture installs the same providers for each test and takes them away
after it, so the other tests of the process run without a provider (and record nothing)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from mcpstream import AsyncClient, Client, McpError, SamplingRequest, SamplingResponse
from mcpstream._telemetry.semconv import error_type, operation_attributes, server_endpoint
from mcpstream.demo import DemoServer
from mcpstream.errors import McpHttpTransportError, McpHttpTransportSessionExpiredError
from mcpstream.models import ResolvedMcpServer
from mcpstream.transport_http import McpHttpTransport
from mcpstream.transport_http_async import AsyncMcpHttpTransport
from opentelemetry import metrics, trace
from opentelemetry.metrics import _internal as metrics_internal
from opentelemetry.sdk.metrics import Histogram, MeterProvider
from opentelemetry.sdk.metrics.export import (
    AggregationTemporality,
    HistogramDataPoint,
    InMemoryMetricReader,
)
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode
from opentelemetry.util._once import Once
from transport.helpers import free_port

ERAS = {"legacy": ("2025-11-25", "initialize"), "modern": ("2026-07-28", "server/discover")}
HOST_TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


class _Switched(SimpleSpanProcessor):
    """Exports only while a test of this file runs (the SDK's server keeps the provider's
    tracer for the rest of the process)."""

    on = False

    def on_end(self, span: ReadableSpan) -> None:
        if self.on:
            super().on_end(span)


_EXPORTER = InMemorySpanExporter()
_PROCESSOR = _Switched(_EXPORTER)
_TRACER_PROVIDER = TracerProvider()
_TRACER_PROVIDER.add_span_processor(_PROCESSOR)
# Delta: each read holds what was recorded since the last (the fixture reads before each test).
_READER = InMemoryMetricReader(preferred_temporality={Histogram: AggregationTemporality.DELTA})
_METER_PROVIDER = MeterProvider(metric_readers=[_READER])


def _reset_globals() -> None:
    # What opentelemetry-test-utils' reset_trace_globals and reset_metrics_globals do.
    trace._TRACER_PROVIDER_SET_ONCE = Once()
    trace._TRACER_PROVIDER = None
    trace._PROXY_TRACER_PROVIDER = trace.ProxyTracerProvider()
    metrics_internal._METER_PROVIDER_SET_ONCE = Once()
    metrics_internal._METER_PROVIDER = None
    metrics_internal._PROXY_METER_PROVIDER = metrics_internal._ProxyMeterProvider()


@dataclass
class Recorded:
    """What the providers recorded during one test."""

    exporter: InMemorySpanExporter
    reader: InMemoryMetricReader
    read: list[tuple[str, HistogramDataPoint]] = field(default_factory=list)

    def spans(self, scope: str = "mcpstream") -> list[ReadableSpan]:
        """The finished spans of ``scope`` (mcpstream's; ``mcp-python-sdk``: the server's)."""
        return [
            span
            for span in self.exporter.get_finished_spans()
            if span.instrumentation_scope is not None and span.instrumentation_scope.name == scope
        ]

    def span(self, name: str) -> ReadableSpan:
        """The one mcpstream span called ``name``."""
        found = [span for span in self.spans() if span.name == name]
        assert len(found) == 1, [span.name for span in self.spans()]
        return found[0]

    def points(self, metric: str) -> list[HistogramDataPoint]:
        """The data points of the histogram ``metric`` so far (each read's deltas kept)."""
        data = self.reader.get_metrics_data()
        for resource in data.resource_metrics if data is not None else ():
            for scope in resource.scope_metrics:
                for item in scope.metrics:
                    points = item.data.data_points
                    self.read.extend((item.name, p) for p in points)  # type: ignore[misc]
        return [point for name, point in self.read if name == metric]


@pytest.fixture
def otel() -> Iterator[Recorded]:
    """The tracer and meter providers installed for this test (none before or after)."""
    _reset_globals()
    trace.set_tracer_provider(_TRACER_PROVIDER)
    metrics.set_meter_provider(_METER_PROVIDER)
    _READER.get_metrics_data()  # forget the measurements of earlier tests (cumulative: read below)
    _EXPORTER.clear()
    _PROCESSOR.on = True
    try:
        yield Recorded(_EXPORTER, _READER)
    finally:
        _PROCESSOR.on = False
        _reset_globals()


@pytest.fixture
def no_provider() -> Iterator[Recorded]:
    """No provider configured (OpenTelemetry loaded), the server's spans still recorded."""
    _reset_globals()
    trace.set_tracer_provider(_TRACER_PROVIDER)
    # The SDK's proxy tracer binds to the provider of its first span: make it this one, even
    # when this test runs first.
    from mcp.shared import _otel as sdk_otel

    sdk_otel._tracer.start_span("bind").end()
    _reset_globals()
    _EXPORTER.clear()
    _PROCESSOR.on = True
    try:
        yield Recorded(_EXPORTER, _READER)
    finally:
        _PROCESSOR.on = False


Call = tuple[str, tuple[Any, ...], dict[str, Any]]


def run_calls(mode: str, url: str, calls: Sequence[Call], **options: Any) -> list[Any]:
    """Open a ``Client`` (``mode`` "sync") or an ``AsyncClient`` with ``options``, make each
    call, close it: each call's outcome (its exception, not raised)."""
    if mode == "sync":
        outcomes: list[Any] = []
        with Client(url, **options) as client:
            for name, args, kwargs in calls:
                try:
                    outcomes.append(getattr(client, name)(*args, **kwargs))
                except Exception as exc:
                    outcomes.append(exc)
        return outcomes

    async def scenario() -> list[Any]:
        found: list[Any] = []
        async with AsyncClient(url, **options) as client:
            for name, args, kwargs in calls:
                try:
                    found.append(await getattr(client, name)(*args, **kwargs))
                except Exception as exc:
                    found.append(exc)
        return found

    return asyncio.run(scenario())


def under_host_span(action: Callable[[], Any]) -> tuple[Any, int]:
    """Run ``action`` inside a span of the host's; its outcome and the host span's id."""
    tracer = trace.get_tracer("host")
    with tracer.start_as_current_span("host") as host:
        outcome = action()
    return outcome, host.get_span_context().span_id


MODES = pytest.mark.parametrize("mode", ["sync", "async"])
BOTH_ERAS = pytest.mark.parametrize("era", ["legacy", "modern"])


def _call(name: str, *args: Any, **kwargs: Any) -> Call:
    return name, args, kwargs


# -- spans ------------------------------------------------------------------------------------


@MODES
@BOTH_ERAS
def test_each_message_is_a_client_span_under_the_host_span_with_the_conventions_attributes(
    otel: Recorded, json_server: DemoServer, mode: str, era: str
) -> None:
    calls = [
        _call("list_tools"),
        _call("call_tool", "echo", {"text": "hi"}),
        _call("get_prompt", "review", {"code": "x = 1"}),
        _call("read_resource", "demo://readme"),
    ]
    outcomes, host_id = under_host_span(
        lambda: run_calls(mode, json_server.url, calls, protocol=era)
    )
    assert not any(isinstance(outcome, Exception) for outcome in outcomes)
    version, negotiation = ERAS[era]
    spans = otel.spans()
    assert [span.name for span in spans] == [
        negotiation,
        "tools/list",
        "tools/call echo",
        "prompts/get review",
        "resources/read",
    ]
    for span in spans:
        assert span.kind is SpanKind.CLIENT
        assert span.parent is not None and span.parent.span_id == host_id
        assert span.status.status_code is StatusCode.UNSET
        attributes = dict(span.attributes or {})
        assert attributes["mcp.method.name"] == span.name.split(" ")[0]
        assert attributes["mcp.protocol.version"] == version
        assert attributes["server.address"] == "127.0.0.1"
        assert attributes["server.port"] == json_server.port
        assert attributes["network.transport"] == "tcp"
        assert "error.type" not in attributes
        if span.name != negotiation:
            assert isinstance(attributes["jsonrpc.request.id"], str)
            # Only the handshake era has a session (2026-07-28 is stateless).
            assert ("mcp.session.id" in attributes) is (era == "legacy")
    tool = dict(otel.span("tools/call echo").attributes or {})
    assert tool["gen_ai.tool.name"] == "echo" and tool["gen_ai.operation.name"] == "execute_tool"
    prompt = dict(otel.span("prompts/get review").attributes or {})
    assert prompt["gen_ai.prompt.name"] == "review" and "gen_ai.operation.name" not in prompt
    resource = dict(otel.span("resources/read").attributes or {})
    assert resource["mcp.resource.uri"] == "demo://readme"


@MODES
@BOTH_ERAS
def test_the_servers_spans_join_the_trace_under_the_client_spans(
    otel: Recorded, json_server: DemoServer, mode: str, era: str
) -> None:
    calls = [
        _call("call_tool", "echo", {"text": "hi"}),
        _call("get_prompt", "review", {"code": "1"}),
    ]
    under_host_span(lambda: run_calls(mode, json_server.url, calls, protocol=era))
    server_spans = {span.name: span for span in otel.spans("mcp-python-sdk")}
    _, negotiation = ERAS[era]
    # The negotiation's request (initialize, server/discover) carries the trace context too.
    for name in (negotiation, "tools/call echo", "prompts/get review"):
        client, server = otel.span(name), server_spans[name]
        assert server.kind is SpanKind.SERVER
        assert server.parent is not None
        assert server.parent.span_id == client.context.span_id
        assert server.context.trace_id == client.context.trace_id
        if name == negotiation:
            continue
        # The same request, seen from both ends.
        assert (client.attributes or {})["jsonrpc.request.id"] == (server.attributes or {}).get(
            "jsonrpc.request.id"
        )


@MODES
def test_a_traceparent_the_host_put_in_meta_is_kept_and_trace_context_false_sends_none(
    otel: Recorded, json_server: DemoServer, mode: str
) -> None:
    host_meta = {"traceparent": HOST_TRACEPARENT}
    under_host_span(
        lambda: run_calls(
            mode, json_server.url, [_call("call_tool", "echo", {"text": "a"}, meta=host_meta)]
        )
    )
    server = next(span for span in otel.spans("mcp-python-sdk") if span.name == "tools/call echo")
    assert server.parent is not None
    assert server.parent.span_id == 0x00F067AA0BA902B7  # the host's, not the client span's
    assert server.context.trace_id == 0x4BF92F3577B34DA6A3CE929D0E0E4736
    assert host_meta == {"traceparent": HOST_TRACEPARENT}  # the host's mapping untouched

    otel.exporter.clear()
    run_calls(mode, json_server.url, [_call("ping")], trace_context=False)
    assert otel.spans(), "the client's spans are still made"
    assert all(span.parent is None for span in otel.spans("mcp-python-sdk"))


@MODES
def test_the_answer_to_a_server_request_is_a_server_span_in_the_trace_of_the_call(
    otel: Recorded, sse_server: DemoServer, mode: str
) -> None:
    seen: list[trace.SpanContext] = []

    def sample(request: SamplingRequest) -> SamplingResponse:
        seen.append(trace.get_current_span().get_span_context())
        return SamplingResponse(text="short", model="test-model")

    calls = [_call("call_tool", "summarize", {"text": "long text"})]
    (result,) = run_calls(mode, sse_server.url, calls, protocol="legacy", sampling_handler=sample)
    assert result.text == "short"
    served = otel.span("sampling/createMessage")
    assert served.kind is SpanKind.SERVER
    assert seen == [served.context]  # current while the host's handler ran
    assert (served.attributes or {})["mcp.method.name"] == "sampling/createMessage"
    assert isinstance((served.attributes or {})["jsonrpc.request.id"], str)
    # Parented by the server's span of its request, from the _meta it sent; in the call's trace.
    client = otel.span("tools/call summarize")
    by_id = {span.context.span_id: span for span in otel.exporter.get_finished_spans()}
    assert served.parent is not None and served.context.trace_id == client.context.trace_id
    chain = []
    parent = by_id.get(served.parent.span_id)
    while parent is not None:
        chain.append(parent.name)
        parent = by_id.get(parent.parent.span_id) if parent.parent is not None else None
    assert chain[-1] == "tools/call summarize" and "tools/call summarize" in chain[:-1]


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_a_task_polled_for_shows_each_poll_as_a_span_beside_the_call(
    otel: Recorded, json_server: DemoServer, era: str
) -> None:
    def work() -> str:
        with Client(json_server.url, protocol=era) as client:
            handle = client.call_tool("render", {"seconds": 0.2}, as_task=True)
            return handle.result().text

    text, host_id = under_host_span(work)
    assert text
    spans = otel.spans()
    names = [span.name for span in spans]
    assert names.index("tools/call render") < names.index("tasks/get")
    # Each message of the polling is a span of its own, all under the host's span.
    assert {span.parent.span_id if span.parent else None for span in spans} == {host_id}


@MODES
def test_a_notification_is_a_span_without_a_request_id(
    otel: Recorded, sse_server: DemoServer, mode: str
) -> None:
    run_calls(mode, sse_server.url, [_call("send_roots_list_changed")], protocol="legacy")
    span = otel.span("notifications/roots/list_changed")
    assert span.kind is SpanKind.CLIENT
    assert "jsonrpc.request.id" not in (span.attributes or {})
    assert (span.attributes or {})["mcp.session.id"]


# -- the drop-in transports -------------------------------------------------------------------

_INITIALIZE = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "host", "version": "1"},
}


def _transport_session(mode: str, url: str, workspace: Path, **options: Any) -> Any:
    """A host's own handshake and tool call through ``McpHttpTransport`` (or the async one)."""
    server = ResolvedMcpServer(id="demo", url=url, headers={}, call_timeout_s=30.0)
    call = {"name": "echo", "arguments": {"text": "a"}}
    if mode == "sync":
        with McpHttpTransport(server=server, workspace_root=workspace, **options) as transport:
            transport.request(method="initialize", params=_INITIALIZE, timeout_s=30.0)
            transport.send_notification(method="notifications/initialized", params=None)
            return transport.request(method="tools/call", params=call, timeout_s=30.0)

    async def scenario() -> Any:
        transport = AsyncMcpHttpTransport(server=server, workspace_root=workspace, **options)
        try:
            await transport.request(method="initialize", params=_INITIALIZE, timeout_s=30.0)
            await transport.send_notification(method="notifications/initialized", params=None)
            return await transport.request(method="tools/call", params=call, timeout_s=30.0)
        finally:
            await transport.close()

    return asyncio.run(scenario())


@MODES
def test_a_drop_in_transport_records_what_the_host_sends_through_it(
    otel: Recorded, json_server: DemoServer, mode: str, tmp_path: Path
) -> None:
    response, host_id = under_host_span(lambda: _transport_session(mode, json_server.url, tmp_path))
    assert response.error is None
    spans = otel.spans()
    assert [span.name for span in spans] == [
        "initialize",
        "notifications/initialized",
        "tools/call echo",
    ]
    assert all(span.parent is not None and span.parent.span_id == host_id for span in spans)
    call = otel.span("tools/call echo")
    assert (call.attributes or {})["mcp.session.id"]
    server = next(s for s in otel.spans("mcp-python-sdk") if s.name == "tools/call echo")
    assert server.parent is not None and server.parent.span_id == call.context.span_id

    otel.exporter.clear()
    _transport_session(mode, json_server.url, tmp_path, telemetry=False)
    assert otel.spans() == []


# -- errors -----------------------------------------------------------------------------------


@MODES
def test_a_tool_error_and_a_json_rpc_error_set_error_type_and_the_status(
    otel: Recorded, json_server: DemoServer, mode: str
) -> None:
    outcomes = run_calls(
        mode, json_server.url, [_call("call_tool", "fail"), _call("request", "no/such/method")]
    )
    assert outcomes[0].is_error and isinstance(outcomes[1], McpError)
    tool = otel.span("tools/call fail")
    assert (tool.attributes or {})["error.type"] == "tool_error"
    assert tool.status.status_code is StatusCode.ERROR
    refused = otel.span("no/such/method")
    attributes = dict(refused.attributes or {})
    code = str(outcomes[1].code)
    assert attributes["error.type"] == code == attributes["rpc.response.status_code"]
    assert refused.status.status_code is StatusCode.ERROR
    assert refused.status.description == outcomes[1].message
    failed = {
        (p.attributes or {}).get("mcp.method.name"): (p.attributes or {}).get("error.type")
        for p in otel.points("mcp.client.operation.duration")
    }
    assert failed["no/such/method"] == code


@MODES
def test_a_server_that_is_down_makes_an_error_span_of_the_negotiation(
    otel: Recorded, mode: str
) -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"
    outcomes = run_calls_failing(mode, url)
    assert isinstance(outcomes, McpHttpTransportError)
    (span,) = otel.spans()
    assert span.name == "server/discover"
    attributes = dict(span.attributes or {})
    assert attributes["error.type"] == type(outcomes).__qualname__
    assert span.status.status_code is StatusCode.ERROR
    assert any(event.name == "exception" for event in span.events)
    (point,) = otel.points("mcp.client.operation.duration")
    assert (point.attributes or {})["error.type"] == type(outcomes).__qualname__
    assert otel.points("mcp.client.session.duration") == []  # no session was opened


def run_calls_failing(mode: str, url: str) -> BaseException:
    """The error of connecting a client to ``url`` (sync or async)."""
    try:
        if mode == "sync":
            Client(url, connect_timeout_s=2.0).connect()
        else:
            asyncio.run(AsyncClient(url, connect_timeout_s=2.0).connect())
    except Exception as exc:
        return exc
    raise AssertionError("the connection succeeded")


def test_secrets_of_a_resource_uri_stay_out_of_the_attributes(
    otel: Recorded, json_server: DemoServer
) -> None:
    uri = "demo://greeting/ann?token=s3cret-value#frag"
    run_calls("sync", json_server.url, [_call("read_resource", uri)])
    span = otel.span("resources/read")
    assert (span.attributes or {})["mcp.resource.uri"] == "demo://greeting/ann"
    for recorded in otel.spans():
        assert "s3cret" not in repr(dict(recorded.attributes or {})) + recorded.name


def test_a_renewed_session_shows_the_lost_call_the_new_handshake_and_the_retry(
    otel: Recorded, restartable_server: DemoServer
) -> None:
    port = restartable_server.port
    with Client(restartable_server.url, protocol="legacy") as client:
        client.call_tool("echo", {"text": "before"})
        restartable_server.stop()
        restartable_server.port = port
        restartable_server.start()
        otel.exporter.clear()
        assert client.call_tool("echo", {"text": "after"}).text == "after"
    names = [(span.name, (span.attributes or {}).get("error.type")) for span in otel.spans()]
    expired = McpHttpTransportSessionExpiredError.__qualname__
    assert names == [("tools/call echo", expired), ("initialize", None), ("tools/call echo", None)]
    sessions = otel.points("mcp.client.session.duration")
    assert sorted(str((p.attributes or {}).get("error.type")) for p in sessions) == [
        expired,
        "None",
    ]


# -- metrics ----------------------------------------------------------------------------------


@MODES
def test_the_operation_and_session_durations_are_recorded(
    otel: Recorded, json_server: DemoServer, mode: str
) -> None:
    run_calls(
        mode,
        json_server.url,
        [_call("call_tool", "echo", {"text": "a"}), _call("call_tool", "echo", {"text": "b"})],
        protocol="legacy",
    )
    operations = {
        (p.attributes or {})["mcp.method.name"]: p
        for p in otel.points("mcp.client.operation.duration")
    }
    assert set(operations) == {"initialize", "tools/call"}
    echo = operations["tools/call"]
    assert echo.count == 2 and echo.sum > 0
    assert dict(echo.attributes or {}) == {
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": "echo",
        "gen_ai.operation.name": "execute_tool",
        "mcp.protocol.version": "2025-11-25",
        "server.address": "127.0.0.1",
        "server.port": json_server.port,
        "network.transport": "tcp",
        "network.protocol.name": "http",
    }
    assert list(echo.explicit_bounds)[:3] == [0.01, 0.02, 0.05]
    (session,) = otel.points("mcp.client.session.duration")
    assert session.count == 1 and session.sum >= echo.sum
    assert (session.attributes or {})["mcp.protocol.version"] == "2025-11-25"
    assert "error.type" not in (session.attributes or {})


# -- without a provider -----------------------------------------------------------------------


@MODES
def test_without_a_provider_nothing_is_recorded_or_sent(
    no_provider: Recorded, json_server: DemoServer, mode: str
) -> None:
    run_calls(mode, json_server.url, [_call("call_tool", "echo", {"text": "a"})])
    assert no_provider.spans() == []
    (server,) = [s for s in no_provider.spans("mcp-python-sdk") if s.name == "tools/call echo"]
    assert server.parent is None  # no traceparent went out


def test_a_plain_call_does_not_import_opentelemetry(json_server: DemoServer) -> None:
    script = (
        "import sys\n"
        "from mcpstream import Client\n"
        f"with Client({json_server.url!r}) as client:\n"
        "    client.call_tool('echo', {'text': 'a'})\n"
        "print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))\n"
        "print('mcpstream._telemetry.otel' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=Path(__file__).parent,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[]", "False"]


# -- the rules without OpenTelemetry ----------------------------------------------------------


def test_the_server_endpoint_of_a_url() -> None:
    assert server_endpoint("https://user:pw@Example.COM/mcp?k=v") == ("example.com", 443)
    assert server_endpoint("http://127.0.0.1/mcp") == ("127.0.0.1", 80)
    assert server_endpoint("http://[::1]:8080/mcp") == ("::1", 8080)
    assert server_endpoint("http:///mcp") == (None, None)


def test_the_name_and_attributes_of_a_method() -> None:
    assert operation_attributes("tools/call", {"name": "add", "arguments": {}}) == (
        "tools/call add",
        {
            "mcp.method.name": "tools/call",
            "gen_ai.tool.name": "add",
            "gen_ai.operation.name": "execute_tool",
        },
    )
    assert operation_attributes("prompts/get", {"name": "p"})[0] == "prompts/get p"
    name, attributes = operation_attributes("resources/subscribe", {"uri": "https://a@b/c?d=e"})
    assert name == "resources/subscribe" and attributes["mcp.resource.uri"] == "https://b/c"
    assert operation_attributes("ping", None) == ("ping", {"mcp.method.name": "ping"})


def test_the_error_type_of_a_failure() -> None:
    assert error_type(McpError(-32602, "bad")) == "-32602"
    assert error_type(McpHttpTransportError("down")) == "McpHttpTransportError"
    assert error_type(asyncio.CancelledError()) == "CancelledError"
