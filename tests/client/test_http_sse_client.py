"""``Client`` and ``AsyncClient`` over the deprecated HTTP+SSE transport (2024-11-05): the demo
server's and the SDK test server's ``sse_app`` on loopback. The fallback (the initialize POST
refused, then the GET and its endpoint), progress, an elicitation, notifications, a new session
after the server restarted, ``protocol="http+sse"``, and the negotiation cache: a second client
to the same server probes nothing (the test server counts the requests it saw)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from legacy_server import ts_sdk_2024_server
from mcpstream import (
    AsyncClient,
    Client,
    ElicitationRequest,
    ElicitationResponse,
    Notification,
    Progress,
)
from mcpstream._http.core.sse_legacy import NEGOTIATED
from mcpstream.client import SUPPORTED_PROTOCOL_VERSIONS
from mcpstream.demo import DemoServer
from transport.conftest import http_sse_server, mcp_server_urls

__all__ = ["http_sse_server", "mcp_server_urls"]


@pytest.fixture(scope="module")
def demo_sse() -> Iterator[DemoServer]:
    """The demo server on the HTTP+SSE transport."""
    with DemoServer(http_sse=True) as server:
        yield server


@pytest.fixture(scope="module")
def ts_sdk_2024() -> Iterator[str]:
    """A real 2024-11-05 server (the TypeScript SDK 1.0.4 on its HTTP+SSE transport): it
    answers ``initialize`` with protocol version 2024-11-05."""
    with ts_sdk_2024_server() as url:
        yield url


def stats(base: str) -> dict[str, int]:
    counts: dict[str, int] = httpx.get(f"{base}/stats", timeout=5).json()
    return counts


def probes(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    """The requests made between two ``stats``, but for the messages' POSTs."""
    keys = set(before) | set(after)
    return {
        key: after.get(key, 0) - before.get(key, 0)
        for key in sorted(keys)
        if key != "POST /messages/" and after.get(key, 0) != before.get(key, 0)
    }


def test_the_client_falls_back_and_calls_tools_with_progress(demo_sse: DemoServer) -> None:
    seen: list[Progress] = []
    notes: list[Notification] = []

    def answer(request: ElicitationRequest) -> ElicitationResponse:
        return ElicitationResponse(action="accept", content={"name": "Ada"})

    with Client(demo_sse.url, on_notification=notes.append, elicitation_handler=answer) as client:
        info = client.connect()
        assert info.transport == "http+sse"
        assert info.era == "legacy"
        assert info.era_label == "legacy HTTP+SSE"
        assert client.call_tool("add", {"a": 2, "b": 3}).structured == {"result": 5}
        result = client.call_tool("count", {"steps": 3}, progress=seen.append)
        assert [p.progress for p in seen] == [1, 2, 3]
        assert not result.is_error
        assert client.call_tool("ask_name").text == "hello Ada"
        client.call_tool("announce", {"message": "over sse"})
        assert client.ping() > 0
    assert "over sse" in [n.params["data"] for n in notes if n.method == "notifications/message"]


def test_the_async_client_falls_back_and_calls_tools_with_progress(demo_sse: DemoServer) -> None:
    seen: list[Progress] = []

    async def answer(request: ElicitationRequest) -> ElicitationResponse:
        return ElicitationResponse(action="accept", content={"name": "Grace"})

    async def scenario() -> None:
        async with AsyncClient(demo_sse.url, elicitation_handler=answer) as client:
            info = await client.connect()
            assert info.era_label == "legacy HTTP+SSE"
            tools = await client.list_tools()
            assert "echo" in [tool.name for tool in tools]
            await client.call_tool("count", {"steps": 4}, progress=seen.append)
            assert (await client.call_tool("ask_name")).text == "hello Grace"
            texts = await asyncio.gather(
                *(client.call_tool("echo", {"text": f"t{i}"}) for i in range(5))
            )
            assert [t.text for t in texts] == [f"t{i}" for i in range(5)]

    asyncio.run(scenario())
    assert [p.progress for p in seen] == [1, 2, 3, 4]


