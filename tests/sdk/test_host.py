"""Host clients recognised by what they do, not by their class: a subclass of httpx's
``AsyncClient`` that sends through an ``httpx2`` client it borrowed (never running
``__init__``, as LiteLLM's does), a subclass of httpx2's that overrides ``send``, and a proxy
object forwarding to a client (as frameworks wrap a client they were lent), each under
``mcp.Client`` against the SDK's server; the speed hooks stay off them."""

from __future__ import annotations

from typing import Any

import httpx
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcpstream._http.httpx_clients import direct_transport
from mcpstream._http.stack import stack_named, stack_of
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
