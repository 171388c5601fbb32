"""What ``Client`` and ``AsyncClient`` tell a newcomer when the URL or the server is not what it
should be, each against a real server on loopback (the demo server, Python's ``http.server``,
a server that answers a fixed status): the documented error class, a message naming the fault
and what to try, and hints that fit the Python API (no command-line options)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from mcpstream import AsyncClient, Client
from mcpstream.demo import DemoServer
from mcpstream.errors import (
    McpHttpTransportAuthRequiredError,
    McpHttpTransportError,
    McpHttpTransportProtocolError,
    McpHttpTransportRemoteError,
)
from plain_http import fixed_answer, static_site

TOKEN = "client-errors-token"


@pytest.fixture(scope="module")
def demo() -> Iterator[str]:
    with DemoServer() as server:
        yield server.url


@pytest.fixture(scope="module")
def guarded() -> Iterator[str]:
    with DemoServer(bearer_token=TOKEN) as server:
        yield server.url


def connect_error(url: str, **kwargs: object) -> BaseException:
    """What ``Client(url).connect()`` raised (the async client raises the same)."""
    with pytest.raises(Exception) as sync_caught, Client(url, **kwargs) as client:  # type: ignore[arg-type]
        client.connect()

    async def main() -> None:
        async with AsyncClient(url, **kwargs) as client:  # type: ignore[arg-type]
            await client.connect()

    with pytest.raises(Exception) as async_caught:
        asyncio.run(main())
    assert type(async_caught.value) is type(sync_caught.value)
    assert str(async_caught.value) == str(sync_caught.value)
    return sync_caught.value


def test_a_wrong_path_says_no_mcp_endpoint_and_names_the_likely_one(demo: str) -> None:
    error = connect_error(demo.removesuffix("/mcp") + "/")
    assert isinstance(error, McpHttpTransportProtocolError)
    assert "no MCP endpoint at this path" in str(error)
    assert f"usually serve at {demo}" in str(error)
    assert error.status_code == 404


def test_a_plain_web_server_is_not_an_mcp_endpoint() -> None:
    with static_site() as site:
        error = connect_error(f"{site}/")
    assert isinstance(error, McpHttpTransportRemoteError)  # http.server's 501 to a POST
    assert "not an MCP endpoint" in str(error) and "HTML page ('Error response')" in str(error)
    assert "<" not in str(error)


def test_a_long_error_body_is_cut_to_200_characters() -> None:
    with fixed_answer(500, "y" * 5000) as url:
        error = connect_error(f"{url}/mcp")
    assert "y" * 200 + "...(truncated)" in str(error) and "y" * 201 not in str(error)


@pytest.mark.parametrize(
    ("url", "named"),
    [
        ("http://127.0.0.1:99999/mcp", "port '99999' is not a port number"),
        ("http://localhost:http/mcp", "port 'http' is not a port number"),
        ("http://[::1/mcp", "the server URL is malformed"),
        ("localhost:8000/mcp?key=secret", "did you mean http://localhost:8000/mcp?"),
        ("http:///mcp", "the server URL has no host"),
    ],
)
def test_a_malformed_url_is_refused_when_the_client_is_made(url: str, named: str) -> None:
    for kind in (Client, AsyncClient):
        with pytest.raises(ValueError, match="server URL") as caught:
            kind(url)
        assert named in str(caught.value)
        assert "secret" not in str(caught.value)


def test_https_to_an_http_port_is_explained(demo: str) -> None:
    error = connect_error(demo.replace("http://", "https://"))
    assert isinstance(error, McpHttpTransportError)
    assert "the port answered in plain HTTP, not TLS" in str(error)
    assert f"try {demo}" in str(error)
    assert "_ssl.c" not in str(error)


def test_a_refused_token_is_told_so_without_command_line_hints(guarded: str) -> None:
    error = connect_error(guarded, token="not-" + TOKEN)
    assert isinstance(error, McpHttpTransportAuthRequiredError)
    assert "refused the credentials sent (HTTP 401)" in str(error)
    for misfit in ("Authorization header", "--server-id", "not-" + TOKEN):
        assert misfit not in str(error)


def test_a_missing_token_names_what_to_send(guarded: str) -> None:
    error = connect_error(guarded)
    assert isinstance(error, McpHttpTransportAuthRequiredError)
    assert "no credentials were sent: a bearer token, or an OAuth login" in str(error)
    assert "--server-id" not in str(error)


def test_a_403_is_named_forbidden() -> None:
    with fixed_answer(403, '{"error": "forbidden"}', "application/json") as url:
        error = connect_error(f"{url}/mcp", token="t0ken")
    assert isinstance(error, McpHttpTransportError) and error.status_code == 403
    assert "HTTP 403 (forbidden: the credentials sent do not allow it)" in str(error)
