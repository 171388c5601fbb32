"""The HTTP/1.1 transports behind a real reverse proxy: nginx (``nginx_proxy``, installed by
``scripts/install-nginx.sh``) on loopback. Its keep-alive race (calls spaced right at nginx's
``keepalive_timeout``, so that requests go out on connections nginx is closing) fails no call
and has the server read no call twice; its own error pages (502, 503, 504) read as server or
gateway errors naming the status, at both protocol eras, not as a wrong URL."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcpstream import AsyncClient, Client
from mcpstream.errors import McpHttpTransportRemoteError

from .h1_scripted import ScriptedServer
from .helpers import free_port
from .nginx_proxy import McpAnswerer, Nginx, proxy_to, race

CLIENTS = 20
CALLS = 12
"""Calls of each client in the race (240 of each kind, about 13 s): 400 calls of each kind
failed 6 (sync) and 19 (async) times before the resend (``python -m transport.nginx_proxy``
runs a longer race)."""

SPACING = (0.997, 1.003)
"""The pause after each answer: nginx's keepalive_timeout (1 s) to within 3 ms either way, where
nginx closes the idle connections."""


@pytest.fixture(autouse=True)
def _h1_transport(monkeypatch: pytest.MonkeyPatch) -> None:
    """The HTTP/1.1 transport, whose pool's rules these test, also in the suite's run over
    httpx's own transport (``MCPSTREAM_H1_TRANSPORT=0``), whose pool has no such rule."""
    monkeypatch.setenv("MCPSTREAM_H1_TRANSPORT", "1")


@pytest.fixture(scope="module")
def answerer() -> Iterator[McpAnswerer]:
    served = McpAnswerer()
    yield served
    served.close()


@pytest.fixture(scope="module")
def proxy(answerer: McpAnswerer) -> Iterator[Nginx]:
    """nginx with a 1 s keep-alive timeout (and no ``Keep-Alive`` field to tell it, as nginx
    sends none by default) in front of the answerer."""
    with Nginx(proxy_to(answerer.port), keepalive_timeout="1s") as nginx:
        yield nginx


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_calls_at_the_keep_alive_timeout_of_nginx_all_succeed_and_none_is_read_twice(
    answerer: McpAnswerer, proxy: Nginx, kind: str, tmp_path: Path
) -> None:
    outcome = race(
        f"{proxy.url}/mcp",
        answerer,
        kind=kind,
        clients=CLIENTS,
        calls=CALLS,
        spacing=SPACING,
        workspace=tmp_path,
    )
    assert outcome.made == CLIENTS * CALLS
    assert outcome.failures == []
    assert outcome.twice == {}
    # every call reached the server (once: none is missing either)
    assert sum(1 for tag in answerer.calls if tag.startswith(f"{kind}-")) == CLIENTS * CALLS


def test_a_keep_alive_field_of_nginx_is_honoured_before_its_close(
    answerer: McpAnswerer, tmp_path: Path
) -> None:
    # ``keepalive_timeout 2s 2s``: nginx says ``Keep-Alive: timeout=2``; the client drops an
    # idle connection after a second (2 s less its margin), so that calls 1.5 s apart each
    # take a new one (and none would race nginx's close, were they spaced at 2 s).
    with Nginx(proxy_to(answerer.port), keepalive_timeout="2s 2s") as nginx:
        outcome = race(
            f"{nginx.url}/mcp",
            answerer,
            kind="sync",
            clients=1,
            calls=3,
            spacing=(1.5, 1.5),
            workspace=tmp_path,
        )
        served = nginx.connection_requests()
    assert (outcome.made, outcome.failures) == (3, [])
    # (before them: initialize, its notification, the GET for a stream, refused)
    assert served[-3:] == [1, 1, 1]  # each call the first of its connection


# -- a proxy's error pages ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def silent() -> Iterator[ScriptedServer]:
    """A server that reads requests and never answers (nginx's 504 after its read timeout)."""
    server = ScriptedServer(lambda exchange: None)
    yield server
    server.close()


def _error_of(url: str, protocol: str) -> BaseException:
    """What ``Client(url).connect()`` raised at ``protocol``'s era (the async client raises
    the same)."""
    with (
        pytest.raises(McpHttpTransportRemoteError) as sync_caught,
        Client(url, protocol=protocol, request_timeout_s=10.0) as client,
    ):
        client.connect()

    async def main() -> None:
        async with AsyncClient(url, protocol=protocol, request_timeout_s=10.0) as client:
            await client.connect()

    with pytest.raises(McpHttpTransportRemoteError) as async_caught:
        asyncio.run(main())
    assert str(async_caught.value) == str(sync_caught.value)
    return sync_caught.value


@pytest.mark.parametrize("protocol", ["legacy", "modern"])
@pytest.mark.parametrize(
    ("status", "words"),
    [(502, "bad gateway"), (503, "service unavailable"), (504, "gateway timeout")],
)
def test_a_proxys_error_page_is_a_server_or_gateway_error_at_both_eras(
    silent: ScriptedServer, status: int, words: str, protocol: str
) -> None:
    location = {
        502: proxy_to(free_port()),  # nothing listens behind it
        503: "location / { return 503; }",
        504: proxy_to(silent.port).replace("}", "proxy_read_timeout 300ms; }"),
    }[status]
    with Nginx(location) as nginx:
        error = _error_of(f"{nginx.url}/mcp", protocol)
    message = str(error)
    assert f"server or gateway error HTTP {status} ({words}" in message
    assert "HTML page (" in message and "<" not in message
    assert "not an MCP endpoint" not in message and "is this the URL" not in message
