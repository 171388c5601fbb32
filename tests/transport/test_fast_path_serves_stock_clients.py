"""The fast path is on for the stock clients of both stacks at the releases installed: the
test that fails when a release of httpx, httpx2, their cores or h11 changes what mcpstream
reads and the fast path would silently drop (``capability`` would then warn and fall back).
CI runs it at the pinned releases and at the newest ones.

Against a real loopback server: a host's stock ``AsyncClient`` sends over mcpstream's HTTP/1.1
transport (``HostClient``), or, with that transport opted out, gets the read size and receive
buffer of mcpstream's own clients; a host's stock ``Client`` reads under the operation's deadline
(``deadline_trace``); the clients mcpstream makes off its HTTP/1.1 transport read in large
pieces."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from mcpstream._http import capability
from mcpstream._http.h1 import transport_types
from mcpstream._http.host_probe import host_response_hooks
from mcpstream._http.httpx_clients import (
    H1_ENV,
    READ_BYTES,
    deadline_bound,
    deadline_trace,
    direct_transport,
    make_async_client,
    make_client,
)
from mcpstream._http.receive_buffer import PassThroughBuffer
from mcpstream._httpbase.stack import stack_named
from mcpstream.sdk.host import HostClient

from .fault_server import Conn, FaultServer, Request

STACKS = ("httpx", "httpx2")
BODY = b"x" * (256 * 1024)
"""A body large enough to be read in several pieces and held whole by the receive buffer."""


def _url(fault_server: FaultServer) -> str:
    async def handler(request: Request, conn: Conn) -> None:
        await conn.start(200, content_type="application/octet-stream", content_length=len(BODY))
        await conn.send(BODY)

    return fault_server.route(handler)


@pytest.mark.parametrize("name", STACKS)
def test_every_hook_fits_the_installed_releases(name: str) -> None:
    found = capability.verdicts(stack_named(name))
    assert set(found) == set(capability.HOOKS)
    misfits = [verdict for verdict in found.values() if not verdict.fits]
    assert misfits == []


@pytest.mark.parametrize("name", STACKS)
def test_a_stock_async_host_client_is_sent_over_mcpstreams_transport(
    name: str, fault_server: FaultServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(H1_ENV, "1")
    stack = stack_named(name)
    url = _url(fault_server)

    async def main() -> tuple[Any, int, int]:
        async with stack.httpx.AsyncClient() as host:
            client = HostClient(host)
            own = client.own_transport
            try:
                response = await client.send(host.build_request("GET", url))
                return own, len(response.content), len(host._transport._pool.connections)
            finally:
                await client.release()

    own, size, host_connections = asyncio.run(main())
    assert type(own) is transport_types(stack)[1]
    assert size == len(BODY)
    assert host_connections == 0  # the host's own pool opened none


@pytest.mark.parametrize("name", STACKS)
def test_a_stock_async_host_client_off_it_reads_as_mcpstreams_clients(
    name: str, fault_server: FaultServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(H1_ENV, "0")
    stack = stack_named(name)
    url = _url(fault_server)

    async def main() -> tuple[Any, bool, int, type[Any], int]:
        async with stack.httpx.AsyncClient() as host:
            own = HostClient(host).own_transport
            response = await host.send(host.build_request("GET", url), stream=True)
            hooked = host_response_hooks(host, response, stack)
            connection = response.stream._stream._httpcore_stream._stream._connection
            body = await response.aread()
            buffer_type = type(connection._h11_state._receive_buffer)
            return own, hooked, connection.READ_NUM_BYTES, buffer_type, len(body)

    own, hooked, read_bytes, buffer_type, size = asyncio.run(main())
    assert own is None  # opted out: the host's own transport
    assert hooked
    assert read_bytes >= READ_BYTES
    assert buffer_type is PassThroughBuffer
    assert size == len(BODY)


@pytest.mark.parametrize("name", STACKS)
def test_a_stock_sync_host_client_reads_under_the_deadline(
    name: str, fault_server: FaultServer
) -> None:
    stack = stack_named(name)
    trace = deadline_trace(stack)
    assert trace is not None
    with stack.httpx.Client() as host:
        response = host.get(_url(fault_server), extensions={"trace": trace})
        assert response.content == BODY
        assert deadline_bound(response)


@pytest.mark.parametrize("name", STACKS)
def test_the_clients_made_off_mcpstreams_transport_read_in_large_pieces(
    name: str, fault_server: FaultServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(H1_ENV, "0")
    stack = stack_named(name)
    url = _url(fault_server)
    with make_client(stack) as client:
        assert direct_transport(client) is not None  # its pool replaced by mcpstream's
        response = client.get(url)
        assert response.content == BODY
        assert deadline_bound(response)  # a LargeReadStream under it

    async def main() -> tuple[bool, int]:
        async with make_async_client(stack) as client:
            response = await client.get(url)
            return direct_transport(client) is not None, len(response.content)

    assert asyncio.run(main()) == (True, len(BODY))
