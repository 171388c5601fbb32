"""A session per call, as many hosts open them: open a session, make one small call, close it,
30 times a round, each side in one process, rounds alternating, over plain HTTP and HTTPS.

``python benches/sessions_compare.py [--rounds N] [--json FILE] [--scheme http|https|both]
[--era legacy|modern|both] [--pairs all|clients]``
starts the replay server (``replay_server.py``, a process of its own, over TLS with a
certificate made for the run for ``https``), and compares, round by round:

- ``mcp.Client`` over the SDK's own Streamable HTTP transport against ``mcp.Client`` over
  ``mcpstream.sdk``, each with one long-lived host ``httpx2.AsyncClient`` passed to every
  session (as the SDK recommends; ``sdk-host``, ``mcpstream-host``), and each with the client
  its transport makes for every session (``sdk``, ``mcpstream``);
- ``mcpstream.AsyncClient`` and ``mcpstream.Client`` opened, called once and closed
  (``async-session``, ``sync-session``) against one small call on a client kept open
  (``async-call``, ``sync-call``): what a session costs over a call.

Each round's CPU time (``time.process_time``) and wall time are recorded and the medians and
ratios printed, with the connections each side opened per session (counted by the server),
beside the bars: with a host client, CPU and wall <= 0.8x the SDK's transport; a session of
``Client``/``AsyncClient`` at 2025-11-25 (initialize, initialized, the call, the closing
DELETE) CPU <= 4.5x one call on an open one, and at 2026-07-28 (``--era modern``: the replay
server answers ``server/discover``; only the ``Client``/``AsyncClient`` pairs) <= 2x.
``--era legacy|modern|both`` picks the server's era (both by default); ``--pairs clients``
measures only the ``Client``/``AsyncClient`` pairs (at every era).
"""

from __future__ import annotations

import asyncio
import os
import ssl
import sys
import tempfile
import urllib.request
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx2
import mcp_types as types
from mcp import Client as SdkClient
from mcp.client.streamable_http import streamable_http_client as sdk_transport
from mcpstream import AsyncClient, Client
from mcpstream.sdk import streamable_http_client as mcpstream_transport

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(1, str(Path(__file__).parent.parent))  # the tests' certificate maker

from alternating import Times, alternate, parser, summary, write_json
from replay_server import SMALL_TEXT, running

from tests.plain_http.tls import self_signed_certificate

SESSIONS = 30
"""Sessions (or calls) in one round."""

PAIRS = {
    "host client": ("sdk-host", "mcpstream-host"),
    "own client": ("sdk", "mcpstream"),
    "AsyncClient: session / call": ("async-session", "async-call"),
    "Client: session / call": ("sync-session", "sync-call"),
}


def connections(url: str, context: ssl.SSLContext | None) -> int:
    """The connections the replay server at ``url`` accepted so far (this one not counted)."""
    base = url.rsplit("/", 1)[0]
    with urllib.request.urlopen(f"{base}/connections", context=context, timeout=10) as answer:
        return int(answer.read()) - 1


def _text(result: Any) -> str:
    text = result.content[0]
    assert isinstance(text, types.TextContent)
    return str(text.text)


class Sides:
    """Every side of one scheme: ``rounds`` maps each name to its round."""

    def __init__(self, url: str, context: ssl.SSLContext | None) -> None:
        self.url = url
        self.host = httpx2.AsyncClient(
            verify=context or True, timeout=httpx2.Timeout(30.0, read=300.0)
        )
        self.open_async: AsyncClient | None = None
        self.open_sync: Client | None = None
        self.rounds: dict[str, Callable[[str], Awaitable[None]]] = {
            "sdk-host": self._sdk(host=True),
            "mcpstream-host": self._mcpstream(host=True),
            "sdk": self._sdk(host=False),
            "mcpstream": self._mcpstream(host=False),
            "async-session": self._async_session,
            "async-call": self._async_call,
            "sync-session": self._sync_session,
            "sync-call": self._sync_call,
        }

    def _sdk(self, host: bool) -> Callable[[str], Awaitable[None]]:
        async def round_(_: str) -> None:
            for _index in range(SESSIONS):
                transport = sdk_transport(self.url, http_client=self.host if host else None)
                async with SdkClient(transport, mode="legacy") as client:
                    assert _text(await client.call_tool("small", {})) == SMALL_TEXT

        return round_

    def _mcpstream(self, host: bool) -> Callable[[str], Awaitable[None]]:
        async def round_(_: str) -> None:
            for _index in range(SESSIONS):
                transport = mcpstream_transport(self.url, http_client=self.host if host else None)
                async with SdkClient(transport, mode="legacy") as client:
                    assert _text(await client.call_tool("small", {})) == SMALL_TEXT

        return round_

    async def _async_session(self, _: str) -> None:
        for _index in range(SESSIONS):
            async with AsyncClient(self.url) as client:
                assert (await client.call_tool("small", {})).text == SMALL_TEXT

    async def _async_call(self, _: str) -> None:
        if self.open_async is None:
            self.open_async = await AsyncClient(self.url).__aenter__()
        for _index in range(SESSIONS):
            assert (await self.open_async.call_tool("small", {})).text == SMALL_TEXT

    async def _sync_session(self, _: str) -> None:
        for _index in range(SESSIONS):
            with Client(self.url) as client:
                assert client.call_tool("small", {}).text == SMALL_TEXT

    async def _sync_call(self, _: str) -> None:
        if self.open_sync is None:
            self.open_sync = Client(self.url).__enter__()
        for _index in range(SESSIONS):
            assert self.open_sync.call_tool("small", {}).text == SMALL_TEXT

    async def close(self) -> None:
        if self.open_async is not None:
            await self.open_async.__aexit__(None, None, None)
        if self.open_sync is not None:
            self.open_sync.__exit__(None, None, None)
        await self.host.aclose()


