"""SSE workloads for the codec benchmarks, all built in this checkout.

The MCP-shaped workloads are ``mcpstream.benchmark.workloads``' four at full size (what
``mcpstream bench`` measures too), keyed by the names the benchmarks page's tables report; the
linearity workload is one large event produced chunk by chunk.
"""

from __future__ import annotations

from collections.abc import Iterator

from mcpstream.benchmark.workloads import (
    Workload,
    builtin_workloads,
    cjk_text,
    emoji_text,
    extra_workloads,
    lorem,
    result_json,
)

__all__ = ["Workload", "data_payloads", "iter_chunks", "mcp_workloads", "parse_payloads"]


def mcp_workloads() -> dict[str, Workload]:
    """Many small events, one large, multi-line, CJK in small chunks (the four of ``mcpstream
    bench``), a large CJK result and small events in 7-byte chunks, by ``Workload.key``."""
    return {workload.key: workload for workload in [*builtin_workloads(), *extra_workloads()]}


def parse_payloads(size: int = 2 * 2**20) -> dict[str, str]:
    """One tool result's JSON text of about ``size`` bytes per kind of text: ASCII, CJK (a str
    of 2 bytes a character), emoji (4 bytes a character), for ``parse_jsonrpc_line``."""
    return {
        "ascii": result_json(lorem(size)),
        "cjk": result_json(cjk_text(size)),
        "emoji": result_json(emoji_text(size)),
    }


def data_payloads(workload: Workload) -> list[bytes]:
    """The events' data fields, already split out of the stream (the orjson floor's input)."""
    payloads: list[bytes] = []
    for block in b"".join(workload.chunks).split(b"\n\n"):
        lines = [line[6:] for line in block.split(b"\n") if line.startswith(b"data: ")]
        if lines:
            payloads.append(b"\n".join(lines))
    return payloads


def iter_chunks(total: int, chunk: int = 1024) -> Iterator[bytes]:
    """Yield one ``total``-byte JSON-RPC event in ``chunk``-byte pieces without building it.

    The payload part is one reused ``bytes`` object, so the producer holds a single chunk: any
    memory the consumer's process gains is the consumer's own.
    """
    head = b'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"text":"'
    tail = b'"}}\n\n'
    filler = b"x" * chunk
    yield head
    remaining = total - len(head) - len(tail)
    while remaining >= chunk:
        yield filler
        remaining -= chunk
    if remaining:
        yield filler[:remaining]
    yield tail
