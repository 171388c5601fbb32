"""Fixtures of the hostile-input tests: a private config dir, and ``hostile(routes)``, which
starts a :class:`~.server.HostileServer` that is stopped after the test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from .server import HostileServer, Route

Serve = Callable[..., HostileServer]


@pytest.fixture(autouse=True)
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own token store directory; the user's is never touched."""
    directory = tmp_path / "config"
    monkeypatch.setenv("MCPSTREAM_CONFIG_DIR", str(directory))
    return directory


@pytest.fixture
def hostile() -> Iterator[Serve]:
    """``hostile(routes, **options)`` starts a hostile server; all are stopped after the test."""
    started: list[HostileServer] = []

    def serve(routes: dict[str, Route], **options: Any) -> HostileServer:
        server = HostileServer(routes, **options).__enter__()
        started.append(server)
        return server

    yield serve
    for server in started:
        server.stop()
