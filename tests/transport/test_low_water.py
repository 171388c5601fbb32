"""The receive low-water mark of a large body's reads (``_http.low_water``), through the async
HTTP/1.1 transport's whole-body reads against a scripted loopback server."""

from __future__ import annotations

import asyncio
import itertools
import socket
import sys
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from mcpstream._http import low_water
from mcpstream._http.h1 import AsyncHttp1Transport, whole_reader

from .h1_scripted import Exchange, Reply, ScriptedServer

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the mark is set on Linux only")

BODY = bytes(range(256)) * 4096 * 4
"""4 MiB: several marks' worth."""


@pytest.fixture
def marks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every mark set on a socket, in order."""
    seen: list[int] = []
    set_mark = low_water.LowWater._set

    def recorded(self: low_water.LowWater, mark: int) -> None:
        seen.append(mark)
        set_mark(self, mark)

    monkeypatch.setattr(low_water.LowWater, "_set", recorded)
    return seen


@pytest.fixture
def serve() -> Iterator[Any]:
    servers: list[ScriptedServer] = []

    def start(reply: Reply) -> ScriptedServer:
        server = ScriptedServer(reply)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


def in_pieces(*pieces: tuple[int, float]) -> Reply:
    """Answers with ``BODY`` (a Content-Length body): each piece's bytes after its pause
    (seconds), then the rest."""

    def reply(exchange: Exchange) -> None:
        exchange.send(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(BODY))
        at = 0
        for size, pause in pieces:
            time.sleep(pause)
            exchange.send(BODY[at : at + size])
            at += size
        exchange.send(BODY[at:])

    return reply


async def read_body(url: str, read_timeout: float = 10.0) -> tuple[bytes, int]:
    """The body at ``url``, read whole as the drivers read a JSON body, and the receive
    low-water mark of its connection's socket afterwards."""
    async with httpx.AsyncClient(transport=AsyncHttp1Transport()) as client:
        timeout = httpx.Timeout(10.0, read=read_timeout)
        async with client.stream("GET", url, timeout=timeout) as response:
            sock = response.extensions["network_stream"].get_extra_info("socket")
            reader = whole_reader(response.stream)
            assert reader is not None
            body: bytes = await reader(None)
            return body, sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVLOWAT)


def test_a_large_body_is_read_with_the_mark_raised_then_set_back(
    serve: Any, marks: list[int]
) -> None:
    server = serve(in_pieces((1000, 0.0)))
    body, after = asyncio.run(read_body(server.url))
    assert body == BODY
    assert marks[0] == low_water.MARK_BYTES  # no more than what is sure to come, at most this
    assert all(a >= b for a, b in itertools.pairwise(marks))  # it follows the rest
    assert marks[-1] == 1 and after == 1  # the next answer on the connection reads as usual


def test_data_below_the_mark_within_the_read_timeout_is_no_timeout(
    serve: Any, marks: list[int]
) -> None:
    # two small pieces 0.3 s apart, under the mark: no wake-up for them, but they came within
    # the 0.5 s read timeout, so the read goes on (the mark dropped) and the body arrives
    server = serve(in_pieces((1000, 0.0), (100_000, 0.1), (100_000, 0.3), (100_000, 0.3)))
    body, after = asyncio.run(read_body(server.url, read_timeout=0.5))
    assert body == BODY
    assert after == 1
    assert 1 in marks


def test_a_stall_under_the_mark_is_still_a_read_timeout(serve: Any) -> None:
    # a piece under the mark, then nothing: the timeout holds, counted from that piece
    server = serve(in_pieces((1000, 0.0), (100_000, 0.1), (100_000, 3.0)))
    started = time.monotonic()
    with pytest.raises(httpx.ReadTimeout):
        asyncio.run(read_body(server.url, read_timeout=0.4))
    assert time.monotonic() - started < 2.5


def test_no_mark_for_small_bodies_or_other_sockets() -> None:
    class Transport:
        def __init__(self, sock: Any) -> None:
            self.sock = sock

        def get_extra_info(self, name: str) -> Any:
            return self.sock if name == "socket" else None

    with socket.socket() as tcp:
        assert low_water.lower_water(Transport(tcp), 64 * 1024) is None
        mark = low_water.lower_water(Transport(tcp), 8 << 20)
        assert mark is not None
        assert tcp.getsockopt(socket.SOL_SOCKET, socket.SO_RCVLOWAT) == low_water.MARK_BYTES
        mark.follow(300_000)
        assert tcp.getsockopt(socket.SOL_SOCKET, socket.SO_RCVLOWAT) == 300_000
        assert not mark.pending()  # nothing queued: a timeout is a timeout
        assert tcp.getsockopt(socket.SOL_SOCKET, socket.SO_RCVLOWAT) == 1
    left, right = socket.socketpair()
    with left, right:
        assert low_water.lower_water(Transport(left), 8 << 20) is None  # not TCP
    assert low_water.lower_water(Transport(None), 8 << 20) is None
