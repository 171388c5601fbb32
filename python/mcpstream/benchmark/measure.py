"""Running the implementations on the workloads: median time per body, and throughput."""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import httpx

from ..codec import load_backend
from .workloads import Workload

__all__ = ["Implementation", "Measurement", "available_implementations", "measure"]

Decode = Callable[[Iterable[bytes]], int]


@dataclass(frozen=True, slots=True)
class Implementation:
    """One way of turning SSE body chunks into JSON-RPC messages; ``decode`` returns how many
    events it found."""

    key: str
    label: str
    short: str
    decode: Decode


@dataclass(frozen=True, slots=True)
class Measurement:
    """The median of ``rounds`` timed decodes of one workload by one implementation."""

    workload: str
    implementation: str
    size: int
    median_s: float
    rounds: int

    @property
    def mb_per_s(self) -> float:
        """Throughput in MB/s (10^6 bytes per second)."""
        return self.size / self.median_s / 1e6


def _codec(backend: ModuleType) -> Decode:
    def decode(chunks: Iterable[bytes]) -> int:
        decoder = backend.SseDecoder()
        count = 0
        for chunk in chunks:
            count += len(decoder.feed_jsonrpc(chunk))
        return count + len(decoder.finish_jsonrpc())

    return decode


class _Chunks(httpx.SyncByteStream):
    def __init__(self, chunks: Iterable[bytes]) -> None:
        self._chunks = chunks

    def __iter__(self) -> Iterator[bytes]:
        yield from self._chunks


def _httpx_sse(event_source: Any) -> Decode:
    def decode(chunks: Iterable[bytes]) -> int:
        response = httpx.Response(
            200, headers={"content-type": "text/event-stream"}, stream=_Chunks(chunks)
        )
        count = 0
        loads = json.loads
        for event in event_source(response).iter_sse():
            loads(event.data)
            count += 1
        return count

    return decode


def available_implementations() -> tuple[list[Implementation], list[str]]:
    """The implementations that can run here, and a note for each one that cannot."""
    found: list[Implementation] = []
    missing: list[str] = []
    try:
        found.append(
            Implementation("native", "native (Rust)", "native", _codec(load_backend("native")))
        )
    except ImportError:
        missing.append("native: the Rust extension is not built in this install")
    found.append(Implementation("pure", "pure Python", "pure", _codec(load_backend("python"))))
    try:
        from httpx_sse import EventSource
    except ImportError:
        missing.append("httpx-sse + json.loads: pip install httpx-sse to compare with it")
    else:
        found.append(
            Implementation(
                "httpx_sse", "httpx-sse + json.loads", "httpx-sse", _httpx_sse(EventSource)
            )
        )
    return found, missing


def measure(
    workload: Workload,
    implementation: Implementation,
    *,
    rounds: int,
    on_round: Callable[[], None] | None = None,
) -> Measurement:
    """Decode ``workload`` once to warm up and check, then ``rounds`` times on the clock."""
    found = implementation.decode(workload.chunks)
    if found != workload.events:
        raise RuntimeError(
            f"{implementation.label} found {found} events in '{workload.name}', "
            f"expected {workload.events}"
        )
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        implementation.decode(workload.chunks)
        times.append(time.perf_counter() - started)
        if on_round is not None:
            on_round()
    return Measurement(
        workload=workload.name,
        implementation=implementation.key,
        size=workload.size,
        median_s=statistics.median(times),
        rounds=rounds,
    )
