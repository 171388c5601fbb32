"""HTTP/1.1 response framing: the codec's ``Http1Response`` (native, pure) against h11, the
parser under httpx today, on the answers an MCP client reads.

Not part of ``report.py``'s tables yet. Run with
``python -m pytest benches/test_http1_parse.py --benchmark-only`` (a release build for figures:
a debug build of the extension is many times slower).
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import h11
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

ROUNDS = 200


def _small_json() -> list[bytes]:
    body = b'{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello"}]}}'
    head = (
        b"HTTP/1.1 200 OK\r\ndate: Thu, 03 Dec 2026 15:00:00 GMT\r\nserver: uvicorn\r\n"
        b"content-type: application/json\r\nmcp-session-id: 3871215e78c445e0b504689219e34ccc\r\n"
        b"content-length: %d\r\n\r\n" % len(body)
    )
    return [head + body]


def _sse_chunked() -> list[bytes]:
    head = (
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n"
        b"transfer-encoding: chunked\r\n\r\n"
    )
    event = b'event: message\r\ndata: {"jsonrpc":"2.0","method":"notifications/progress"}\r\n\r\n'
    chunks = [head]
    for _ in range(200):
        chunks.append(b"%x\r\n%b\r\n" % (len(event), event))
    chunks.append(b"0\r\n\r\n")
    return chunks


def _large_length() -> list[bytes]:
    body = b"x" * (4 * 1024 * 1024)
    data = b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n" % len(body) + body
    return [data[i : i + 65536] for i in range(0, len(data), 65536)]


WORKLOADS = {
    "small_json": _small_json(),
    "sse_chunked_200": _sse_chunked(),
    "length_4mib": _large_length(),
}


def framing(backend: ModuleType) -> Callable[[list[bytes]], int]:
    def run(chunks: list[bytes]) -> int:
        response = backend.Http1Response()
        size = 0
        for chunk in chunks:
            for piece in response.feed(chunk):
                size += len(piece)
        assert response.complete
        return size

    return run


def h11_route(chunks: list[bytes]) -> int:
    connection = h11.Connection(h11.CLIENT)
    connection.send(
        h11.Request(method="POST", target="/mcp", headers=[("Host", "x"), ("Content-Length", "0")])
    )
    connection.send(h11.EndOfMessage())
    size = 0
    feed = iter(chunks)
    while True:
        event = connection.next_event()
        if event is h11.NEED_DATA:
            connection.receive_data(next(feed))
        elif isinstance(event, h11.Data):
            size += len(event.data)
        elif isinstance(event, h11.EndOfMessage):
            return size


@pytest.fixture(params=sorted(WORKLOADS))
def workload(request: pytest.FixtureRequest) -> tuple[str, list[bytes]]:
    return request.param, WORKLOADS[request.param]


def _bench(
    benchmark: BenchmarkFixture,
    workload: tuple[str, list[bytes]],
    route: Callable[[list[bytes]], int],
) -> None:
    name, chunks = workload
    benchmark.group = f"http1 {name}"
    size = benchmark.pedantic(route, args=(chunks,), rounds=ROUNDS, iterations=1, warmup_rounds=5)
    assert size == h11_route(chunks)


def test_native(
    benchmark: BenchmarkFixture, workload: tuple[str, list[bytes]], backends: dict[str, ModuleType]
) -> None:
    _bench(benchmark, workload, framing(backends["native"]))


def test_pure(
    benchmark: BenchmarkFixture, workload: tuple[str, list[bytes]], backends: dict[str, ModuleType]
) -> None:
    _bench(benchmark, workload, framing(backends["python"]))


def test_h11(benchmark: BenchmarkFixture, workload: tuple[str, list[bytes]]) -> None:
    _bench(benchmark, workload, h11_route)
