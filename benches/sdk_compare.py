"""``mcp.Client`` over the SDK's own Streamable HTTP transport against ``mcp.Client`` over
``mcpstream.sdk.streamable_http_client``, in one process, rounds alternating.

``python benches/sdk_compare.py [--rounds N] [--json FILE]`` starts the replay server
(``replay_server.py``, a process of its own, so that the client is what is measured), opens one
``mcp.Client`` session (``mode="legacy"``: the replay server speaks the handshake era) over each
transport, and runs every workload round by round, alternating the two: ``large`` (one call, a
16 MiB text result; the SDK's transport is given ``max_sse_event_size=None``, its 1 MiB default
would refuse it), ``small300`` (300 small calls) and ``notifications`` (one call streaming
20,000 progress notifications, taken by the session's ``message_handler``). Each round's CPU
time (``time.process_time``: every thread of the process) and wall time are recorded; the
medians and the ratios (SDK / mcpstream) are printed, the issue's bars beside them: ``large``
CPU >= 4x, ``small300`` wall >= 1.5x, ``notifications`` CPU >= 1.15x. Every round checks what it
received, so that a broken path cannot pass for a fast one.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client as sdk_transport
from mcpstream.sdk import streamable_http_client as mcpstream_transport

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from replay_server import LARGE_TEXT_BYTES, NOTIFICATIONS  # noqa: E402

SMALL_CALLS = 300
BARS = {"large": ("cpu", 4.0), "small300": ("wall", 1.5), "notifications": ("cpu", 1.15)}


class Side:
    """One ``mcp.Client`` session over one transport, and the notifications it was handed."""

    def __init__(self, name: str, url: str) -> None:
        self.name, self.url = name, url
        self.notifications = 0
        self._stack = AsyncExitStack()
        self.client: Client

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, types.ProgressNotification):
            self.notifications += 1

    async def open(self) -> None:
        if self.name == "sdk":
            transport = sdk_transport(self.url, max_sse_event_size=None)
        else:
            transport = mcpstream_transport(self.url)
        client = Client(transport, mode="legacy", message_handler=self._on_message)
        self.client = await self._stack.enter_async_context(client)

    async def close(self) -> None:
        await self._stack.aclose()

    async def round(self, workload: str) -> None:
        if workload == "large":
            result = await self.client.call_tool("large", {})
            text = result.content[0]
            assert isinstance(text, types.TextContent) and len(text.text) == LARGE_TEXT_BYTES
        elif workload == "small300":
            for _ in range(SMALL_CALLS):
                result = await self.client.call_tool("small", {})
                assert not result.is_error
        else:
            self.notifications = 0
            await self.client.call_tool("notifications", {})
            assert self.notifications == NOTIFICATIONS, self.notifications


async def _measure(side: Side, workload: str) -> tuple[float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    await side.round(workload)
    return time.process_time() - cpu, time.perf_counter() - wall


async def compare(url: str, rounds: int) -> dict[str, Any]:
    sides = [Side("sdk", url), Side("mcpstream", url)]
    for side in sides:
        await side.open()
    results: dict[str, Any] = {}
    try:
        for workload in BARS:
            times: dict[str, list[tuple[float, float]]] = {side.name: [] for side in sides}
            for side in sides:  # warm-up
                await side.round(workload)
            for index in range(rounds):
                order = sides if index % 2 == 0 else sides[::-1]
                for side in order:
                    times[side.name].append(await _measure(side, workload))
            results[workload] = _summary(workload, times)
    finally:
        for side in reversed(sides):  # anyio's scopes end in the reverse order of their start
            await side.close()
    return results


def _summary(workload: str, times: dict[str, list[tuple[float, float]]]) -> dict[str, Any]:
    medians = {
        name: {
            "cpu_s": statistics.median(cpu for cpu, _ in runs),
            "wall_s": statistics.median(wall for _, wall in runs),
        }
        for name, runs in times.items()
    }
    kind, bar = BARS[workload]
    ratio = medians["sdk"][f"{kind}_s"] / medians["mcpstream"][f"{kind}_s"]
    cpu_ratio = medians["sdk"]["cpu_s"] / medians["mcpstream"]["cpu_s"]
    wall_ratio = medians["sdk"]["wall_s"] / medians["mcpstream"]["wall_s"]
    return {
        "medians": medians,
        "cpu_ratio": cpu_ratio,
        "wall_ratio": wall_ratio,
        "bar": {"kind": kind, "at_least": bar, "met": ratio >= bar},
        "rounds": {name: runs for name, runs in times.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    server = subprocess.Popen(
        [sys.executable, str(HERE / "replay_server.py"), "--port", "0"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline().split()[1])
        results = asyncio.run(compare(f"http://127.0.0.1:{port}/mcp", args.rounds))
    finally:
        server.terminate()
        server.wait(10)
    for workload, result in results.items():
        sdk, ours = result["medians"]["sdk"], result["medians"]["mcpstream"]
        bar = result["bar"]
        print(
            f"{workload:14} CPU {sdk['cpu_s'] * 1e3:9.1f} ms vs {ours['cpu_s'] * 1e3:8.1f} ms "
            f"({result['cpu_ratio']:.2f}x)  wall {sdk['wall_s'] * 1e3:9.1f} ms vs "
            f"{ours['wall_s'] * 1e3:8.1f} ms ({result['wall_ratio']:.2f}x)  "
            f"bar {bar['kind']} >= {bar['at_least']}x: {'met' if bar['met'] else 'NOT met'}"
        )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