async def compare(
    url: str, context: ssl.SSLContext | None, rounds: int, pairs: dict[str, tuple[str, str]]
) -> dict[str, Any]:
    sides = Sides(url, context)
    wanted = {name for pair in pairs.values() for name in pair}
    measured = {name: round_ for name, round_ in sides.rounds.items() if name in wanted}
    try:
        opened: dict[str, float] = {}
        for name, round_ in measured.items():  # a counted pass, untimed (the warm-up too)
            before = connections(url, context)
            await round_("session")
            opened[name] = (connections(url, context) - before) / SESSIONS
        times = (await alternate(measured, ["session"], rounds))["session"]
    finally:
        await sides.close()
    return {pair: _summary(times, pairs[pair], opened) for pair in pairs}


def _summary(
    times: dict[str, Times], sides: tuple[str, str], opened: dict[str, float]
) -> dict[str, Any]:
    theirs, ours = sides
    result = summary(times, theirs, ours)
    result["connections_per_session"] = {theirs: opened[theirs], ours: opened[ours]}
    return result


BARS = {
    "host client": ("mcpstream / SDK", 0.8),
    "own client": ("mcpstream / SDK", None),
    "AsyncClient: session / call": ("session / call", 4.5),
    "Client: session / call": ("session / call", 4.5),
}
MODERN_PAIRS = {
    "AsyncClient: session / call": ("async-session", "async-call"),
    "Client: session / call": ("sync-session", "sync-call"),
}
"""The pairs measured against the server of 2026-07-28 (``--era modern``), whose bar is 2x."""
MODERN_BAR = 2.0
"""Each pair's ratio (the second side's figure over the first's, or the reverse) and its bar:
at most this much CPU."""


def report(scheme: str, results: dict[str, Any], modern: bool = False) -> None:
    """One line a pair: CPU and wall per session (or call), the ratio, the connections."""
    for pair, result in results.items():
        theirs, ours = result["sides"]
        medians = result["medians"]
        cpu = {name: medians[name]["cpu_s"] / SESSIONS * 1e6 for name in (theirs, ours)}
        wall = {name: medians[name]["wall_s"] / SESSIONS * 1e6 for name in (theirs, ours)}
        conns = result["connections_per_session"]
        label, bar = BARS[pair]
        if modern:
            bar = MODERN_BAR
        era = " 2026" if modern else ""
        if label == "session / call":
            cpu_ratio, wall_ratio = result["cpu_ratio"], result["wall_ratio"]
        else:
            cpu_ratio, wall_ratio = 1 / result["cpu_ratio"], 1 / result["wall_ratio"]
        met = (
            ""
            if bar is None
            else f"  bar CPU <= {bar}x: {'met' if cpu_ratio <= bar else 'NOT met'}"
        )
        print(
            f"{scheme:5}{era} {pair:28} CPU {cpu[theirs]:6.0f} / {cpu[ours]:6.0f} us, wall "
            f"{wall[theirs]:6.0f} / {wall[ours]:6.0f} us: {label} CPU {cpu_ratio:.2f}x, wall "
            f"{wall_ratio:.2f}x; connections a session {conns[theirs]:.2f} / {conns[ours]:.2f}"
            f"{met}"
        )


def main() -> None:
    arguments = parser(__doc__)
    arguments.add_argument("--scheme", choices=("http", "https", "both"), default="both")
    arguments.add_argument(
        "--era", choices=("legacy", "modern", "both"), default="both", help="the server's era"
    )
    arguments.add_argument(
        "--pairs",
        choices=("all", "clients"),
        default="all",
        help="clients: only the Client/AsyncClient pairs",
    )
    args = arguments.parse_args()
    schemes = ["http", "https"] if args.scheme == "both" else [args.scheme]
    eras = ["legacy", "modern"] if args.era == "both" else [args.era]
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as directory:
        cert, key = self_signed_certificate(Path(directory))
        # mcpstream's own clients and the SDK's trust the run's certificate as httpx does.
        os.environ["SSL_CERT_FILE"] = str(cert)
        context = ssl.create_default_context(cafile=str(cert))
        for era, scheme in [(era, scheme) for era in eras for scheme in schemes]:
            options = ("--framing", "length", "--era", era) + (
                ("--tls", str(cert), str(key)) if scheme == "https" else ()
            )
            modern = era == "modern"
            name = f"{scheme}-2026-07-28" if modern else scheme
            with running(*options) as url:
                results[name] = asyncio.run(
                    compare(
                        url,
                        context if scheme == "https" else None,
                        args.rounds,
                        MODERN_PAIRS if modern or args.pairs == "clients" else PAIRS,
                    )
                )
            report(scheme, results[name], modern)
    write_json(args.json, results)


if __name__ == "__main__":
    main()
