"""The soak: every front end, for ``--minutes``, against a real server killed and restarted.

``python benches/soak.py --minutes 2 --ci`` (CI), ``python benches/soak.py --minutes 30
--markdown docs/benchmarks.md`` (the figures of the benchmarks page).

One official SDK server (``soak_server.py``, both eras: the SDK picks by the request) behind a
loopback proxy that cuts large answers mid-stream (``soak_proxy.py``) is SIGKILLed every
``--kill-every`` seconds and restarted on the same port: every session is forgotten (expiry).
Every third kill from the second on restarts it trapped: it dies again at the
``notifications/initialized`` of each 2025-11-25 client in turn, just after answering its
``initialize``. Each front end, in each era, runs in a worker process of its own
(``soak_worker.py``) calling at ``--rate`` calls a second, with stalls past the call's timeout
and large answers among the calls. The mcpstream front ends run again with the pure-Python codec
(``MCPSTREAM_BACKEND=python``); ``reference`` (``mcp.Client`` over the SDK's own transport) is
the anchor, shown but never failing the soak.

The table: calls, errors by class, forced reopens (a client thrown away after every call failed
10 times in a row, or for 10 s, with the server up), hangs (a call past its timeout by 5 s), RSS
and traced memory (``tracemalloc``) growth per 1,000 calls after warm-up, and fds, threads and
tasks of the open client at the baseline (after warm-up) and at the end. The exit status is 1
on a forced reopen, a hang, a level above its baseline at the end or after a close, and
(without ``--ci``, over 5,000 calls after warm-up) growth over 128 KiB per 1,000 calls or the
reference's own figure. Every worker's samples, as it wrote them, are saved beside its log
(``NAME@ERA.samples.jsonl``, with the C heap's used and free memory and the threads started).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import signal
import socket
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCHES = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCHES))

from soak_fronts import FRONT_ENDS, LEGACY, MODERN  # noqa: E402
from soak_logic import Levels, Result, Sample, failures, summarize, table  # noqa: E402
from soak_proxy import ResettingProxy  # noqa: E402

PYTHON_CODEC = ("transport", "async-client")
"""The front ends run a second time with ``MCPSTREAM_BACKEND=python``: one sync, one async."""
PYTHON_SUFFIX = "+python"
COOLDOWN_S = 15.0
"""No fault in the last seconds: the end levels are those of a client back at rest."""
WINDOW_S = 12.0
"""The baseline and end windows: two samples with levels at least."""
START_TIMEOUT_S = 120.0
"""A server's start on a busy machine, its imports among a dozen starting processes."""
SILENCE_S = 60.0
"""A worker silent this long (no sample, no result) is hung."""
BLOCK = re.compile(r"(<!-- soak:table -->\n).*?(<!-- /soak:table -->)", re.DOTALL)


