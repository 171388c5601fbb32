"""``Client`` and ``AsyncClient`` over a host's httpx2 client (and over a client of their own on
httpx2, ``http_stack="httpx2"``) against the official SDK's server (the demo server), in both
eras: the calls, the errors the host sees (the same ``mcpstream.errors`` classes as over
httpx), the host client's own ``httpx2.Auth`` with its 401 retry, and the choice of stack."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Generator
from typing import Any

import httpx
import httpx2
import pytest
from mcpstream import AsyncClient, Client
from mcpstream.demo import DemoServer
from mcpstream.errors import McpHttpTransportError, McpTimeoutError
from transport.helpers import free_port

ERAS = ["legacy", "2026-07-28"]


@pytest.mark.parametrize("protocol", ERAS)
def test_a_host_httpx2_client_carries_every_kind_of_call(server: DemoServer, protocol: str) -> None:
    with httpx2.Client() as http:
        with Client(server.url, http_client=http, protocol=protocol) as client:
            assert client._transport.http_stack == "httpx2"
            assert client.call_tool("echo", {"text": "über"}).text == "über"
            assert client.call_tool("big_text", {"size": 300_000}).text.startswith("mcpstream")
            assert len(client.list_tools()) >= 10
            assert client.ping() > 0
        assert not http.is_closed  # the host's client stays the host's


@pytest.mark.parametrize("protocol", ERAS)
def test_a_host_httpx2_async_client_carries_the_calls(server: DemoServer, protocol: str) -> None:
    async def run() -> tuple[str, int]:
        async with httpx2.AsyncClient() as http:
            async with AsyncClient(server.url, http_client=http, protocol=protocol) as client:
                echoed = (await client.call_tool("echo", {"text": "async"})).text
                big = (await client.call_tool("big_text", {"size": 300_000})).text
            assert not http.is_closed
        return echoed, len(big)

    echoed, size = asyncio.run(run())
    assert echoed == "async" and size >= 300_000


@pytest.mark.parametrize("protocol", ERAS)
def test_http_stack_httpx2_makes_the_transports_own_client_on_httpx2(
    server: DemoServer, protocol: str
) -> None:
    with Client(server.url, http_stack="httpx2", protocol=protocol) as client:
        assert isinstance(client._transport._client, httpx2.Client)
        assert client.call_tool("big_text", {"size": 2_000_000}).text.startswith("mcpstream")

    async def run() -> str:
        async with AsyncClient(server.url, http_stack="httpx2", protocol=protocol) as client:
            assert isinstance(client._transport._client, httpx2.AsyncClient)
            return (await client.call_tool("echo", {"text": "own"})).text

    assert asyncio.run(run()) == "own"


def test_without_the_keyword_the_own_client_is_httpx_and_a_wrong_one_is_refused(
    server: DemoServer,
) -> None:
    with Client(server.url) as client:
        assert type(client._transport._client) is httpx.Client
        assert client._transport.http_stack == httpx.__name__  # httpx2 under alias_httpx
    with pytest.raises(ValueError, match="http_stack"):
        Client(server.url, http_stack="requests")  # type: ignore[arg-type]
    if httpx is not httpx2:  # under alias_httpx they are one stack
        with httpx.Client() as http, pytest.raises(ValueError, match="httpx's"):
            Client(server.url, http_client=http, http_stack="httpx2")


@pytest.mark.parametrize("module", [httpx, httpx2], ids=["httpx", "httpx2"])
def test_connection_refused_is_the_same_transport_error_on_both_stacks(module: Any) -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"
    with module.Client() as http, pytest.raises(McpHttpTransportError) as caught:
        Client(url, http_client=http, connect_timeout_s=2).connect()
    assert type(caught.value) is McpHttpTransportError
    assert "server/discover" in str(caught.value)
    assert isinstance(caught.value.__cause__, module.ConnectError)


@pytest.mark.parametrize("module", [httpx, httpx2], ids=["httpx", "httpx2"])
def test_a_call_past_its_deadline_is_a_timeout_error_on_both_stacks(
    sse_server: DemoServer, module: Any
) -> None:
    with module.Client() as http, Client(sse_server.url, http_client=http) as client:
        with pytest.raises(McpTimeoutError):
            client.call_tool("sleep", {"seconds": 5}, timeout_s=0.5)
        assert client.call_tool("echo", {"text": "after"}).text == "after"


class CountingBearer(httpx2.Auth):
    """A host's own auth on its client: no token first, the token after a 401 (the retry flow
    of ``httpx2.Auth``)."""

    def __init__(self, token: str) -> None:
        self.token = token
        self.challenges = 0

    def auth_flow(self, request: Any) -> Generator[Any, Any, None]:
        response = yield request
        if response.status_code == 401:
            self.challenges += 1
            request.headers["Authorization"] = f"Bearer {self.token}"
            yield request


def test_the_host_clients_httpx2_auth_runs_its_401_retry() -> None:
    auth = CountingBearer("s3cret")
    with DemoServer(bearer_token="s3cret") as guarded:
        with httpx2.Client(auth=auth) as http, Client(guarded.url, http_client=http) as client:
            assert client.call_tool("echo", {"text": "in"}).text == "in"
        with httpx2.Client() as http, pytest.raises(McpHttpTransportError, match="HTTP 401"):
            Client(guarded.url, http_client=http).connect()
    assert auth.challenges >= 1


def test_mcpstream_imports_and_runs_without_httpx2() -> None:
    code = (
        "import sys; sys.modules['httpx2'] = None; sys.modules['httpcore2'] = None\n"
        "import mcpstream, mcpstream.transport_http, mcpstream.oauth, mcpstream.cli\n"
        "from mcpstream._httpbase.stack import stack_named\n"
        "assert stack_named('httpx').name == 'httpx'\n"
        "try:\n"
        "    stack_named('httpx2')\n"
        "except ImportError as exc:\n"
        "    print('needs', 'mcpstream[httpx2]' in str(exc))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "needs True"
