"""The flow control the asyncio protocols share (``mcpstream._http.aio_flow``), on real
loopback connections: reading paused and resumed at the bound, a write waiting for the send
buffer to drain (and its timeout), and the connection's end waking a waiting read and write."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Awaitable, Callable
from typing import Any

from mcpstream._http.aio_flow import BUFFER_BYTES, FlowProtocol


async def _connected(
    run: Callable[[FlowProtocol, asyncio.Transport, socket.socket], Awaitable[Any]],
) -> Any:
    """``run`` with a ``FlowProtocol`` on one end of a socket pair and the other end (a
    blocking socket the test reads from)."""
    loop = asyncio.get_running_loop()
    ours, peer = socket.socketpair()
    protocol = FlowProtocol(loop)
    transport, _ = await loop.create_connection(lambda: protocol, sock=ours)
    try:
        return await run(protocol, transport, peer)
    finally:
        transport.abort()
        peer.close()


def test_reading_pauses_at_the_bound_and_resumes() -> None:
    async def run(protocol: FlowProtocol, transport: asyncio.Transport, _: socket.socket) -> None:
        protocol.pause_reading_at(BUFFER_BYTES - 1)
        assert not protocol.reading_paused and transport.is_reading()
        protocol.pause_reading_at(BUFFER_BYTES)
        assert protocol.reading_paused and not transport.is_reading()
        protocol.resume_reading()
        assert not protocol.reading_paused and transport.is_reading()

    asyncio.run(_connected(run))


def test_a_write_waits_for_the_send_buffer_to_drain() -> None:
    async def run(
        protocol: FlowProtocol, transport: asyncio.Transport, peer: socket.socket
    ) -> None:
        transport.set_write_buffer_limits(high=1)
        data = b"x" * (8 * 1024 * 1024)  # more than the kernel's buffers take at once
        transport.write(data)
        assert protocol.writing_paused
        assert not await protocol.drained(protocol.timed, 0.05)  # nobody reads: the timeout
        loop = asyncio.get_running_loop()
        reading = loop.run_in_executor(None, _read_exactly, peer, len(data))
        assert await protocol.drained(protocol.timed, 10)
        assert not protocol.writing_paused
        assert await reading == len(data)

    asyncio.run(_connected(run))


def _read_exactly(peer: socket.socket, size: int) -> int:
    got = 0
    while got < size:
        chunk = peer.recv(1024 * 1024)
        assert chunk
        got += len(chunk)
    return got


def test_the_connection_end_wakes_a_waiting_read_and_write() -> None:
    async def run(protocol: FlowProtocol, transport: asyncio.Transport, _: socket.socket) -> None:
        protocol.writing_paused = True  # as a full send buffer leaves it
        read = asyncio.create_task(protocol.readable(protocol.timed, 10))
        write = asyncio.create_task(protocol.drained(protocol.timed, 10))
        await asyncio.sleep(0)
        transport.abort()
        assert await asyncio.wait_for(read, 5) is True
        assert await asyncio.wait_for(write, 5) is True  # it ends: the write sees ``lost``
        assert protocol.eof and protocol.lost
        assert protocol.read_waiter is None and protocol.drain_waiter is None

    asyncio.run(_connected(run))


def test_a_read_with_nothing_arriving_times_out() -> None:
    async def run(protocol: FlowProtocol, transport: asyncio.Transport, _: socket.socket) -> None:
        assert await protocol.readable(protocol.timed, 0.05) is False
        assert protocol.read_waiter is None

    asyncio.run(_connected(run))


def test_the_sending_half_stays_open_after_the_servers_end_only_over_plain_tcp() -> None:
    protocol = FlowProtocol(asyncio.new_event_loop())
    try:
        assert protocol.eof_received() is True
        protocol.tls = True
        assert protocol.eof_received() is False
    finally:
        protocol.loop.close()
