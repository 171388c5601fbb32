"""A loopback TCP proxy in front of the soak's server that resets connections mid-answer.

Every connection is relayed as it is, except that once the server has sent more than
``cut_after`` bytes since the client last wrote (only a large answer does), every ``cut_every``-th
such answer is cut: the proxy forwards what it has, then resets both sides (RST, not FIN). A
client connecting while the server is down is reset at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct


def _reset(writer: asyncio.StreamWriter) -> None:
    """Close with a TCP reset (SO_LINGER 0), not an orderly FIN."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


class ResettingProxy:
    """Relays ``127.0.0.1:port`` to ``127.0.0.1:upstream_port`` (see the module docstring)."""

    def __init__(self, upstream_port: int, cut_after: int = 64 * 1024, cut_every: int = 2) -> None:
        self.upstream_port = upstream_port
        self.cut_after = cut_after
        self.cut_every = cut_every
        self.port = 0
        self.cuts = 0
        self._large = 0
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        """Listen on a free loopback port (``port``)."""
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        """Stop listening; the relays end with their connections."""
        if self._server is not None:
            self._server.close()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        except OSError:
            _reset(writer)
            return
        # bytes the server sent since the client last wrote: one list, shared by both ways
        answered = [0]
        pumps = [
            asyncio.create_task(self._pump(reader, up_writer, answered, upstream=False)),
            asyncio.create_task(self._pump(up_reader, writer, answered, upstream=True)),
        ]
        cut = False
        try:
            finished, _ = await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
            cut = any(pump.result() for pump in finished)
        finally:
            for pump in pumps:
                pump.cancel()
            for side in (writer, up_writer):
                if cut:
                    _reset(side)
                else:
                    side.close()

    async def _pump(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        answered: list[int],
        upstream: bool,
    ) -> bool:
        """Relay one way until the end of the stream; True: the proxy cut it."""
        while True:
            try:
                data = await reader.read(65536)
            except OSError:
                return False
            if not data:
                return False
            if not upstream:
                answered[0] = 0
            else:
                before = answered[0]
                answered[0] += len(data)
                if before <= self.cut_after < answered[0]:
                    self._large += 1
                    if self._large % self.cut_every == 0:
                        self.cuts += 1
                        writer.write(data[: len(data) // 2])
                        with contextlib.suppress(OSError):
                            await writer.drain()
                        return True
            writer.write(data)
            try:
                await writer.drain()
            except OSError:
                return False
