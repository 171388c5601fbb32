"""``parse_jsonrpc_line`` against ``json.loads`` on one large tool result, as str and as bytes.

Payloads: ASCII, CJK (a str of 2 bytes a character) and emoji (4 bytes a character) text, about
2 MiB of UTF-8 each. The group is ``parse-{payload}-{str|bytes}``; throughput is UTF-8 bytes over
the median time, whatever the input's form. Target: both backends at least as fast as
``json.loads`` on the same input (the pure backend is ``json.loads`` plus its checks).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from types import ModuleType
from typing import Any

import orjson
import pytest
from pytest_benchmark.fixture import BenchmarkFixture
from workloads import parse_payloads

PAYLOADS = parse_payloads()
ROUNDS = 25


@pytest.fixture(params=[(p, f) for p in sorted(PAYLOADS) for f in ("str", "bytes")], ids=str)
def payload(request: pytest.FixtureRequest) -> tuple[str, str | bytes]:
    name, form = request.param
    text = PAYLOADS[name]
    return f"parse-{name}-{form}", text if form == "str" else text.encode()


def _run(
    benchmark: BenchmarkFixture, payload: tuple[str, str | bytes], fn: Callable[[Any], Any]
) -> None:
    group, text = payload
    benchmark.group = group
    benchmark.extra_info["bytes"] = len(text.encode() if isinstance(text, str) else text)
    benchmark.pedantic(fn, args=(text,), rounds=ROUNDS, iterations=1, warmup_rounds=2)


def test_parse_native(
    benchmark: BenchmarkFixture, payload: tuple[str, str | bytes], backends: dict[str, ModuleType]
) -> None:
    _run(benchmark, payload, backends["native"].parse_jsonrpc_line)


def test_parse_pure(
    benchmark: BenchmarkFixture, payload: tuple[str, str | bytes], backends: dict[str, ModuleType]
) -> None:
    _run(benchmark, payload, backends["python"].parse_jsonrpc_line)


def test_parse_json_loads(benchmark: BenchmarkFixture, payload: tuple[str, str | bytes]) -> None:
    _run(benchmark, payload, json.loads)


def test_parse_orjson(benchmark: BenchmarkFixture, payload: tuple[str, str | bytes]) -> None:
    _run(benchmark, payload, orjson.loads)
