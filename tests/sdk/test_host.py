"""Host clients recognised by what they do, not by their class: a subclass of httpx's
``AsyncClient`` that sends through an ``httpx2`` client it borrowed (never running
``__init__``, as LiteLLM's does), a subclass of httpx2's that overrides ``send``, and a proxy
object forwarding to a client (as frameworks wrap a client they were lent), each under
``mcp.Client`` against the SDK's server; the connections of a stock host client read as
mcpstream's own, those of a host's own transport are left alone."""

from __future__ import annotations

from typing import Any

import httpx
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcpstream._http import capability
from mcpstream._http.httpx_clients import H1_ENV, READ_BYTES, direct_transport
from mcpstream._http.receive_buffer import PassThroughBuffer
from mcpstream._httpbase.stack import stack_named, stack_of
from mcpstream.sdk import streamable_http_client
from mcpstream.sdk.host import HostClient

from .conftest import run


class BorrowingSubclass(httpx.AsyncClient):
    """A subclass of httpx's client that sends through a borrowed ``httpx2`` client: its
    ``__init__`` never runs, ``build_request`` and ``timeout`` are the borrowed client's."""

    def __init__(self, borrowed: httpx2.AsyncClient) -> None:
        self._borrowed = borrowed
        self.build_request = borrowed.build_request  # type: ignore[method-assign]
        self.sent = 0

    @property
    def timeout(self) -> Any:
        return self._borrowed.timeout

    @timeout.setter
    def timeout(self, value: Any) -> None:
        self._borrowed.timeout = value

    @property
    def is_closed(self) -> bool:
        return self._borrowed.is_closed

    async def send(self, request: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        self.sent += 1
        return await self._borrowed.send(request, **kwargs)

    async def aclose(self) -> None:
        pass  # borrowed: its owner closes it


class CountingSubclass(httpx2.AsyncClient):
    """A subclass of httpx2's client that overrides ``send``."""

    sent = 0

    async def send(self, request: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        self.sent += 1
        return await super().send(request, **kwargs)


class Proxy:
    """A wrapper that forwards every attribute to the client it was lent (no weak reference
    to it can be made, as with many ``__slots__`` classes)."""

    __slots__ = ("_client", "sent")

    def __init__(self, client: Any) -> None:
        self._client = client
        self.sent = 0

    async def send(self, request: Any, **kwargs: Any) -> Any:
        self.sent += 1
        return await self._client.send(request, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


def _echo(url: str, client: Any, mode: str) -> str:
    async def main() -> str:
        async with Client(streamable_http_client(url, http_client=client), mode=mode) as c:
            result = await c.call_tool("echo", {"text": "through the host's client"})
            text = result.content[0]
            assert isinstance(text, types.TextContent)
            return text.text

    return run(main())


@pytest.mark.parametrize("kind", ["borrowing subclass", "counting subclass", "proxy"])
def test_a_host_client_is_used_whatever_its_class(
    mcp_server_urls: dict[str, str], mode: str, kind: str
) -> None:
    async def make() -> Any:
        return httpx2.AsyncClient(timeout=httpx2.Timeout(30))

    inner: httpx2.AsyncClient = run(make())
    client: Any
    if kind == "borrowing subclass":
        client = BorrowingSubclass(inner)
    elif kind == "counting subclass":
        client = CountingSubclass(timeout=httpx2.Timeout(30))
    else:
        client = Proxy(inner)
    assert stack_of(client) is stack_named("httpx2")
    assert _echo(mcp_server_urls["sse"], client, mode) == "through the host's client"
    assert client.sent >= 2  # the handshake and the call went through its send
    assert direct_transport(client) is None  # no speed hook on a host's client


def test_the_host_clients_timeouts_win_and_mcpstreams_fill_the_gaps() -> None:
    host = httpx2.AsyncClient(timeout=httpx2.Timeout(2.0, connect=None))
    request = HostClient(host).build_request(
        "POST", "http://127.0.0.1:9/mcp", timeout=httpx2.Timeout(600.0, connect=10.0)
    )
    assert request.extensions["timeout"] == {
        "connect": 10.0,  # the host set none: mcpstream's
        "read": 2.0,
        "write": 2.0,
        "pool": 2.0,
    }
    assert stack_of(HostClient(httpx.AsyncClient())) is stack_named("httpx")


class OwnTransport(httpx2.AsyncHTTPTransport):
    """A transport of the host's own (a subclass): mcpstream leaves its connections alone."""


def _connections(client: httpx2.AsyncClient) -> list[Any]:
    pool = client._transport._pool  # type: ignore[attr-defined]
    return [getattr(c, "_connection", None) for c in pool.connections]


@pytest.mark.parametrize("stock", [True, False])
def test_a_stock_host_client_reads_large_bodies_as_mcpstreams_own(
    mcp_server_urls: dict[str, str], stock: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The host's own pool, as with the HTTP/1.1 transport opted out (by default mcpstream's
    # transport stands in under a stock client instead: ``test_host_h1``).
    monkeypatch.setenv(H1_ENV, "0")
    size = 4 * 1024 * 1024
    hooked: list[int] = []

    async def on_response(response: httpx2.Response) -> None:
        hooked.append(response.status_code)

    async def main() -> tuple[int, list[Any]]:
        transport = None if stock else OwnTransport()
        async with httpx2.AsyncClient(
            transport=transport, event_hooks={"response": [on_response]}
        ) as client:
            factory = streamable_http_client(mcp_server_urls["sse"], http_client=client)
            async with Client(factory, mode="legacy") as c:
                result = await c.call_tool("big_text", {"size": size})
                text = result.content[0]
                assert isinstance(text, types.TextContent)
                return len(text.text), _connections(client)

    length, connections = run(main(), 120)
    assert length == size
    assert hooked  # the host's hooks ran
    h11_connections = [c for c in connections if c is not None]
    assert h11_connections
    reads = {c.READ_NUM_BYTES for c in h11_connections}
    buffers = {type(c._h11_state._receive_buffer) for c in h11_connections}
    # The speed work applies where httpcore2 and h11 have what it reads (capability): at every
    # release the suites run at.
    if stock:
        assert capability.hooks_fit(stack_named("httpx2"))
        assert reads == {READ_BYTES} and buffers == {PassThroughBuffer}
    else:
        assert reads == {64 * 1024} and PassThroughBuffer not in buffers
