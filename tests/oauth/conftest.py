"""Fixtures of the OAuth tests: a private config dir, the loopback authorization server, and a
real MCP server protected by it."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcpstream.oauth import (
    AsyncHeadlessRedirectHandler,
    AsyncMcpOAuthSession,
    HeadlessRedirectHandler,
    McpOAuthClientSettings,
    McpOAuthSession,
)
from mcpstream.oauth_store import McpOAuthMemoryTokenStore

from .auth_server import AuthServer, AuthServerConfig
from .protected_mcp import ProtectedMcpServer

Start = Callable[..., AuthServer]
"""The type of the ``auth_server`` fixture."""
MakeSession = Callable[..., McpOAuthSession]
"""The type of the ``make_session`` fixture."""


@pytest.fixture(autouse=True)
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own token store directory; the user's is never touched."""
    directory = tmp_path / "config"
    monkeypatch.setenv("MCPSTREAM_CONFIG_DIR", str(directory))
    return directory


@pytest.fixture
def auth_server() -> Iterator[Callable[..., AuthServer]]:
    """A factory: ``auth_server(**AuthServerConfig fields)`` starts a server; all are stopped."""
    started: list[AuthServer] = []

    def start(**config: Any) -> AuthServer:
        server = AuthServer(AuthServerConfig(**config)).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def protected_mcp(
    auth_server: Callable[..., AuthServer],
) -> Iterator[Callable[..., tuple[AuthServer, ProtectedMcpServer]]]:
    """A factory: ``protected_mcp(**AuthServerConfig fields)`` starts an authorization server and
    an MCP server that trusts its tokens; returns both. All are stopped after the test."""
    started: list[ProtectedMcpServer] = []

    def start(**config: Any) -> tuple[AuthServer, ProtectedMcpServer]:
        auth = auth_server(**config)
        server = ProtectedMcpServer(auth).start()
        started.append(server)
        return auth, server

    yield start
    for server in started:
        server.stop()


@pytest.fixture(params=["httpx", "httpx2"])
def http_client(request: pytest.FixtureRequest) -> Iterator[httpx.Client]:
    """The test's HTTP client, which the sessions and redirect handlers run over: an
    ``httpx.Client``, then an ``httpx2.Client`` (the OAuth flows speak httpx; the driver
    translates)."""
    module = importlib.import_module(request.param)
    with module.Client() as client:
        yield client


@pytest.fixture
def make_session(http_client: httpx.Client) -> Callable[..., McpOAuthSession]:
    """``make_session(server, **kwargs)``: a session with a headless redirect handler and an
    in-memory store unless the test passes others."""

    def make(server: AuthServer, **kwargs: Any) -> McpOAuthSession:
        kwargs.setdefault("store", McpOAuthMemoryTokenStore())
        kwargs.setdefault("redirect_handler", HeadlessRedirectHandler(client=http_client))
        return McpOAuthSession(
            server_id="srv", server_url=server.mcp_url, client=http_client, **kwargs
        )

    return make


@dataclass
class Bench:
    """A started loopback authorization server, with the test's HTTP client and sessions for
    a machine client (no redirect handler)."""

    server: AuthServer
    http: httpx.Client
    make_session: MakeSession

    def session(self, settings: McpOAuthClientSettings, **options: Any) -> McpOAuthSession:
        """A session for ``settings`` (an in-memory store unless ``options`` give one)."""
        options.setdefault("redirect_handler", None)
        return self.make_session(self.server, settings=settings, **options)

    def call(self, session: McpOAuthSession, method: str = "tools/list") -> httpx.Response:
        """One JSON-RPC request to the server's ``/mcp`` through ``session`` (:func:`call_mcp`)."""
        return call_mcp(session, self.http, self.server.mcp_url, method)


MakeBench = Callable[..., Bench]
"""The type of the ``bench`` fixture."""


@pytest.fixture
def bench(auth_server: Start, http_client: httpx.Client, make_session: MakeSession) -> MakeBench:
    """A factory: ``bench(**AuthServerConfig fields)`` starts a server, as a :class:`Bench`."""
    return lambda **config: Bench(auth_server(**config), http_client, make_session)


def call_mcp(
    session: McpOAuthSession, client: httpx.Client, url: str, method: str
) -> httpx.Response:
    """Send one JSON-RPC request the way a transport does, through the session's hook."""
    auth = session.request_auth(method=method)
    while True:
        header = auth.authorization_header()
        response = client.post(
            url,
            json={"jsonrpc": "2.0", "id": 1, "method": method},
            headers={"Authorization": header} if header else {},
        )
        if response.status_code in (401, 403) and auth.should_retry(
            response.status_code, response.headers, response.content
        ):
            continue
        return response


async def acall_mcp(server_url: str, method: str, **session_options: Any) -> httpx.Response:
    """:func:`call_mcp` through a new :class:`AsyncMcpOAuthSession` (an in-memory store and an
    async headless redirect handler unless ``session_options`` give others)."""
    async with httpx.AsyncClient() as client:
        session_options.setdefault("store", McpOAuthMemoryTokenStore())
        session_options.setdefault("redirect_handler", AsyncHeadlessRedirectHandler(client=client))
        session = AsyncMcpOAuthSession(
            server_id="srv", server_url=server_url, client=client, **session_options
        )
        auth = session.request_auth(method=method)
        while True:
            header = await auth.authorization_header()
            response = await client.post(
                server_url,
                json={"jsonrpc": "2.0", "id": 1, "method": method},
                headers={"Authorization": header} if header else {},
            )
            if response.status_code in (401, 403) and await auth.should_retry(
                response.status_code, response.headers, response.content
            ):
                continue
            return response