def free_port() -> int:
    """A free loopback port (for the server, which restarts on it)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Server:
    """The soak server's process, killed and restarted on one port; ``status`` tells the
    workers whether it is up, and since when (see ``soak_worker.server_up_since``)."""

    def __init__(self, port: int, status: Path) -> None:
        self.port = port
        self.status = status
        self.kills = 0
        self.trapped: list[str] = []
        self.spared: list[str] = []
        """The clients trapped since this trap began: spared until the next."""
        self.process: asyncio.subprocess.Process | None = None
        self.spawned: list[asyncio.subprocess.Process] = []
        self.trap = False
        self._watch: asyncio.Task[None] | None = None

    def _write_status(self, state: str) -> None:
        scratch = self.status.with_suffix(".new")
        scratch.write_text(f"{state} {time.monotonic()}")
        scratch.replace(self.status)

    async def start(self, trap: bool = False) -> None:
        """Start a server (``trap``: one that dies at the handshake of a client not trapped
        since the trap began)."""
        if trap and not self.trap:
            self.spared = []
        self.trap = trap
        args = [str(BENCHES / "soak_server.py"), str(self.port)]
        if trap:
            args += ["--trap", "--spare", ",".join(self.spared)]
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, *args, stdout=asyncio.subprocess.PIPE
        )
        self.spawned.append(self.process)
        assert self.process.stdout is not None
        line = await asyncio.wait_for(self.process.stdout.readline(), START_TIMEOUT_S)
        if line.strip() != b"READY":
            raise RuntimeError(f"the soak server did not start: {line!r}")
        self._write_status("up")
        self._watch = asyncio.create_task(self._watch_trap(self.process))

    async def _watch_trap(self, process: asyncio.subprocess.Process) -> None:
        """Restart the server at once when it dies by itself: trapped at a client's handshake
        (then trapped again, that client spared), or of anything else."""
        assert process.stdout is not None
        line = await process.stdout.readline()
        await process.wait()
        if process is not self.process:
            return
        self._write_status("down")
        if line.startswith(b"TRAPPED "):
            self.trapped.append(line.split()[1].decode())
            self.spared.append(self.trapped[-1])
        await self.start(trap=self.trap)

    async def kill(self, stop: bool = False) -> None:
        """SIGKILL the server and wait for it to be gone (``stop``: for good, not counted)."""
        self._write_status("down")
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError, RuntimeError):
                await self._watch
        self.process = None
        # every process started, should a restart have been cut short by this kill
        for process in self.spawned:
            if process.returncode is None:
                process.send_signal(signal.SIGKILL)
                await process.wait()
        self.spawned = []
        if not stop:
            self.kills += 1


@dataclass
class Worker:
    """One front end in one era, in its process."""

    front: str
    era: str
    process: asyncio.subprocess.Process | None = None
    samples: list[Sample] = field(default_factory=list)
    done: dict[str, Any] = field(default_factory=dict)
    heard: float = 0.0
    raw: list[dict[str, Any]] = field(default_factory=list)
    """Every record as the worker wrote it (saved beside the logs, for a closer look)."""

    @property
    def name(self) -> str:
        return f"{self.front}@{self.era}"


async def start_worker(
    worker: Worker, url: str, status: Path, until: float, args: argparse.Namespace
) -> None:
    """Start the worker's process."""
    # a hung worker is ended with SIGABRT: faulthandler writes its threads' stacks to its log
    env = {**os.environ, "PYTHONFAULTHANDLER": "1"}
    front = worker.front
    if front.endswith(PYTHON_SUFFIX):
        front = front.removesuffix(PYTHON_SUFFIX)
        env["MCPSTREAM_BACKEND"] = "python"
    command = [str(BENCHES / "soak_worker.py"), front, worker.era, url, str(status)]
    command += ["--until", str(until), "--rate", str(args.rate)]
    # the clients' own logs (the SDK's tracebacks of a killed server) to a file apiece
    with (status.parent / f"{worker.name}.log").open("wb") as log:
        worker.process = await asyncio.create_subprocess_exec(
            sys.executable, *command, stdout=asyncio.subprocess.PIPE, stderr=log, env=env
        )
    worker.heard = time.monotonic()


async def listen(worker: Worker, started: float) -> None:
    """Read the worker's samples and result until it ends."""
    assert worker.process is not None and worker.process.stdout is not None
    async for line in worker.process.stdout:
        worker.heard = time.monotonic()
        record = json.loads(line)
        worker.raw.append(record)
        if record["type"] == "done":
            worker.done = record
            continue
        levels = None
        if "fds" in record:
            levels = Levels(fds=record["fds"], threads=record["threads"], tasks=record["tasks"])
        worker.samples.append(
            Sample(
                at=record["at"] - started,
                calls=record["calls"],
                rss_kib=record["rss_kib"],
                traced_kib=record["traced_kib"],
                levels=levels,
                healthy=record["healthy"],
            )
        )
    await worker.process.wait()


async def watch(workers: list[Worker], ends: float) -> None:
    """Kill a worker silent for ``SILENCE_S`` (a hang), or still alive a minute after the
    end."""
    while any(w.process is not None and w.process.returncode is None for w in workers):
        now = time.monotonic()
        for worker in workers:
            process = worker.process
            if process is None or process.returncode is not None:
                continue
            if now - worker.heard > SILENCE_S or now > ends + 60.0:
                worker.done = {**worker.done, "hangs": 1, "note": "worker hung: aborted"}
                process.send_signal(signal.SIGABRT)
        await asyncio.sleep(1.0)


async def faults(server: Server, args: argparse.Namespace) -> None:
    """Kill and restart the server every ``--kill-every`` seconds until the cool-down."""
    stop = time.monotonic() + args.minutes * 60 - COOLDOWN_S
    while (wait := min(args.kill_every, stop - time.monotonic())) > 0:
        await asyncio.sleep(wait)
        if time.monotonic() >= stop:
            break
        await server.kill()
        await server.start(trap=server.kills % 3 == 2)
    if server.trap:
        await server.kill()
        await server.start()


