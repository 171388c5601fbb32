"""Fixtures of the command tests: the demo server on loopback, and ``mcpstream`` run as a
subprocess with the same mcpstream package as the tests and a private config directory."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import mcpstream
import pytest
from mcpstream.demo import DemoServer

PACKAGE_ROOT = Path(mcpstream.__file__).resolve().parents[1]
BEARER_TOKEN = "cli-test-token"


@dataclass(frozen=True)
class Run:
    """What a run of the command did."""

    status: int
    out: str
    err: str


RunCommand = Callable[..., Run]


@pytest.fixture(scope="session")
def demo_url() -> Iterator[str]:
    """The demo server's URL."""
    with DemoServer() as server:
        yield server.url


@pytest.fixture(scope="session")
def guarded_url() -> Iterator[str]:
    """A demo server that wants ``Authorization: Bearer cli-test-token``."""
    with DemoServer(bearer_token=BEARER_TOKEN) as server:
        yield server.url


@pytest.fixture
def mcpstream_cli(tmp_path: Path) -> RunCommand:
    """``mcpstream_cli(*args)`` runs ``python -m mcpstream.cli *args`` (with ``extra_env`` added
    to the environment) and returns a ``Run``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        part for part in (str(PACKAGE_ROOT), env.get("PYTHONPATH", "")) if part
    )
    env["MCPSTREAM_CONFIG_DIR"] = str(tmp_path / "config")
    env["COLUMNS"] = "200"

    def run(*args: str, timeout_s: float = 60.0, extra_env: dict[str, str] | None = None) -> Run:
        completed = subprocess.run(
            [sys.executable, "-m", "mcpstream.cli", *args],
            capture_output=True,
            text=True,
            env={**env, **(extra_env or {})},
            timeout=timeout_s,
            stdin=subprocess.DEVNULL,
        )
        return Run(completed.returncode, completed.stdout, completed.stderr)

    return run
