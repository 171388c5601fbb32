"""h11 with ``PassThroughBuffer`` reads exactly what it reads with its own buffer, whatever the
cut of the bytes into reads; a body piece that fits is handed on as the very object received;
the transport's own connections get the buffer, and their answers stay whole."""

from __future__ import annotations

import asyncio
import itertools
import random
from pathlib import Path
from typing import Any

import h11
import httpx
import pytest
from h11._receivebuffer import ReceiveBuffer
from mcpstream._http import capability, receive_buffer
from mcpstream._http.receive_buffer import PassThroughBuffer
from mcpstream._httpbase.stack import stack_named
from mcpstream.models import ResolvedMcpServer
from mcpstream.transport_http import McpHttpTransport
from mcpstream.transport_http_async import AsyncMcpHttpTransport

from .fault_server import Conn, FaultServer, Request, notification, result, sse

_BODY = b"event: message\ndata: " + b"x" * 40_000 + b"\n\n"
_CHUNKED = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
    + b"%x\r\n" % len(_BODY)
    + _BODY
    + b"\r\n5\r\nabcde\r\n0\r\n\r\n"
)
_LENGTH = b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n" % len(_BODY) + _BODY
_REQUEST = h11.Request(method="GET", target="/", headers=[("host", "x")])


def _events(wire: bytes, cuts: list[int], *, pass_through: bool) -> list[object]:
    """The events h11 makes of ``wire`` received in pieces cut at ``cuts``, twice in a row
    (keep-alive: the buffer outlives a cycle)."""
    connection = h11.Connection(h11.CLIENT)
    if pass_through:
        buffer = PassThroughBuffer()
        buffer._whole = b""
        connection._receive_buffer = buffer
    events: list[object] = []
    for _ in range(2):
        connection.send(_REQUEST)
        connection.send(h11.EndOfMessage())
        bounds = [0, *cuts, len(wire)]
        for start, end in itertools.pairwise(bounds):
            connection.receive_data(wire[start:end])
            while (event := connection.next_event()) not in (h11.NEED_DATA, h11.PAUSED):
                if isinstance(event, h11.Data):
                    event = h11.Data(data=bytes(event.data))
                events.append(event)
        connection.start_next_cycle()
    return events


@pytest.mark.parametrize("hold_bytes", [1, receive_buffer.HOLD_BYTES])
@pytest.mark.parametrize("wire", [_CHUNKED, _LENGTH], ids=["chunked", "length"])
def test_h11_reads_the_same_events_through_either_buffer(
    wire: bytes, hold_bytes: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(receive_buffer, "HOLD_BYTES", hold_bytes)
    rng = random.Random(9)
    cut_sets = [
        [],
        [1],
        [len(wire) - 1],
        list(range(1, len(wire), 997)),
        list(range(1, len(wire), 20_011)),
    ]
    cut_sets += [sorted(rng.sample(range(1, len(wire)), k)) for k in (2, 5, 40) for _ in range(5)]
    for cuts in cut_sets:
        expected = _events(wire, cuts, pass_through=False)
        assert _events(wire, cuts, pass_through=True) == expected, cuts


def test_a_body_piece_that_fits_is_the_object_received() -> None:
    buffer = PassThroughBuffer()
    buffer._whole = b""
    piece = b"y" * 100_000
    buffer += piece
    assert len(buffer) == len(piece) and buffer
    assert buffer.maybe_extract_at_most(len(piece) + 1) is piece
    assert not buffer and len(buffer) == 0
    buffer += piece
    buffer += b"tail"  # a second read joins the first in h11's bytearray
    assert bytes(buffer.maybe_extract_at_most(len(piece) + 4) or b"") == piece + b"tail"


def _large_answers(text: str) -> Any:
    async def handler(request: Request, conn: Conn) -> None:
        if request.method != "POST" or "id" not in request.json:
            await conn.respond(405 if request.method == "GET" else 202, content_type=None)
            return
        await conn.start(200)
        await conn.send(sse(notification("notifications/message", {"n": 1})))
        await conn.send(sse(result(request.jsonrpc_id, text)))
        conn.drop()

    return handler


@pytest.mark.httpcore_client
@pytest.mark.parametrize("http_stack", ["httpx", "httpx2"])
def test_the_transport_connections_get_the_buffer_and_answers_stay_whole(
    fault_server: FaultServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, http_stack: Any
) -> None:
    buffers: list[type] = []
    real = receive_buffer.install

    def recording(response: httpx.Response) -> None:
        real(response)
        buffers.append(type(receive_buffer._h11_connection(response)._receive_buffer))

    monkeypatch.setattr(receive_buffer, "install", recording)
    text = "".join(random.Random(3).choice('ab\u00e9\u4e2d\\"') for _ in range(600_000))
    server = ResolvedMcpServer(id="large", url=fault_server.route(_large_answers(text)))
    with McpHttpTransport(
        server=server, workspace_root=tmp_path, listen=False, http_stack=http_stack
    ) as transport:
        for _ in range(2):
            assert transport.request(method="ping", params=None, timeout_s=10).result == text
        assert len(transport.drain_notifications()) == 2

    async def main() -> None:
        async with AsyncMcpHttpTransport(
            server=server, workspace_root=tmp_path, listen=False, http_stack=http_stack
        ) as transport:
            response = await transport.request(method="ping", params=None, timeout_s=10)
            assert response.result == text

    asyncio.run(main())
    # Swapped where h11 and the core have what the hook reads (capability): at every release
    # the suites run at.
    assert capability.hooks_fit(stack_named(http_stack))
    assert buffers and set(buffers) == {PassThroughBuffer}


def test_a_client_of_the_host_is_left_as_it_is() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=b"ok")

    with httpx.Client(transport=httpx.MockTransport(handler)) as client:
        response = client.get("http://x/")
        receive_buffer.install(response)  # no h11 connection under it: nothing to do
        assert response.content == b"ok"
    assert type(h11.Connection(h11.CLIENT)._receive_buffer) is ReceiveBuffer
