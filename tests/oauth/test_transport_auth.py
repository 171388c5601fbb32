"""The adapter to the transport's McpHttpAuth hook, driving the real McpHttpTransport.

The transport does not wire OAuth in yet (``resolve_auth`` refuses ``oauth`` settings), so the
test puts the adapter in ``resolve_auth``'s place: this is exactly the integration to come.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from mcpstream import transport_core
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

    def resolve_auth(resolved: ResolvedMcpServer) -> transport_core.McpHttpAuth:
        adapter = McpOAuthHttpAuth.for_server(
            resolved,
            client=http_client,
            store=store,
            redirect_handler=HeadlessRedirectHandler(client=http_client),
        )
        adapters.append(adapter)
        return adapter

    monkeypatch.setattr(transport_core, "resolve_auth", resolve_auth)
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
