"""The adapter to the transport's McpHttpAuth hook, driving the real McpHttpTransport.

The transport does not wire OAuth in yet (its ``resolve_auth`` refuses ``oauth`` settings), so
the test puts the adapter in ``resolve_auth``'s place: this is exactly the integration to come.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import httpx
import mcpstream.transport_http
import pytest
from mcpstream.models import McpOAuthConfig, ResolvedMcpServer
from mcpstream.oauth import HeadlessRedirectHandler, McpOAuthHttpAuth
from mcpstream.oauth_store import McpOAuthMemoryTokenStore
from mcpstream.transport_http import McpHttpTransport

from .auth_server import AuthServer


def test_the_transport_logs_in_on_a_401_and_replays_through_the_adapter(
    auth_server: Callable[..., AuthServer],
    http_client: httpx.Client,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    server = auth_server(
        challenge_scope="mcp:basic",
        pre_registered={"pre": ""},
    )
    store = McpOAuthMemoryTokenStore()
    adapters: list[McpOAuthHttpAuth] = []

    def resolve_auth(resolved: ResolvedMcpServer) -> McpOAuthHttpAuth:
        adapter = McpOAuthHttpAuth.for_server(
            resolved,
            client=http_client,
            store=store,
            redirect_handler=HeadlessRedirectHandler(client=http_client),
        )
        adapters.append(adapter)
        return adapter

    # Wherever the transport's protocol core keeps resolve_auth (it may move between modules).
    assert mcpstream.transport_http
    patched = 0
    for name, module in list(sys.modules.items()):
        if name.startswith("mcpstream.") and callable(getattr(module, "resolve_auth", None)):
            monkeypatch.setattr(module, "resolve_auth", resolve_auth)
            patched += 1
    assert patched
    resolved = ResolvedMcpServer(
        id="srv", url=server.mcp_url, oauth=McpOAuthConfig(client_id="pre")
    )
    transport = McpHttpTransport(server=resolved, workspace_root=tmp_path, listen=False)
    try:
        response = transport.request(method="tools/list", params={}, timeout_s=10)
    finally:
        transport.close()
    assert response.result == {"ok": True}
    assert server.mcp_calls == ["tools/list"]
    assert server.find("/authorize")[0].query["scope"] == "mcp:basic"
    record = store.load("srv")
    assert record is not None and record.client_registration is not None
    assert record.client_registration.client_id == "pre"