async def soak(
    args: argparse.Namespace, workdir: Path
) -> tuple[list[Result], Server, ResettingProxy]:
    """Run the soak (its files in ``workdir``); the results of every worker, the server and
    the proxy."""
    status = workdir / "status"
    server = Server(free_port(), status)
    await server.start()
    proxy = ResettingProxy(server.port)
    await proxy.start()
    url = f"http://127.0.0.1:{proxy.port}/mcp"
    fronts = list(args.fronts) + [
        front + PYTHON_SUFFIX for front in PYTHON_CODEC if front in args.fronts and args.python
    ]
    workers = [Worker(front, era) for era in args.eras for front in fronts]
    started = time.monotonic()
    ends = started + args.minutes * 60
    for worker in workers:
        await start_worker(worker, url, status, ends, args)
    try:
        await asyncio.gather(
            faults(server, args),
            watch(workers, ends),
            *(listen(worker, started) for worker in workers),
        )
    finally:
        for worker in workers:
            if worker.process is not None and worker.process.returncode is None:
                worker.process.kill()
        await proxy.stop()
        await server.kill(stop=True)
    results = []
    for worker in workers:
        # warm-up: 10% of the run (10 s at least) from the worker's first sample, as many
        # processes starting at once on a busy machine take a while to make their first call
        first = worker.samples[0].at if worker.samples else 0.0
        warmup = first + max(10.0, args.minutes * 6.0)
        result = summarize(worker.front, worker.era, worker.done, worker.samples, warmup, WINDOW_S)
        versions = worker.done.get("versions", [])
        if not worker.done:
            result.note = "no result"
        elif versions and versions != [worker.era]:
            result.note = f"negotiated {', '.join(versions)}"
        results.append(result)
    # every worker's result, with the first message of each error class, beside the logs
    records = {worker.name: worker.done for worker in workers}
    (workdir / "results.json").write_text(json.dumps(records, indent=1))
    for worker in workers:
        lines = "".join(json.dumps(record) + "\n" for record in worker.raw)
        (workdir / f"{worker.name}.samples.jsonl").write_text(lines)
    return results, server, proxy


def write_markdown(path: Path, text: str) -> None:
    """Put ``text`` in the soak's block of ``path`` (the rest of the page left as it is)."""
    page = path.read_text()
    if not BLOCK.search(page):
        raise SystemExit(f"{path} has no <!-- soak:table --> block")
    path.write_text(BLOCK.sub(lambda match: match[1] + text + "\n" + match[2], page))


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=2.0)
    parser.add_argument("--rate", type=float, default=4.0, help="calls a second per front end")
    parser.add_argument("--kill-every", type=float, default=20.0, help="seconds")
    parser.add_argument("--ci", action="store_true", help="fail on reopens, hangs and levels")
    parser.add_argument("--markdown", type=Path, help="write the table into this page")
    parser.add_argument("--fronts", type=lambda text: text.split(","), default=list(FRONT_ENDS))
    parser.add_argument("--eras", type=lambda text: text.split(","), default=[LEGACY, MODERN])
    parser.add_argument(
        "--no-python", dest="python", action="store_false", help="no pure-Python codec runs"
    )
    args = parser.parse_args(argv)
    unknown = set(args.fronts) - set(FRONT_ENDS) or set(args.eras) - {LEGACY, MODERN}
    if unknown:
        parser.error(f"unknown front ends or eras: {', '.join(sorted(unknown))}")
    return args


def main() -> None:
    """Run the soak, print its table, and exit 1 if it failed (see the module docstring)."""
    args = parse()
    workdir = Path(tempfile.mkdtemp(prefix="mcpstream-soak-"))
    results, server, proxy = asyncio.run(soak(args, workdir))
    found = failures(results, ci=args.ci)
    total = sum(result.calls for result in results)
    summary = (
        f"{args.minutes:g} minutes, {len(results)} clients at {args.rate:g} calls/s each, "
        f"{total:,} calls; the server killed {server.kills} times (every "
        f"{args.kill_every:g} s) and dead {len(server.trapped)} more times at a client's "
        f"handshake ({', '.join(server.trapped) or 'none'}); {proxy.cuts} answers reset "
        "mid-stream."
    )
    print(summary)
    print(f"the clients' logs and results.json (the first message of each error): {workdir}")
    print(table(results))
    if args.markdown is not None:
        day = time.strftime("%Y-%m-%d", time.gmtime())
        verdict = "; ".join(found) if found else "none"
        text = f"Measured {day}: {summary}\n\n{table(results)}\n\nFailures: {verdict}."
        write_markdown(args.markdown, text)
    for failure in found:
        print(f"FAIL {failure}")
    if found:
        sys.exit(1)
    print("soak passed")


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        main()
