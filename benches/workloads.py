"""SSE workloads for the codec benchmarks.

The MCP-shaped workloads come from ``../shared/bench/workloads.py`` (the team's shared set, loaded
from beside this checkout); the linearity workload is ours. Each workload is a ``Workload``:
its body cut into chunks, how many events it carries, and its size in bytes.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

SHARED_WORKLOADS = Path(__file__).resolve().parents[2] / "shared" / "bench" / "workloads.py"


@dataclass(frozen=True)
class Workload:
    """A body cut into chunks, with the number of events it carries and its size in bytes."""

    name: str
    chunks: list[bytes]
    events: int
    size: int

    def data_payloads(self) -> list[bytes]:
        """The events' data fields, already split out of the stream (the floor's input)."""
        payloads: list[bytes] = []
        for block in b"".join(self.chunks).split(b"\n\n"):
            lines = [line[6:] for line in block.split(b"\n") if line.startswith(b"data: ")]
            if lines:
                payloads.append(b"\n".join(lines))
        return payloads


def _load_shared() -> ModuleType:
    if not SHARED_WORKLOADS.is_file():
        raise FileNotFoundError(f"the shared workloads are missing: {SHARED_WORKLOADS}")
    spec = importlib.util.spec_from_file_location("shared_workloads", SHARED_WORKLOADS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def mcp_workloads() -> list[Workload]:
    """The shared MCP-shaped workloads: many small events, one large, multi-line, CJK."""
    factories: list[Callable[[], tuple[str, list[bytes], int, int]]] = _load_shared().ALL
    return [Workload(*factory()) for factory in factories]


def single_event(size: int, chunk: int = 1024) -> Workload:
    """One JSON-RPC result event whose text is ``size`` bytes, fed in ``chunk``-byte pieces."""
    text = "x" * size
    body = (
        "event: message\ndata: "
        + json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"text": text}}, separators=(",", ":"))
        + "\n\n"
    ).encode()
    return Workload(
        f"single_event_{size >> 20}mib",
        [body[i : i + chunk] for i in range(0, len(body), chunk)],
        1,
        len(body),
    )


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
