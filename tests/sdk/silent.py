"""``silent_url``: a server that accepts connections and never answers, against which a host's
timeout must end the wait. Shared by the SDK suites and the framework peers (on either SDK line:
nothing here needs the SDK)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

__all__ = ["silent_url"]


@pytest.fixture
def silent_url() -> Iterator[str]:
    """A server that accepts connections and never answers (a loopback socket)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                held.append(server.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}/mcp"
    server.close()
    for connection in held:
        connection.close()
