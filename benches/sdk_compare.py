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

import asyncio
import sys
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client as sdk_transport
from mcpstream.sdk import streamable_http_client as mcpstream_transport

sys.path.insert(0, str(Path(__file__).parent))

from alternating import (
    Notified,
    Times,
    alternate,
    line,
    parser,
    run_workload,
    summary,
    write_json,
)
from replay_server import running

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
        self.notified = Notified()
        self._stack = AsyncExitStack()
        self.client: Client

    async def open(self) -> None:
        if self.name.startswith("sdk"):
            transport = sdk_transport(
                self.url, http_client=self.http_client, max_sse_event_size=None
            )
        else:
            transport = mcpstream_transport(self.url, http_client=self.http_client)
        client = Client(transport, mode="legacy", message_handler=self.notified.handler)
        self.client = await self._stack.enter_async_context(client)

    async def close(self) -> None:
        await self._stack.aclose()

    async def call(self, tool: str) -> str:
        result = await self.client.call_tool(tool, {})
        text = result.content[0]
        assert isinstance(text, types.TextContent)
        return text.text

    async def round(self, workload: str) -> None:
        await run_workload(workload, self.call, self.notified)


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
    try:
        times = await alternate({side.name: side.round for side in sides}, BARS, rounds)
    finally:
        for side in reversed(sides):  # anyio's scopes end in the reverse order of their start
            await side.close()
        await host.aclose()
    return {
        workload: {pair: _summary(workload, runs, pair) for pair in PAIRS}
        for workload, runs in times.items()
    }


def _summary(workload: str, times: dict[str, Times], pair: str) -> dict[str, Any]:
    sdk, ours, bars = PAIRS[pair]
    result = summary(times, sdk, ours)
    kind, bar = bars[workload]
    result["bar"] = {"kind": kind, "at_least": bar, "met": result[f"{kind}_ratio"] >= bar}
    return result


def main() -> None:
    args = parser(__doc__).parse_args()
    with running() as url:
        results = asyncio.run(compare(url, args.rounds))
    for workload, pairs in results.items():
        for pair, result in pairs.items():
            bar = result["bar"]
            print(
                f"{line(f'{workload:14}{pair:5}', result)}  bar {bar['kind']} >= "
                f"{bar['at_least']}x: {'met' if bar['met'] else 'NOT met'}"
            )
    write_json(args.json, results)


if __name__ == "__main__":
    main()
