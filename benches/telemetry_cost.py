"""What OpenTelemetry costs a small call: ``python benches/telemetry_cost.py [--rounds N]
[--calls N] [--json]``.

One ``Client`` (the handshake era) calls the replay server's ``small_json`` tool
(``replay_server.py``, a process of its own, so that only the client is measured) in rounds of
``--calls`` calls, the states taking turns round by round so that a change of the machine's
load falls on all alike:

- ``unloaded``: OpenTelemetry not loaded, as for a host without it (its modules are taken out of
  ``sys.modules`` for the round: the client looks there and nowhere else);
- ``no-provider``: the API loaded, no tracer or meter provider configured;
- ``on``: the OpenTelemetry SDK's tracer provider with a span exporter that drops every span
  (the span is still made, its context injected into ``_meta``) and a meter provider
  aggregating both histograms.

Prints the median time per call of each state and its ratio to ``unloaded`` (needs the
``opentelemetry-sdk`` package).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from mcpstream import Client
from opentelemetry import metrics, trace
from opentelemetry.metrics import _internal as metrics_internal
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.util._once import Once
from replay_server import running

HERE = Path(__file__).parent
STATES = ("unloaded", "no-provider", "on")
OTEL_MODULES = ("opentelemetry.trace", "opentelemetry.metrics")
"""The modules the client looks for (``mcpstream._telemetry.OTEL_MODULES``)."""


class DropSpans(SpanExporter):
    """An exporter that exports nothing (the cost measured is the span's, not a backend's)."""

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return SpanExportResult.SUCCESS


def _no_providers() -> None:
    # What opentelemetry-test-utils' reset_trace_globals and reset_metrics_globals do.
    trace._TRACER_PROVIDER_SET_ONCE = Once()
    trace._TRACER_PROVIDER = None
    trace._PROXY_TRACER_PROVIDER = trace.ProxyTracerProvider()
    metrics_internal._METER_PROVIDER_SET_ONCE = Once()
    metrics_internal._METER_PROVIDER = None
    metrics_internal._PROXY_METER_PROVIDER = metrics_internal._ProxyMeterProvider()


@contextmanager
def state(
    name: str, tracer_provider: TracerProvider, meter_provider: MeterProvider
) -> Iterator[None]:
    """Run the block in the state ``name`` (see the module docstring)."""
    _no_providers()
    if name == "on":
        trace.set_tracer_provider(tracer_provider)
        metrics.set_meter_provider(meter_provider)
    hidden: dict[str, object] = {}
    if name == "unloaded":
        hidden = {
            key: sys.modules.pop(key) for key in ("opentelemetry.trace", "opentelemetry.metrics")
        }
    try:
        yield
    finally:
        sys.modules.update(hidden)
        _no_providers()


def measure(url: str, rounds: int, calls: int) -> dict[str, list[float]]:
    """Seconds per call of each state, one figure per round."""
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(DropSpans()))
    meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
    figures: dict[str, list[float]] = {name: [] for name in STATES}
    with Client(url, protocol="legacy") as client:
        for name in STATES:  # warm-up: the first round of each state is not counted
            with state(name, tracer_provider, meter_provider):
                for _ in range(calls):
                    client.call_tool("small_json")
        for round_ in range(rounds):
            order = STATES if round_ % 2 == 0 else tuple(reversed(STATES))
            for name in order:
                with state(name, tracer_provider, meter_provider):
                    started = time.perf_counter()
                    for _ in range(calls):
                        client.call_tool("small_json")
                    figures[name].append((time.perf_counter() - started) / calls)
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    """Measure and print (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--calls", type=int, default=200, help="calls per round")
    parser.add_argument("--json", action="store_true", help="print a JSON object")
    args = parser.parse_args(argv)
    with running() as url:
        figures = measure(url, args.rounds, args.calls)
    medians = {name: statistics.median(values) for name, values in figures.items()}
    if args.json:
        print(json.dumps({"median_s_per_call": medians, "rounds": figures}))
        return 0
    base = medians["unloaded"]
    print(
        f"{'state':<12} {'µs/call':>9} {'ratio':>7}   ({args.rounds} rounds x {args.calls} calls)"
    )
    for name in STATES:
        print(f"{name:<12} {medians[name] * 1e6:>9.1f} {medians[name] / base:>7.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
