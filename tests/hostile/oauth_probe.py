"""One OAuth operation against a hostile server, in a process of its own, with its peak memory:
``python -m tests.hostile.oauth_probe OPERATION MODE BASE_URL``.

``OPERATION`` names the path an OAuth document is read on (see :data:`OPERATIONS`), ``MODE`` is
``sync`` or ``async``, ``BASE_URL`` the hostile server (its ``/mcp``, metadata, ``/register``,
``/token`` and ``/idp/token``, one of them a bomb). Prints one JSON object: the class and
message of the error the operation raised (``null`` when it raised none) and how much the
process's peak resident set grew while it ran. A process of its own, so that nothing else (the
server, other tests) shares its peak; VmHWM rather than ``ru_maxrss``, which Linux carries over
from the parent.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from mcpstream.models import McpOAuthConfig, ResolvedMcpServer
from mcpstream.oauth import (
    AsyncHeadlessRedirectHandler,
    AsyncMcpOAuthSession,
    HeadlessRedirectHandler,
    McpOAuthClientSettings,
    McpOAuthSession,
)
from mcpstream.oauth.login import login
from mcpstream.oauth.metadata import McpAuthorizationServerMetadata
from mcpstream.oauth.tokens import arefresh_access_token, refresh_access_token
from mcpstream.oauth_store import McpOAuthMemoryTokenStore
from mcpstream.transport_http import AsyncMcpHttpTransport, McpHttpTransport

CLIENT_ID = "probe-client"
CLIENT_SECRET = "probe-secret"
"""The pre-registered client the hostile server's token endpoint would know."""


def peak_rss_bytes() -> int:
    """The peak resident set of this process so far (VmHWM)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def _settings(operation: str) -> McpOAuthClientSettings:
    if operation == "registration":  # no client: dynamic registration comes first
        return McpOAuthClientSettings()
    if operation == "idp":
        return McpOAuthClientSettings(
            grant_type="enterprise",
            client_id=CLIENT_ID,
            client_secret=CLIENT_SECRET,
            id_token=lambda: "probe-id-token",
            idp_token_endpoint=ENDPOINTS["idp"],
            idp_client_id="probe-idp-client",
        )
    return McpOAuthClientSettings(
        grant_type="client_credentials", client_id=CLIENT_ID, client_secret=CLIENT_SECRET
    )


ENDPOINTS: dict[str, str] = {}


def _session_login(operation: str, mode: str, base: str) -> Any:
    """A session's login (discovery, registration, the token or identity provider's endpoint)."""
    options: dict[str, Any] = {
        "server_id": "probe",
        "server_url": f"{base}/mcp",
        "settings": _settings(operation),
        "store": McpOAuthMemoryTokenStore(),
        "timeout_s": 30.0,
    }
    if mode == "sync":
        session = McpOAuthSession(redirect_handler=HeadlessRedirectHandler(), **options)
        return session.login()
    handler = AsyncHeadlessRedirectHandler()
    return asyncio.run(AsyncMcpOAuthSession(redirect_handler=handler, **options).login())


def _cli_login(operation: str, mode: str, base: str) -> Any:
    """What ``mcpstream auth login`` runs: the probe's 401, then the session's login."""
    settings = _settings(operation)
    return login(
        server_url=f"{base}/mcp",
        redirect_handler=None,
        settings=settings,
        store=McpOAuthMemoryTokenStore(),
        timeout_s=30.0,
    )


def _refresh(operation: str, mode: str, base: str) -> Any:
    """A refresh at the token endpoint (the transports' before a token expires)."""
    metadata = McpAuthorizationServerMetadata(issuer=base, token_endpoint=f"{base}/token")
    options: dict[str, Any] = {
        "server_id": "probe",
        "authorization_server_metadata": metadata,
        "resource_server_url": f"{base}/mcp",
        "client_id": CLIENT_ID,
        "refresh_token": "probe-refresh-token",
        "requested_scopes": None,
        "existing_granted_scopes": None,
        "timeout_s": 30.0,
    }
    if mode == "sync":
        return refresh_access_token(**options)
    return asyncio.run(arefresh_access_token(**options))


def _transport(operation: str, mode: str, base: str) -> Any:
    """A transport's first request: the server's 401, then the session's discovery over the
    transport's own client (which reads in large pieces)."""
    config = McpOAuthConfig(
        client_id=CLIENT_ID, client_secret=CLIENT_SECRET, grant_type="client_credentials"
    )
    server = ResolvedMcpServer(id="probe", url=f"{base}/mcp", oauth=config, call_timeout_s=30)
    params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "p"}}
    options: dict[str, Any] = {
        "server": server,
        "workspace_root": Path(tempfile.gettempdir()),
        "oauth_store": McpOAuthMemoryTokenStore(),
        "listen": False,
    }
    if mode == "sync":
        with McpHttpTransport(**options) as transport:
            return transport.request(method="initialize", params=params, timeout_s=30)

    async def body() -> Any:
        async with AsyncMcpHttpTransport(**options) as transport:
            return await transport.request(method="initialize", params=params, timeout_s=30)

    return asyncio.run(body())


Operation = Callable[[str, str, str], Any | Awaitable[Any]]
OPERATIONS: dict[str, Operation] = {
    "prm": _session_login,
    "as-metadata": _session_login,
    "registration": _session_login,
    "token": _session_login,
    "idp": _session_login,
    "login-prm": _cli_login,
    "refresh": _refresh,
    "transport-prm": _transport,
}
"""Each path an OAuth document is read on, by the name the tests give it."""


def main(operation: str, mode: str, base: str) -> dict[str, Any]:
    """Run ``operation``; its error and the growth of the peak resident set."""
    ENDPOINTS["idp"] = f"{base}/idp/token"
    before = peak_rss_bytes()
    error: BaseException | None = None
    try:
        OPERATIONS[operation](operation, mode, base)
    except Exception as exc:
        error = exc
    return {
        "error": None if error is None else type(error).__name__,
        "message": None if error is None else str(error),
        "growth_bytes": peak_rss_bytes() - before,
    }


if __name__ == "__main__":
    print(json.dumps(main(*sys.argv[1:4])))
