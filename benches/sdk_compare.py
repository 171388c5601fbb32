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

Beside them, the host-client columns: both transports under ``mcp.Client`` on a host's
``httpx2.AsyncClient`` built as the agent frameworks build theirs (their timeouts, a header, a
response event hook), the same client for both (``sdk-host``, ``mcpstream-host``), with the
bars of the host route: ``large`` CPU >= 6x, ``small300`` CPU >= 1.7x, ``notifications`` CPU
>= 1.15x. The four sides run in one process, rounds alternating (the order rotates).
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

import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client as sdk_transport
from mcpstream.sdk import streamable_http_client as mcpstream_transport

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from replay_server import LARGE_TEXT_BYTES, NOTIFICATIONS  # noqa: E402

SMALL_CALLS = 300
BARS = {"large": ("cpu", 4.0), "small300": ("wall", 1.5), "notifications": ("cpu", 1.15)}
HOST_BARS = {"large": ("cpu", 6.0), "small300": ("cpu", 1.7), "notifications": ("cpu", 1.15)}
PAIRS = {"own": ("sdk", "mcpstream", BARS), "host": ("sdk-host", "mcpstream-host", HOST_BARS)}


def framework_client() -> httpx2.AsyncClient:
    """A host's client as the frameworks build theirs: their timeouts, a header of their own,
    a response event hook."""
    responses = 0

    async def on_response(response: httpx2.Response) -> None:
        nonlocal responses
        responses += 1

    return httpx2.AsyncClient(
        timeout=httpx2.Timeout(30.0, read=300.0),
        headers={"User-Agent": "a-framework/1.0"},
        event_hooks={"response": [on_response]},
    )


class Side:
    """One ``mcp.Client`` session over one transport, and the notifications it was handed."""

    def __init__(self, name: str, url: str, http_client: httpx2.AsyncClient | None = None) -> None:
        self.name, self.url, self.http_client = name, url, http_client
        self.notifications = 0
        self._stack = AsyncExitStack()
        self.client: Client

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, types.ProgressNotification):
            self.notifications += 1

    async def open(self) -> None:
        if self.name.startswith("sdk"):
            transport = sdk_transport(
                self.url, http_client=self.http_client, max_sse_event_size=None
            )
        else:
            transport = mcpstream_transport(self.url, http_client=self.http_client)
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
    host = framework_client()
    sides = [
        Side("sdk", url),
        Side("mcpstream", url),
        Side("sdk-host", url, host),
        Side("mcpstream-host", url, host),
    ]
    for side in sides:
        await side.open()
    results: dict[str, Any] = {}
    try:
        for workload in BARS:
            times: dict[str, list[tuple[float, float]]] = {side.name: [] for side in sides}
            for side in sides:  # warm-up
                await side.round(workload)
            for index in range(rounds):
                shift = index % len(sides)
                for side in sides[shift:] + sides[:shift]:
                    times[side.name].append(await _measure(side, workload))
            results[workload] = {pair: _summary(workload, times, pair) for pair in PAIRS}
    finally:
        for side in reversed(sides):  # anyio's scopes end in the reverse order of their start
            await side.close()
        await host.aclose()
    return results


def _summary(
    workload: str, times: dict[str, list[tuple[float, float]]], pair: str
) -> dict[str, Any]:
    sdk, ours, bars = PAIRS[pair]
    medians = {
        name: {
            "cpu_s": statistics.median(cpu for cpu, _ in times[name]),
            "wall_s": statistics.median(wall for _, wall in times[name]),
        }
        for name in (sdk, ours)
    }
    kind, bar = bars[workload]
    ratio = medians[sdk][f"{kind}_s"] / medians[ours][f"{kind}_s"]
    cpu_ratio = medians[sdk]["cpu_s"] / medians[ours]["cpu_s"]
    wall_ratio = medians[sdk]["wall_s"] / medians[ours]["wall_s"]
    return {
        "sides": [sdk, ours],
        "medians": medians,
        "cpu_ratio": cpu_ratio,
        "wall_ratio": wall_ratio,
        "bar": {"kind": kind, "at_least": bar, "met": ratio >= bar},
        "rounds": {name: times[name] for name in (sdk, ours)},
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
    for workload, pairs in results.items():
        for pair, result in pairs.items():
            sdk, ours = (result["medians"][name] for name in result["sides"])
            bar = result["bar"]
            print(
                f"{workload:14}{pair:5} CPU {sdk['cpu_s'] * 1e3:9.1f} ms vs "
                f"{ours['cpu_s'] * 1e3:8.1f} ms ({result['cpu_ratio']:.2f}x)  wall "
                f"{sdk['wall_s'] * 1e3:9.1f} ms vs {ours['wall_s'] * 1e3:8.1f} ms "
                f"({result['wall_ratio']:.2f}x)  bar {bar['kind']} >= {bar['at_least']}x: "
                f"{'met' if bar['met'] else 'NOT met'}"
            )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
