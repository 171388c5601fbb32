"""Codec throughput on MCP-shaped SSE bodies: native, pure, httpx-sse + json.loads, orjson floor.

``native``/``pure`` are the fast route (``feed_jsonrpc``); ``native_basic``/``pure_basic`` the
basic one (``feed``, then ``parse_jsonrpc_line`` on each event's data).

Run with ``python benches/report.py`` (which prints the ratio table), or directly with
``python -m pytest benches/test_codec_throughput.py --benchmark-only``.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import pytest
from conftest import codec_basic, codec_messages, httpx_sse_json_loads, orjson_floor
from pytest_benchmark.fixture import BenchmarkFixture
from workloads import Workload, data_payloads, mcp_workloads

WORKLOADS = mcp_workloads()
ROUNDS = 15


@pytest.fixture(params=sorted(WORKLOADS))
def workload(request: pytest.FixtureRequest) -> Workload:
    return WORKLOADS[request.param]


def _run(benchmark: BenchmarkFixture, workload: Workload, fn: object, arg: object) -> None:
    benchmark.group = workload.key
    benchmark.extra_info["bytes"] = workload.size
    count = benchmark.pedantic(fn, args=(arg,), rounds=ROUNDS, iterations=1, warmup_rounds=2)
    assert count == workload.events


def _codec_test(route: Callable[[ModuleType], Callable[..., int]], backend: str) -> object:
    """A benchmark of one route through one backend (pytest names it by the name it is given)."""

    def test(
        benchmark: BenchmarkFixture, workload: Workload, backends: dict[str, ModuleType]
    ) -> None:
        _run(benchmark, workload, route(backends[backend]), workload.chunks)

    return test


test_native = _codec_test(codec_messages, "native")
test_pure = _codec_test(codec_messages, "python")
test_native_basic = _codec_test(codec_basic, "native")
test_pure_basic = _codec_test(codec_basic, "python")


def test_httpx_sse(benchmark: BenchmarkFixture, workload: Workload) -> None:
    _run(benchmark, workload, httpx_sse_json_loads, workload.chunks)


def test_orjson_floor(benchmark: BenchmarkFixture, workload: Workload) -> None:
    _run(benchmark, workload, orjson_floor, data_payloads(workload))
