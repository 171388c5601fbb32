"""Shared pieces of the benchmarks: the two codec backends and the competing stacks."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from types import ModuleType
from typing import Any

import httpx
import orjson
import pytest
from httpx_sse import EventSource
from mcpstream.codec import load_backend


@pytest.fixture(scope="session")
def backends() -> dict[str, ModuleType]:
    """Both codec backends by name (``native``, ``python``). The native one must import: the
    benchmarks are meaningless without it."""
    return {name: load_backend(name) for name in ("native", "python")}


class _ChunkStream(httpx.SyncByteStream):
    """A response body that arrives in the given chunks, as a socket would deliver them."""

    def __init__(self, chunks: Iterable[bytes]) -> None:
        self._chunks = chunks

    def __iter__(self) -> Iterator[bytes]:
        yield from self._chunks


def codec_messages(
    backend: ModuleType, max_event_bytes: int | None = 16 * 1024 * 1024
) -> Callable[[Iterable[bytes]], int]:
    """mcpstream's path: one ``feed_jsonrpc`` call per chunk; returns the number of events."""

    def run(chunks: Iterable[bytes]) -> int:
        decoder = backend.SseDecoder(max_event_bytes)
        count = 0
        for chunk in chunks:
            count += len(decoder.feed_jsonrpc(chunk))
        return count + len(decoder.finish_jsonrpc())

    return run


def codec_basic(
    backend: ModuleType, max_event_bytes: int | None = 16 * 1024 * 1024
) -> Callable[[Iterable[bytes]], int]:
    """The basic route: ``SseDecoder.feed`` per chunk, ``parse_jsonrpc_line`` on each event's
    data (a str, as httpx-sse + ``json.loads`` would have it); returns the number of events."""

    def run(chunks: Iterable[bytes]) -> int:
        decoder = backend.SseDecoder(max_event_bytes)
        parse = backend.parse_jsonrpc_line
        count = 0
        for chunk in chunks:
            for event in decoder.feed(chunk):
                parse(event.data)
                count += 1
        for event in decoder.finish():
            parse(event.data)
            count += 1
        return count

    return run


def httpx_sse_json_loads(chunks: Iterable[bytes]) -> int:
    """The official SDK's stack: httpx's line iteration, httpx-sse's parser, json.loads."""
    response = httpx.Response(
        200, headers={"content-type": "text/event-stream"}, stream=_ChunkStream(chunks)
    )
    count = 0
    loads: Callable[[str], Any] = json.loads
    for event in EventSource(response).iter_sse():
        loads(event.data)
        count += 1
    return count


def orjson_floor(payloads: list[bytes]) -> int:
    """The floor: orjson.loads on data payloads that were already split out of the stream."""
    loads = orjson.loads
    for payload in payloads:
        loads(payload)
    return len(payloads)