@pytest.mark.parametrize("protocol", [None, "http+sse", "legacy", "2024-11-05"])
def test_the_client_speaks_to_a_2024_11_05_server(ts_sdk_2024: str, protocol: str | None) -> None:
    NEGOTIATED.drop(ts_sdk_2024)
    with Client(ts_sdk_2024, protocol=protocol) as client:
        info = client.connect()
        assert (info.protocol_version, info.era, info.transport) == (
            "2024-11-05",
            "legacy",
            "http+sse",
        )
        assert info.name == "ts-sdk-2024"
        assert [tool.name for tool in client.list_tools()] == ["add", "echo"]
        assert client.call_tool("add", {"a": 2, "b": 5}).text == "7"
        assert client.ping() > 0


def test_the_async_client_speaks_to_a_2024_11_05_server(ts_sdk_2024: str) -> None:
    async def scenario() -> None:
        async with AsyncClient(ts_sdk_2024) as client:
            info = await client.connect()
            assert (info.protocol_version, info.transport) == ("2024-11-05", "http+sse")
            texts = await asyncio.gather(
                *(client.call_tool("echo", {"text": f"t{i}"}) for i in range(4))
            )
            assert [t.text for t in texts] == [f"t{i}" for i in range(4)]

    asyncio.run(scenario())


def test_the_supported_versions_are_every_era_newest_first() -> None:
    assert SUPPORTED_PROTOCOL_VERSIONS[0] == "2026-07-28"
    assert SUPPORTED_PROTOCOL_VERSIONS[-1] == "2024-11-05"
    assert list(SUPPORTED_PROTOCOL_VERSIONS) == sorted(SUPPORTED_PROTOCOL_VERSIONS, reverse=True)


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_second_client_to_the_same_server_probes_nothing(http_sse_server: str, kind: str) -> None:
    url = f"{http_sse_server}/sse"

    def connect(**options: Any) -> str:
        if kind == "sync":
            with Client(url, **options) as client:
                client.call_tool("echo", {"text": "x"})
                return client.connect().transport

        async def scenario() -> str:
            async with AsyncClient(url, **options) as client:
                await client.call_tool("echo", {"text": "x"})
                return (await client.connect()).transport

        return asyncio.run(scenario())

    start = stats(http_sse_server)
    assert connect() == "http+sse"
    first = stats(http_sse_server)
    # server/discover and initialize POSTed to the URL (both 405), then the GET.
    assert probes(start, first) == {"GET /sse": 1, "POST /sse": 2}
    assert NEGOTIATED.get(url) == "http+sse"
    assert connect() == "http+sse"
    # The second client knows: straight to the GET.
    assert probes(first, stats(http_sse_server)) == {"GET /sse": 1}
    NEGOTIATED.clear()
    before_pin = stats(http_sse_server)
    assert connect(protocol="http+sse") == "http+sse"
    assert probes(before_pin, stats(http_sse_server)) == {"GET /sse": 1}


def test_a_cached_http_sse_entry_that_stops_working_is_probed_again(
    mcp_server_urls: dict[str, str],
) -> None:
    url = mcp_server_urls["json"]  # a Streamable HTTP server (both eras)
    NEGOTIATED.put(url, "http+sse")
    with Client(url) as client:
        info = client.connect()
        assert info.transport == "streamable-http"
        assert client.call_tool("echo", {"text": "again"}).text == "again"
    assert NEGOTIATED.get(url) == info.era


def test_the_client_starts_a_new_http_sse_session_after_a_restart() -> None:
    server = DemoServer(http_sse=True).start()
    try:
        port = server.port
        with Client(server.url) as client:
            assert client.call_tool("echo", {"text": "before"}).text == "before"
            server.stop()
            server.port = port
            server.start()
            assert client.call_tool("echo", {"text": "after"}).text == "after"
            assert client.session_renewals == 1
            assert client.connect().transport == "http+sse"
    finally:
        server.stop()
