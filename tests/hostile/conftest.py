"""Fixtures of the hostile-input tests: a private config dir (the OAuth suite's), the
transports of the transport suite (``make_transport``, sync and async), and ``hostile(routes)``,
which starts a :class:`~.server.HostileServer` that is stopped after the test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.oauth.conftest import config_dir
from tests.transport.conftest import (
    client_stack,
    event_loop_thread,
    host_httpx2_client,
    make_transport,
    transport_kind,
)

from .server import HostileServer, Route

__all__ = [
    "Serve",
    "client_stack",
    "config_dir",
    "event_loop_thread",
    "host_httpx2_client",
    "hostile",
    "make_transport",
    "transport_kind",
]

Serve = Callable[..., HostileServer]


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
