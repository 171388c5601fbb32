"""Fixtures of the peer tests: the MCP servers of the other SDKs, built by
``scripts/install-peers.sh`` and started here, each on 127.0.0.1 on a port of its own, once per
pytest(-xdist) worker, and stopped at the end; what each prints goes to a log file, whose tail
is shown when a server does not come up."""

from __future__ import annotations

import os
import re
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from transport.helpers import free_port

from .peer_cache import peer_dir

START_BOUND_S = 60.0
URL_LINE = re.compile(r"listening on (http://127\.0\.0\.1:\d+/mcp)")
EVERYTHING_LINE = re.compile(r"listening on port (\d+)")


class PeerStartError(Exception):
    """A peer server did not come up (the message has the tail of its log)."""


@dataclass
class Peer:
    """A running peer server: its name, the URL of its MCP endpoint and its log file."""

    name: str
    url: str
    log: Path


class PeerProcess:
    """One peer server process: ``command`` is started with its output in ``log``; it is up
    once a line of the log matches ``ready`` (whose group 1 is the URL, or the port)."""

    def __init__(
        self,
        name: str,
        command: list[str],
        log: Path,
        ready: re.Pattern[str],
        env: dict[str, str] | None = None,
    ) -> None:
        self.name = name
        self.log = log
        self._sink = log.open("wb")
        self._process = subprocess.Popen(
            command,
            stdout=self._sink,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env={**os.environ, **(env or {})},
        )
        self.url = self._wait(ready)

    def _wait(self, ready: re.Pattern[str]) -> str:
        deadline = time.monotonic() + START_BOUND_S
        while time.monotonic() < deadline:
            found = ready.search(self.log.read_text(errors="replace"))
            if found:
                value = found.group(1)
                return value if value.startswith("http") else f"http://127.0.0.1:{value}/mcp"
            if self._process.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        tail = self.log.read_text(errors="replace")[-4000:]
        raise PeerStartError(f"the {self.name} peer did not start; its log ({self.log}):\n{tail}")

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after 5 s) and close its log."""
        if self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(5)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait(5)
        self._sink.close()


def _start(
    name: str,
    command: list[str],
    logs: Path,
    ready: re.Pattern[str] = URL_LINE,
    env: Callable[[], dict[str, str]] | None = None,
    attempts: int = 1,
) -> Iterator[Peer]:
    """Start a peer (``env()`` gives its extra environment, anew at each of ``attempts``);
    yield it, and stop it afterwards. A peer that does not come up fails the test."""
    for attempt in range(1, attempts + 1):
        try:
            process = PeerProcess(
                name, command, logs / f"{name}-{attempt}.log", ready, env and env()
            )
            break
        except PeerStartError as exc:
            if attempt == attempts:
                pytest.fail(str(exc), pytrace=False)
    try:
        yield Peer(name, process.url, process.log)
    finally:
        process.stop()


@pytest.fixture(scope="session")
def peer_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The directory of this worker's peer server logs."""
    return tmp_path_factory.mktemp("peer-logs")


@pytest.fixture(scope="session")
def everything_peer(peer_logs: Path) -> Iterator[Peer]:
    """``@modelcontextprotocol/server-everything`` in its Streamable HTTP mode (TypeScript SDK
    v1): it takes its port from ``PORT``."""
    entry = peer_dir("ts") / "node_modules/@modelcontextprotocol/server-everything/dist/index.js"
    # The port is picked here and may be taken meanwhile by another process: three tries.
    yield from _start(
        "everything",
        ["node", str(entry), "streamableHttp"],
        peer_logs,
        EVERYTHING_LINE,
        lambda: {"PORT": str(free_port())},
        attempts=3,
    )


@pytest.fixture(scope="session")
def ts_peer(peer_logs: Path) -> Iterator[Peer]:
    """Our server on the TypeScript SDK v2 (tests/peers/servers/ts/server.mjs)."""
    yield from _start("ts", ["node", str(peer_dir("ts") / "server.mjs")], peer_logs)


@pytest.fixture(scope="session")
def go_peer(peer_logs: Path) -> Iterator[Peer]:
    """Our server on the Go SDK, with sessions."""
    yield from _start("go", [str(peer_dir("go") / "peer-go")], peer_logs)


@pytest.fixture(scope="session")
def go_stateless_peer(peer_logs: Path) -> Iterator[Peer]:
    """Our server on the Go SDK, stateless (no session, no server requests)."""
    yield from _start("go-stateless", [str(peer_dir("go") / "peer-go"), "-stateless"], peer_logs)


@pytest.fixture(scope="session")
def rust_peer(peer_logs: Path) -> Iterator[Peer]:
    """Our server on rmcp."""
    yield from _start("rust", [str(peer_dir("rust") / "peer-rust")], peer_logs)


PEERS = ("everything", "ts", "go", "go-stateless", "rust")


@pytest.fixture(params=PEERS)
def peer(request: pytest.FixtureRequest) -> Peer:
    """Each peer server in turn."""
    fixture = request.param.replace("-", "_") + "_peer"
    value: Peer = request.getfixturevalue(fixture)
    return value
