"""OAuth wired into the async transport, end to end: ``AsyncMcpHttpTransport`` drives an
``AsyncMcpOAuthSession`` (awaited, so the event loop never blocks on a refresh or a login)
against the loopback authorization server and the real MCP server that trusts its tokens.

The same behaviours as ``test_transport_oauth`` (the sync transport), each test running its own
event loop with ``asyncio.run``.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcpstream.errors import McpHttpTransportAuthRequiredError, McpHttpTransportError
from mcpstream.jsonrpc import JsonRpcResponse
from mcpstream.models import McpOAuthConfig, ResolvedMcpServer
from mcpstream.oauth import (
    AsyncHeadlessRedirectHandler,
    AsyncMcpOAuthSession,
    AuthorizationPrompt,
    HeadlessRedirectHandler,
    McpOAuthAuthRequiredError,
    McpOAuthError,
    McpOAuthInsufficientScopeError,
    McpOAuthReLoginRequired,
)
from mcpstream.oauth_store import McpOAuthMemoryTokenStore
from mcpstream.transport_http import AsyncMcpHttpTransport, ReconnectPolicy
from transport.helpers import CLIENT_CAPABILITIES, PROTOCOL_VERSION, ScriptedHandler

from .auth_server import AuthServer
from .protected_mcp import ProtectedMcpServer, secrets_of
from .test_transport_oauth import bearer, grants

Protected = Callable[..., tuple[AuthServer, ProtectedMcpServer]]
FAST_RECONNECT = ReconnectPolicy(initial_delay_s=0.05, max_delay_s=0.1)


def run(coroutine: Coroutine[Any, Any, None]) -> None:
    """Run one test body on an event loop of its own."""
    asyncio.run(asyncio.wait_for(coroutine, 60))


@asynccontextmanager
async def oauth_transport(
    url: str,
    tmp_path: Path,
    *,
    oauth: McpOAuthConfig | None = None,
    can_login: bool = True,
    store: McpOAuthMemoryTokenStore | None = None,
    **options: Any,
) -> AsyncIterator[AsyncMcpHttpTransport]:
    """An async transport for server ``srv`` with OAuth settings, a memory store (``store``) and
    an async headless redirect handler (none with ``can_login=False``); closed at the end."""
    server = ResolvedMcpServer(
        id="srv", url=url, oauth=oauth or McpOAuthConfig(), call_timeout_s=10
    )
    options.setdefault(
        "oauth_redirect_handler", AsyncHeadlessRedirectHandler() if can_login else None
    )
    async with AsyncMcpHttpTransport(
        server=server, workspace_root=tmp_path, oauth_store=store, **options
    ) as transport:
        yield transport


async def initialize(transport: AsyncMcpHttpTransport) -> None:
    """The MCP handshake (``transport.helpers.initialize``, awaited)."""
    response = await transport.request(
        method="initialize",
        params={
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": CLIENT_CAPABILITIES,
            "clientInfo": {"name": "mcpstream-tests", "version": "0"},
        },
        timeout_s=10,
    )
    assert response.error is None, response.error
    transport.set_negotiated_protocol_version(response.result["protocolVersion"])
    await transport.send_notification(method="notifications/initialized", params=None)


async def call_tool(
    transport: AsyncMcpHttpTransport, name: str, arguments: dict[str, Any] | None = None
) -> str:
    """Call a tool; return the text of its result."""
    response: JsonRpcResponse = await transport.request(
        method="tools/call", params={"name": name, "arguments": arguments or {}}, timeout_s=10
    )
    assert response.error is None, response.error
    return str(response.result["content"][0]["text"])


async def eventually(predicate: Callable[[], bool], timeout_s: float = 5.0) -> None:
    """Wait (without blocking the loop) until ``predicate()`` holds."""
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError
        await asyncio.sleep(0.01)


def test_the_first_401_logs_in_and_every_request_carries_the_bearer(
    protected_mcp: Protected, tmp_path: Path
) -> None:
    auth, mcp = protected_mcp(challenge_scope="mcp:basic")
    store = McpOAuthMemoryTokenStore()
    handler = ScriptedHandler({"ping": {}})

    async def scenario() -> None:
        async with oauth_transport(
            mcp.url, tmp_path, store=store, server_request_handler=handler
        ) as transport:
            await initialize(transport)
            await eventually(lambda: transport.listening)
            assert await call_tool(transport, "poke") == "poked"
            await eventually(
                lambda: any(
                    n.method == "notifications/tools/list_changed"
                    for n in transport.drain_notifications()
                )
            )

    run(scenario())
    gate = mcp.gate
    assert [method for method, _, _ in handler.calls] == ["ping"]
    assert gate.statuses("POST", "initialize") == [401, 200]
    assert auth.find("/authorize")[0].query["scope"] == "mcp:basic"
    assert gate.records[0].authorization is None
    assert {r.authorization for r in gate.records[1:]} == {bearer(store)}
    assert gate.statuses("GET")[0] == 200
    assert gate.statuses("DELETE") == [200]


def test_resumption_gets_carry_the_bearer(protected_mcp: Protected, tmp_path: Path) -> None:
    _, mcp = protected_mcp()
    store = McpOAuthMemoryTokenStore()

    async def scenario() -> None:
        async with oauth_transport(mcp.url, tmp_path, store=store, listen=False) as transport:
            await initialize(transport)
            assert await call_tool(transport, "resumable") == "resumed"

    run(scenario())
    resumed = [r for r in mcp.gate.records if r.http_method == "GET" and r.last_event_id]
    assert resumed
    assert {r.authorization for r in resumed} == {bearer(store)}


def test_a_token_about_to_expire_is_refreshed_before_the_request(
    protected_mcp: Protected, tmp_path: Path
) -> None:
    auth, mcp = protected_mcp()
    store = McpOAuthMemoryTokenStore()

    async def scenario() -> None:
        async with oauth_transport(mcp.url, tmp_path, store=store, listen=False) as transport:
            await initialize(transport)
            record = store.load("srv")
            assert record is not None
            store.save("srv", record.with_changes(expires_at=time.time() + 5))
            response = await transport.request(method="tools/list", params=None, timeout_s=10)
            assert response.error is None

    run(scenario())
    assert grants(auth, "refresh_token") == 1
    assert mcp.gate.statuses("POST", "tools/list") == [200]


def test_a_401_refreshes_and_replays_once_but_never_a_tools_call(
    protected_mcp: Protected, tmp_path: Path
) -> None:
    auth, mcp = protected_mcp()
    store = McpOAuthMemoryTokenStore()
    gate = mcp.gate

    async def scenario() -> None:
        async with oauth_transport(mcp.url, tmp_path, store=store, listen=False) as transport:
            await initialize(transport)
            gate.revoke(bearer(store))
            listed = await transport.request(method="tools/list", params=None, timeout_s=10)
            assert listed.error is None
            gate.revoke(bearer(store))
            with pytest.raises(McpOAuthAuthRequiredError) as raised:
                await call_tool(transport, "echo", {"text": "once"})
            assert type(raised.value) is McpOAuthAuthRequiredError
            assert "Retry" in str(raised.value)
            assert await call_tool(transport, "echo", {"text": "once"}) == "once"
            gate.always_unauthorized.add("tools/list")
            with pytest.raises(McpOAuthReLoginRequired, match="mcpstream auth login"):
                await transport.request(method="tools/list", params=None, timeout_s=10)

    run(scenario())
    assert gate.statuses("POST", "tools/list") == [401, 200, 401, 401]
    assert gate.statuses("POST", "tools/call") == [401, 200]
    assert grants(auth, "refresh_token") == 3


def test_insufficient_scope_steps_up_and_replays_within_the_limit(
    protected_mcp: Protected, tmp_path: Path
) -> None:
    auth, mcp = protected_mcp(
        challenge_scope="mcp:basic",
        required_scopes={"tools/call": ["mcp:basic", "mcp:write"], "prompts/list": ["mcp:admin"]},
        withheld_scopes=["mcp:admin"],
    )

    async def scenario() -> None:
        async with oauth_transport(mcp.url, tmp_path, listen=False) as transport:
            await initialize(transport)
            assert await call_tool(transport, "echo", {"text": "up"}) == "up"
            with pytest.raises(McpOAuthInsufficientScopeError) as raised:
                await transport.request(method="prompts/list", params=None, timeout_s=10)
            assert not isinstance(raised.value, McpHttpTransportError)

    run(scenario())
    assert mcp.gate.statuses("POST", "tools/call") == [403, 200]
    assert mcp.gate.statuses("POST", "prompts/list") == [403, 403, 403]
    scopes = [set(r.query["scope"].split()) for r in auth.find("/authorize")]
    assert scopes[:2] == [{"mcp:basic"}, {"mcp:basic", "mcp:write"}]
    assert len(scopes) == 4  # the login, one step-up, then two for prompts/list: the limit


def test_without_credentials_the_error_names_mcpstream_auth_login(
    protected_mcp: Protected, tmp_path: Path
) -> None:
    _, mcp = protected_mcp()

    async def scenario() -> None:
        async with oauth_transport(mcp.url, tmp_path, can_login=False) as transport:
            with pytest.raises(McpOAuthAuthRequiredError) as raised:
                await initialize(transport)
            assert f"mcpstream auth login {mcp.url} --server-id srv" in str(raised.value)
        plain = ResolvedMcpServer(id="plain", url=mcp.url)
        async with AsyncMcpHttpTransport(server=plain, workspace_root=tmp_path) as transport:
            with pytest.raises(McpHttpTransportAuthRequiredError) as refused:
                await initialize(transport)
            assert f"mcpstream auth login {mcp.url} --server-id plain" in str(refused.value)

    run(scenario())
    assert [r.authorization for r in mcp.gate.records] == [None]  # only the plain transport's


def test_the_get_stream_renews_a_rejected_token_and_reconnects(
    protected_mcp: Protected, tmp_path: Path
) -> None:
    auth, mcp = protected_mcp()
    store = McpOAuthMemoryTokenStore()
    mcp.gate.revoke_on_get = 1

    async def scenario() -> None:
        async with oauth_transport(
            mcp.url, tmp_path, store=store, reconnect_policy=FAST_RECONNECT
        ) as transport:
            await initialize(transport)
            await eventually(lambda: transport.listening)

    run(scenario())
    gets = [r for r in mcp.gate.records if r.http_method == "GET"]
    assert [r.status for r in gets] == [401, 200]
    assert gets[0].authorization != gets[1].authorization
    assert grants(auth, "refresh_token") == 1


def test_a_blocking_redirect_handler_runs_off_the_event_loop(
    protected_mcp: Protected, tmp_path: Path
) -> None:
    _, mcp = protected_mcp()
    threads: list[threading.Thread] = []

    class Recording(HeadlessRedirectHandler):
        def authorize(self, prompt: AuthorizationPrompt) -> str:
            threads.append(threading.current_thread())
            return super().authorize(prompt)

    async def scenario() -> None:
        async with oauth_transport(
            mcp.url, tmp_path, oauth_redirect_handler=Recording(), listen=False
        ) as transport:
            assert isinstance(transport._auth, AsyncMcpOAuthSession)
            await initialize(transport)
            assert threads and threads[0] is not threading.current_thread()

    run(scenario())


def test_no_secret_reaches_an_error_a_log_line_or_a_repr(
    protected_mcp: Protected, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    auth, mcp = protected_mcp(
        required_scopes={"tools/call": ["mcp:admin"]}, withheld_scopes=["mcp:admin"]
    )
    store = McpOAuthMemoryTokenStore()
    mcp.gate.revoke_on_get = 1
    texts: list[str] = []

    async def scenario() -> None:
        async with oauth_transport(
            mcp.url, tmp_path, store=store, reconnect_policy=FAST_RECONNECT
        ) as transport:
            await initialize(transport)
            await eventually(lambda: transport.listening)
            for method in ("tools/call", "tools/list"):
                with pytest.raises(McpOAuthError) as raised:
                    await transport.request(method=method, params={"name": "x"}, timeout_s=10)
                error: BaseException | None = raised.value
                while error is not None:
                    texts.extend((str(error), repr(error)))
                    error = error.__cause__ or error.__context__
                mcp.gate.always_unauthorized.add("tools/list")
            texts.extend((repr(transport), repr(transport.server)))

    run(scenario())
    ours = [r.getMessage() for r in caplog.records if r.name.startswith("mcpstream")]
    secrets = secrets_of(auth, mcp.gate)
    assert len(secrets) >= 6
    assert not {secret for secret in secrets for text in [*ours, *texts] if secret in text}
