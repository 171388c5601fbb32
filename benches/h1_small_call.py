"""One small ``tools/call`` on an open session, sync and async, from the floors up to
mcpstream's clients over httpx and over the HTTP/1.1 transport (``mcpstream._http.h1``).

``python benches/h1_small_call.py [--rounds N] [--calls N] [--json FILE] [--loop uvloop]
[--concurrent N]`` starts the replay server (``replay_server.py``, a process of its own) and
measures, in this one process, rounds alternating (the order of the sides turns each round),
the wall time and CPU time (``time.process_time``) per call of:

- sync: ``socket`` (the request bytes on a bare keep-alive socket, the answer read to the end
  of its chunked body: the floor), ``httpx`` and ``httpx2`` (bare ``Client.post``, the body
  read), ``httpx-h1`` (bare ``httpx.Client`` over ``Http1Transport``), ``client`` (mcpstream's
  ``Client`` on its own httpx client over httpx's transport: ``MCPSTREAM_H1_TRANSPORT=0`` while
  it is made), ``client-h1`` (the same over the HTTP/1.1 transport, the default);
- async: ``streams`` (asyncio streams: the floor), ``httpx``, ``httpx2``, ``httpx-h1``,
  ``client``, ``client-h1``, the same over ``AsyncClient`` and ``AsyncHttp1Transport``.

Medians per call are printed with their ratio to the floor. ``--concurrent N`` runs the async
sides as N sessions each, all calling at once on the one event loop (``--calls`` each per
round); ``--loop uvloop`` runs the async sides on uvloop's event loop (a host's choice, not a
dependency of mcpstream). Every call checks that its answer
holds the tool's result. ``--callgrind`` counts instructions per call instead (valgrind's
callgrind, each side in a process of its own run at two numbers of calls: the difference per
call, so that start-up and the session's opening cancel out); ``--only SIDE`` (``sync:client``)
runs one side, as ``--callgrind`` does. Figures only mean something on a release build.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from replay_server import running

HERE = Path(__file__).parent
PROTOCOL_VERSION = "2025-11-25"
SYNC_SIDES = ("socket", "httpx", "httpx2", "httpx-h1", "client", "client-h1")
ASYNC_SIDES = ("streams", "httpx", "httpx2", "httpx-h1", "client", "client-h1")
FLOORS = {"sync": "socket", "async": "streams"}
HEADERS = {
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": PROTOCOL_VERSION,
}


def call_body(request_id: int) -> bytes:
    message = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": "small", "arguments": {}},
    }
    return json.dumps(message, separators=(",", ":")).encode()


def checked(data: bytes) -> None:
    if b'"ok"' not in data:
        raise AssertionError(f"not the tool's result: {data[:200]!r}")


def raw_head(url: str) -> bytes:
    parts = urlsplit(url)
    fields = "".join(f"{name}: {value}\r\n" for name, value in HEADERS.items())
    return f"POST {parts.path} HTTP/1.1\r\nhost: {parts.netloc}\r\n{fields}".encode()


@contextlib.contextmanager
def h1_transport(on: bool) -> Iterator[None]:
    """mcpstream's own clients made in the block are on the HTTP/1.1 transport (``on``, the
    default) or on httpx's (``MCPSTREAM_H1_TRANSPORT=0``)."""
    before = os.environ.get("MCPSTREAM_H1_TRANSPORT")
    os.environ["MCPSTREAM_H1_TRANSPORT"] = "1" if on else "0"
    try:
        yield
    finally:
        if before is None:
            del os.environ["MCPSTREAM_H1_TRANSPORT"]
        else:
            os.environ["MCPSTREAM_H1_TRANSPORT"] = before


# -- sync sides: each a () -> None making one call -----------------------------------------


