"""Transport throughput against a loopback replay server: mcpstream (sync and async, native and
pure codec) beside the official ``mcp`` SDK client, on the same bodies.

The server (``replay_server.py``) runs in a process of its own and replays prepared bodies. Each
client runs in a process of its own too (``transport_runner.py``: the codec backend is chosen at
import, so one interpreter per backend), which opens a session and warms up before the first
round. pytest-benchmark times each round from here: the ``run`` line to the worker, the round
(one 16 MiB call; one call streaming 20,000 notifications; 1,000 small calls), and the answer,
whose ``check`` must match what the server sent. The pipe adds some tens of microseconds to
rounds of tens of milliseconds and more; the worker's own timing of each round is kept in
``extra_info["inner_median_s"]`` to show it.

Run with ``python benches/report.py --suite transport`` (which prints the table), or directly
with ``python -m pytest benches/test_transport_throughput.py --benchmark-only``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import pytest
import replay_server
from pytest_benchmark.fixture import BenchmarkFixture
from transport_runner import (
    CALLS_PER_SESSION,
    OPENS,
    REFERENCE,
    SESSION_CALLS,
    SESSIONS,
    SMALL_CALLS,
)

BENCHES = Path(__file__).resolve().parent
READY_TIMEOUT_S = 120.0


@dataclass(frozen=True)
class TransportWorkload:
    """A tool of the replay server: what one round sends and what the client must receive."""

    name: str
    rounds: int
    calls: int
    expected: dict[str, Any]

    @property
    def size(self) -> int:
        """Bytes of body the server sends in one round (ids of one digit)."""
        if not replay_server.TOOLS:
            replay_server.prepare()
        tool = self.name if self.name in replay_server.TOOLS else "small"
        return self.calls * replay_server.TOOLS[tool].size(b"1")


_LARGE_TEXT = replay_server.large_text()

WORKLOADS = {
    workload.name: workload
    for workload in (
        TransportWorkload(
            "large",
            7,
            1,
            {
                "text_chars": replay_server.LARGE_TEXT_BYTES,
                "ends": [_LARGE_TEXT[:12], _LARGE_TEXT[-12:]],
            },
        ),
        TransportWorkload(
            "notifications",
            5,
            1,
            {
                "text": replay_server.NOTIFICATIONS_DONE_TEXT,
                "notifications": replay_server.NOTIFICATIONS,
            },
        ),
        TransportWorkload("small", 5, SMALL_CALLS, {"calls_ok": SMALL_CALLS}),
        TransportWorkload("small_json", 5, SMALL_CALLS, {"calls_ok": SMALL_CALLS}),
        TransportWorkload("small300", 7, SESSION_CALLS, {"calls_ok": SESSION_CALLS}),
        TransportWorkload("open", 7, OPENS, {"calls_ok": OPENS}),
        TransportWorkload(
            "concurrent",
            5,
            SESSIONS * CALLS_PER_SESSION,
            {"calls_ok": SESSIONS * CALLS_PER_SESSION},
        ),
    )
}

CLIENTS: dict[str, tuple[str, str | None]] = {
    "sync_native": ("sync", "native"),
    "sync_pure": ("sync", "python"),
    "async_native": ("async", "native"),
    "async_pure": ("async", "python"),
    "sdk": ("sdk", None),
    "reference": ("reference", "native"),
    "httpx": ("httpx", None),
    "httpx_async": ("httpx_async", None),
    "socket": ("socket", None),
    "sync_httpx2_native": ("sync_httpx2", "native"),
    "async_httpx2_native": ("async_httpx2", "native"),
    "httpx2": ("httpx2", None),
    "sync_own_httpx2_native": ("sync_own_httpx2", "native"),
    "async_own_httpx2_native": ("async_own_httpx2", "native"),
}
"""Implementation key: (client of ``transport_runner.py``, ``MCPSTREAM_BACKEND``)."""

_MCPSTREAM = ["sync_native", "sync_pure", "async_native", "async_pure"]
_HTTPX2 = [
    "sync_httpx2_native",
    "async_httpx2_native",
    "sync_own_httpx2_native",
    "async_own_httpx2_native",
]
_THROUGHPUT = [*_MCPSTREAM, "sdk", *_HTTPX2]
RUNS: dict[str, list[str]] = {
    "large": [*_THROUGHPUT, "httpx", "httpx2", "socket"],
    "notifications": _THROUGHPUT,
    "small": _THROUGHPUT,
    "small_json": _THROUGHPUT,
    "small300": [*_THROUGHPUT, "reference", "httpx", "httpx2", "httpx_async", "socket"],
    "open": [*_MCPSTREAM, "reference"],
    "concurrent": [*_MCPSTREAM, "httpx", "httpx_async"],
}
"""The implementations each workload runs with: the session and small-call workloads beside the
reference transport (and the floors), ``concurrent`` beside bare httpx (async: all sessions
at once; sync: one after the other)."""


@pytest.fixture(scope="module")
def replay_url() -> Iterator[str]:
    """The replay server's URL; the server process lives as long as this module's tests."""
    with replay_server.running() as url:
        yield url


class Worker:
    """A ``transport_runner.py`` process: ``round`` runs one round and returns its answer."""

    def __init__(self, client: str, backend: str | None, workload: str, url: str) -> None:
        env = dict(os.environ)
        env.pop("MCPSTREAM_BACKEND", None)
        if backend is not None:
            env["MCPSTREAM_BACKEND"] = backend
        # The worker's stderr, kept for the error message should it fail; closed by ``close``.
        self._stderr: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115
        command = [sys.executable, str(BENCHES / "transport_runner.py")]
        command += ["--client", client, "--workload", workload, "--url", url]
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
            bufsize=1,
            env=env,
            cwd=BENCHES,
        )
        self.answers: list[dict[str, Any]] = []
        self.ready = self._read("READY")

    def _read(self, head: str) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line.startswith(head + " "):
            self._stderr.seek(0)
            tail = self._stderr.read().decode(errors="replace")[-4000:]
            raise RuntimeError(f"the runner answered {line!r} instead of {head}:\n{tail}")
        answer: dict[str, Any] = json.loads(line[len(head) + 1 :])
        return answer

    def round(self) -> None:
        """Run one round in the worker and keep its answer."""
        assert self.process.stdin is not None
        self.process.stdin.write("run\n")
        self.process.stdin.flush()
        self.answers.append(self._read("DONE"))

    def close(self) -> None:
        """Let the worker close its session and exit."""
        assert self.process.stdin is not None
        try:
            self.process.stdin.write("quit\n")
            self.process.stdin.close()
            self.process.wait(30)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()
        self._stderr.close()


@pytest.mark.parametrize(
    ("implementation", "workload_name"),
    [(implementation, workload) for workload, runs in RUNS.items() for implementation in runs],
)
def test_transport(
    benchmark: BenchmarkFixture, replay_url: str, implementation: str, workload_name: str
) -> None:
    """Rounds of one workload by one client; every answer is checked against what was sent."""
    client, backend = CLIENTS[implementation]
    if client == "sdk" and importlib.util.find_spec("mcp") is None:
        pytest.skip("the official mcp SDK is not installed")
    if client == "reference" and not REFERENCE.is_file():
        pytest.skip(f"the reference transport ({REFERENCE}) is not beside this checkout")
    workload = WORKLOADS[workload_name]
    worker = Worker(client, backend, workload.name, replay_url)
    try:
        benchmark.group = f"transport-{workload.name}"
        benchmark.pedantic(worker.round, rounds=workload.rounds, iterations=1, warmup_rounds=0)
    finally:
        worker.close()
    if client in ("sync", "async", "sdk") or "httpx2_" in implementation:
        assert worker.ready["backend"] == (backend or "sdk")
    for answer in worker.answers:
        assert answer["check"] == workload.expected
    benchmark.extra_info.update(
        implementation=implementation,
        workload=workload.name,
        bytes=workload.size,
        calls=workload.calls,
        inner_median_s=statistics.median(answer["inner_s"] for answer in worker.answers),
    )
