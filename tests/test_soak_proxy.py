"""The soak's resetting proxy (``benches/soak_proxy.py``) over real loopback sockets: small
answers pass whole, every other large answer is cut mid-stream with a reset, and a client
connecting while the server is down is reset at once."""

from __future__ import annotations

import asyncio
import importlib.util
import socket
from pathlib import Path

SOURCE = Path(__file__).resolve().parent.parent / "benches" / "soak_proxy.py"
_spec = importlib.util.spec_from_file_location("soak_proxy", SOURCE)
assert _spec is not None and _spec.loader is not None
proxy_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(proxy_module)
LARGE = 200 * 1024


async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Answer a line holding a size with that many bytes, then close."""
    size = int(await reader.readline())
    writer.write(b"x" * size)
    await writer.drain()
    writer.close()


async def fetch(port: int, size: int) -> bytes:
    """Ask for ``size`` bytes; what came before the end or a reset."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"{size}\n".encode())
    await writer.drain()
    received = b""
    try:
        while chunk := await reader.read(65536):
            received += chunk
    except ConnectionResetError:
        pass
    writer.close()
    return received


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def test_small_answers_pass_and_every_other_large_one_is_cut() -> None:
    async def run() -> tuple[list[int], int]:
        upstream = await asyncio.start_server(answer, "127.0.0.1", 0)
        proxy = proxy_module.ResettingProxy(upstream.sockets[0].getsockname()[1])
        await proxy.start()
        sizes = [len(await fetch(proxy.port, size)) for size in (100, LARGE, 100, LARGE, LARGE)]
        await proxy.stop()
        upstream.close()
        return sizes, proxy.cuts

    sizes, cuts = asyncio.run(asyncio.wait_for(run(), 30))
    assert sizes[0] == sizes[2] == 100
    assert sizes[1] == sizes[4] == LARGE
    assert 64 * 1024 < sizes[3] < LARGE  # cut past the threshold, before the end
    assert cuts == 1


def test_a_client_is_reset_while_the_server_is_down() -> None:
    async def run() -> bytes:
        proxy = proxy_module.ResettingProxy(free_port())  # nothing listens there
        await proxy.start()
        received = await fetch(proxy.port, 100)
        await proxy.stop()
        return received

    assert asyncio.run(asyncio.wait_for(run(), 30)) == b""