class SocketFloor:
    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        assert parts.hostname is not None and parts.port is not None
        self.sock = socket.create_connection((parts.hostname, parts.port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.head = raw_head(url)
        self.next_id = 0

    def __call__(self) -> None:
        self.next_id += 1
        body = call_body(self.next_id)
        self.sock.sendall(self.head + b"content-length: %d\r\n\r\n" % len(body) + body)
        data = b""
        while not data.endswith(b"\r\n0\r\n\r\n"):
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed")
            data += chunk
        checked(data)

    def close(self) -> None:
        self.sock.close()


class BareSync:
    def __init__(self, url: str, side: str) -> None:
        if side == "httpx2":
            import httpx2

            self.client: Any = httpx2.Client()
        else:
            import httpx

            transport = None
            if side == "httpx-h1":
                from mcpstream._http.h1 import Http1Transport

                transport = Http1Transport()
            self.client = httpx.Client(transport=transport)
        self.url = url
        self.next_id = 0

    def __call__(self) -> None:
        self.next_id += 1
        response = self.client.post(self.url, headers=HEADERS, content=call_body(self.next_id))
        checked(response.content)

    def close(self) -> None:
        self.client.close()


class ClientSync:
    def __init__(self, url: str, side: str) -> None:
        from mcpstream import Client

        with h1_transport(side == "client-h1"):
            self.client = Client(url)
            self.client.__enter__()

    def __call__(self) -> None:
        result = self.client.call_tool("small", {})
        if result.text != "ok":
            raise AssertionError(f"not the tool's result: {result!r}")

    def close(self) -> None:
        self.client.close()


def make_sync(side: str, url: str) -> Any:
    if side == "socket":
        return SocketFloor(url)
    if side.startswith("client"):
        return ClientSync(url, side)
    return BareSync(url, side)


# -- async sides ---------------------------------------------------------------------------


class StreamsFloor:
    async def open(self, url: str) -> None:
        parts = urlsplit(url)
        self.reader, self.writer = await asyncio.open_connection(parts.hostname, parts.port)
        self.head = raw_head(url)
        self.next_id = 0

    async def __call__(self) -> None:
        self.next_id += 1
        body = call_body(self.next_id)
        self.writer.write(self.head + b"content-length: %d\r\n\r\n" % len(body) + body)
        data = await self.reader.readuntil(b"\r\n0\r\n\r\n")
        checked(data)

    async def close(self) -> None:
        self.writer.close()


class BareAsync:
    def __init__(self, side: str) -> None:
        self.side = side

    async def open(self, url: str) -> None:
        if self.side == "httpx2":
            import httpx2

            self.client: Any = httpx2.AsyncClient()
        else:
            import httpx

            transport = None
            if self.side == "httpx-h1":
                from mcpstream._http.h1 import AsyncHttp1Transport

                transport = AsyncHttp1Transport()
            self.client = httpx.AsyncClient(transport=transport)
        self.url = url
        self.next_id = 0

    async def __call__(self) -> None:
        self.next_id += 1
        body = call_body(self.next_id)
        response = await self.client.post(self.url, headers=HEADERS, content=body)
        checked(response.content)

    async def close(self) -> None:
        await self.client.aclose()


class ClientAsync:
    def __init__(self, side: str) -> None:
        self.side = side

    async def open(self, url: str) -> None:
        from mcpstream import AsyncClient

        with h1_transport(self.side == "client-h1"):
            self.client = AsyncClient(url)
            await self.client.__aenter__()

    async def __call__(self) -> None:
        result = await self.client.call_tool("small", {})
        if result.text != "ok":
            raise AssertionError(f"not the tool's result: {result!r}")

    async def close(self) -> None:
        await self.client.close()


def make_async(side: str) -> Any:
    if side == "streams":
        return StreamsFloor()
    if side.startswith("client"):
        return ClientAsync(side)
    return BareAsync(side)


# -- measurement ---------------------------------------------------------------------------


def timed(call: Callable[[], None], calls: int) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(calls):
        call()
    return (time.perf_counter() - wall) / calls, (time.process_time() - cpu) / calls


async def atimed(call: Callable[[], Awaitable[None]], calls: int) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(calls):
        await call()
    return (time.perf_counter() - wall) / calls, (time.process_time() - cpu) / calls


Samples = dict[str, list[tuple[float, float]]]


def run_sync(url: str, sides: tuple[str, ...], rounds: int, calls: int) -> Samples:
    made = {side: make_sync(side, url) for side in sides}
    samples: Samples = {side: [] for side in sides}
    try:
        for side in sides:  # warm-up
            timed(made[side], max(calls // 5, 5))
        for index in range(rounds):
            order = sides if index % 2 == 0 else tuple(reversed(sides))
            for side in order:
                samples[side].append(timed(made[side], calls))
    finally:
        for side in sides:
            made[side].close()
    return samples


async def run_async(url: str, sides: tuple[str, ...], rounds: int, calls: int) -> Samples:
    made = {side: make_async(side) for side in sides}
    for side in sides:
        await made[side].open(url)
    samples: Samples = {side: [] for side in sides}
    try:
        for side in sides:
            await atimed(made[side], max(calls // 5, 5))
        for index in range(rounds):
            order = sides if index % 2 == 0 else tuple(reversed(sides))
            for side in order:
                samples[side].append(await atimed(made[side], calls))
    finally:
        for side in sides:
            await made[side].close()
    return samples


async def run_concurrent(
    url: str, sides: tuple[str, ...], sessions: int, rounds: int, calls: int
) -> Samples:
    """``--concurrent N``: each async side as ``N`` sessions open at once, all making their
    ``calls`` calls at the same time on the one event loop; per call, the round's wall and CPU
    time over all its calls (the sessions' opening not counted)."""
    made = {side: [make_async(side) for _ in range(sessions)] for side in sides}
    for side in sides:
        await asyncio.gather(*(one.open(url) for one in made[side]))
    samples: Samples = {side: [] for side in sides}

    async def each(one: Any, count: int) -> None:
        for _ in range(count):
            await one()

    try:
        for index in range(rounds + 1):
            order = sides if index % 2 == 0 else tuple(reversed(sides))
            for side in order:
                wall, cpu = time.perf_counter(), time.process_time()
                await asyncio.gather(*(each(one, calls) for one in made[side]))
                total = sessions * calls
                if index:  # the first round warms up
                    samples[side].append(
                        ((time.perf_counter() - wall) / total, (time.process_time() - cpu) / total)
                    )
    finally:
        for side in sides:
            await asyncio.gather(*(one.close() for one in made[side]))
    return samples


def report(kind: str, samples: Samples) -> dict[str, dict[str, float]]:
    floor = FLOORS[kind]
    floor_wall = statistics.median(wall for wall, _ in samples[floor])
    floor_cpu = statistics.median(cpu for _, cpu in samples[floor])
    table: dict[str, dict[str, float]] = {}
    print(f"\n{kind}: median per call (ratio to {floor})")
    print(f"  {'side':<12} {'wall us':>10} {'x':>7} {'cpu us':>10} {'x':>7}")
    for side, rows in samples.items():
        wall = statistics.median(w for w, _ in rows)
        cpu = statistics.median(c for _, c in rows)
        table[side] = {"wall_us": wall * 1e6, "cpu_us": cpu * 1e6}
        print(
            f"  {side:<12} {wall * 1e6:>10.1f} {wall / floor_wall:>7.2f}"
            f" {cpu * 1e6:>10.1f} {cpu / floor_cpu:>7.2f}"
        )
    return table


def run_one(url: str, kind: str, side: str, calls: int) -> None:
    """``--only``: one side, ``calls`` calls after opening (what callgrind counts)."""
    if kind == "sync":
        made = make_sync(side, url)
        try:
            for _ in range(calls):
                made()
        finally:
            made.close()
        return

    async def main() -> None:
        made = make_async(side)
        await made.open(url)
        try:
            for _ in range(calls):
                await made()
        finally:
            await made.close()

    asyncio.run(main())


def instructions(url: str, kind: str, side: str, calls: int) -> int:
    """The instructions callgrind counts for a process making ``calls`` calls on ``side``."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        command = [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={out}",
            sys.executable,
            __file__,
            "--only",
            f"{kind}:{side}",
            "--calls",
            str(calls),
            "--url",
            url,
        ]
        subprocess.run(command, check=True, capture_output=True)
        match = re.search(r"^(?:summary|totals): (\d+)", out.read_text(), re.MULTILINE)
        if match is None:
            raise RuntimeError("no instruction count in callgrind's output")
        return int(match.group(1))


def callgrind(url: str, sides: dict[str, tuple[str, ...]], calls: int) -> dict[str, Any]:
    few, many = max(calls // 5, 10), calls
    results: dict[str, Any] = {}
    for kind, names in sides.items():
        floor_per_call = None
        print(f"\n{kind}: instructions per call (callgrind, {many} - {few} calls; x the floor)")
        for side in names:
            per_call = (
                instructions(url, kind, side, many) - instructions(url, kind, side, few)
            ) / (many - few)
            if side == FLOORS[kind]:
                floor_per_call = per_call
            ratio = per_call / floor_per_call if floor_per_call else float("nan")
            results[f"{kind}:{side}"] = per_call
            print(f"  {side:<12} {per_call:>12,.0f} {ratio:>7.2f}")
    return results


def _loop_factory(name: str) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """The event loop factory of ``--loop``: None for asyncio's own."""
    if name == "uvloop":
        import uvloop

        return uvloop.new_event_loop
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--calls", type=int, default=200, help="calls per side and round")
    parser.add_argument("--kind", choices=("sync", "async", "both"), default="both")
    parser.add_argument("--callgrind", action="store_true", help="count instructions instead")
    parser.add_argument("--only", help="KIND:SIDE: run one side --calls times, nothing printed")
    parser.add_argument("--url", help="a replay server already running (for --only)")
    parser.add_argument("--sides", help="a comma-separated subset of the sides (the floor kept)")
    parser.add_argument("--json", type=Path, help="write the medians here")
    parser.add_argument(
        "--concurrent",
        type=int,
        metavar="N",
        help="async only: N sessions of each side calling at once (--calls each per round)",
    )
    parser.add_argument(
        "--loop",
        choices=("asyncio", "uvloop"),
        default="asyncio",
        help="the event loop of the async sides (uvloop: what a host may choose; not a dependency)",
    )
    args = parser.parse_args()
    if args.only:
        kind, side = args.only.split(":", 1)
        run_one(args.url, kind, side, args.calls)
        return
    kinds = ("sync", "async") if args.kind == "both" else (args.kind,)
    sides = {"sync": SYNC_SIDES, "async": ASYNC_SIDES}
    if args.sides:
        chosen = set(args.sides.split(","))
        sides = {
            kind: tuple(s for s in names if s in chosen or s == FLOORS[kind])
            for kind, names in sides.items()
        }
    with running() as url:
        if args.callgrind:
            results: dict[str, Any] = callgrind(url, {k: sides[k] for k in kinds}, args.calls)
        else:
            results = {}
            if "sync" in kinds:
                samples = run_sync(url, sides["sync"], args.rounds, args.calls)
                results["sync"] = report("sync", samples)
            if "async" in kinds:
                runner = asyncio.Runner(loop_factory=_loop_factory(args.loop))
                with runner:
                    if args.concurrent:
                        run = run_concurrent(
                            url, sides["async"], args.concurrent, args.rounds, args.calls
                        )
                    else:
                        run = run_async(url, sides["async"], args.rounds, args.calls)
                    samples = runner.run(run)
                results["async"] = report("async", samples)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
