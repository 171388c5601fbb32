"""FastMCP's own client (``fastmcp.Client`` with FastMCP's ``StreamableHttpTransport``) over the
SDK's Streamable HTTP transport against the same over mcpstream (``mcpstream.sdk.install()``),
in one process, rounds alternating.

``python benches/frameworks_compare.py [--rounds N] [--json FILE]``, where FastMCP is installed
(the venv of scripts/framework-tests.sh), starts the replay server (``replay_server.py``, a
process of its own, so that the client is what is measured), opens one FastMCP session
(``mode="legacy"``: the replay server speaks the handshake era) before ``install()`` and one
while it is in effect (the transport is chosen when a session connects), and runs each workload
round by round, alternating the two: ``large`` (one call, a 16 MiB text result; FastMCP's
transport is given ``max_sse_event_size=None``, its 1 MiB default would refuse it) and
``small300`` (300 small calls). Each round's CPU time (``time.process_time``: every thread of
the process) and wall time are recorded; the medians and the ratios (SDK / mcpstream) are
printed. Every round checks what it received.
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

import fastmcp
import mcpstream.sdk
from fastmcp.client.transports import StreamableHttpTransport

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from replay_server import LARGE_TEXT_BYTES  # noqa: E402

SMALL_CALLS = 300
WORKLOADS = ("large", "small300")


class Side:
    """One FastMCP session, opened over the SDK's transport or, installed, over mcpstream's."""

    def __init__(self, name: str, url: str) -> None:
        self.name, self.url = name, url
        self.client: fastmcp.Client[Any]

    async def open(self, stack: AsyncExitStack) -> None:
        if self.name == "mcpstream":
            mcpstream.sdk.install()
        try:
            transport = StreamableHttpTransport(self.url, max_sse_event_size=None)
            client = fastmcp.Client(transport, mode="legacy")
            self.client = await stack.enter_async_context(client)
        finally:
            mcpstream.sdk.uninstall()  # the open session keeps the transport it connected with

    async def round(self, workload: str) -> None:
        if workload == "large":
            result = await self.client.call_tool("large", {})
            assert len(result.content[0].text) == LARGE_TEXT_BYTES  # type: ignore[union-attr]
        else:
            for _ in range(SMALL_CALLS):
                result = await self.client.call_tool("small", {})
                assert not result.is_error


async def _measure(side: Side, workload: str) -> tuple[float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    await side.round(workload)
    return time.process_time() - cpu, time.perf_counter() - wall


async def compare(url: str, rounds: int) -> dict[str, Any]:
    sides = [Side("sdk", url), Side("mcpstream", url)]
    results: dict[str, Any] = {}
    async with AsyncExitStack() as stack:
        for side in sides:
            await side.open(stack)
        for workload in WORKLOADS:
            times: dict[str, list[tuple[float, float]]] = {side.name: [] for side in sides}
            for side in sides:  # warm-up
                await side.round(workload)
            for index in range(rounds):
                order = sides if index % 2 == 0 else sides[::-1]
                for side in order:
                    times[side.name].append(await _measure(side, workload))
            results[workload] = _summary(times)
    return results


def _summary(times: dict[str, list[tuple[float, float]]]) -> dict[str, Any]:
    medians = {
        name: {
            "cpu_s": statistics.median(cpu for cpu, _ in runs),
            "wall_s": statistics.median(wall for _, wall in runs),
        }
        for name, runs in times.items()
    }
    return {
        "medians": medians,
        "cpu_ratio": medians["sdk"]["cpu_s"] / medians["mcpstream"]["cpu_s"],
        "wall_ratio": medians["sdk"]["wall_s"] / medians["mcpstream"]["wall_s"],
        "rounds": times,
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
    print(f"FastMCP {fastmcp.__version__}, SDK transport vs mcpstream.sdk.install()")
    for workload, result in results.items():
        sdk, ours = result["medians"]["sdk"], result["medians"]["mcpstream"]
        print(
            f"{workload:10} CPU {sdk['cpu_s'] * 1e3:9.1f} ms vs {ours['cpu_s'] * 1e3:8.1f} ms "
            f"({result['cpu_ratio']:.2f}x)  wall {sdk['wall_s'] * 1e3:9.1f} ms vs "
            f"{ours['wall_s'] * 1e3:8.1f} ms ({result['wall_ratio']:.2f}x)"
        )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
