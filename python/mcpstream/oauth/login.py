"""Logging in ahead of time (what ``mcpstream auth login`` runs).

The server is first probed with an unauthenticated ``initialize``: its 401 challenge carries
the ``resource_metadata`` URL and the ``scope`` it wants, which discovery and scope selection use.
A server that does not answer 401 is logged into all the same, from the well-known URLs.
"""

from __future__ import annotations

import contextlib
import json
import logging
import time

import httpx

from .._httpbase.stack import raised_on_any
from ..errors import McpOAuthDiscoveryError
from ..oauth_store import McpOAuthTokenRecord, McpOAuthTokenStore
from ._flow import USER_AGENT, McpOAuthRedirectHandler, _SocketWatchdog
from .session import McpOAuthSession, default_server_id
from .settings import McpOAuthClientSettings
from .urls import safe_url

__all__ = ["login", "probe_www_authenticate"]

_log = logging.getLogger("mcpstream.oauth")
_PROBE_PROTOCOL_VERSION = "2025-11-25"


def probe_www_authenticate(
    server_url: str, *, client: httpx.Client, timeout_s: float = 10.0
) -> str | None:
    """POST an unauthenticated ``initialize`` and return the ``WWW-Authenticate`` of a 401
    (``None`` for any other answer; a session the server opened is deleted again)."""
    body = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": _PROBE_PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "mcpstream", "version": USER_AGENT.split("/", 1)[1]},
        },
    }
    headers = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
    }
    request = client.build_request(
        "POST", server_url, content=json.dumps(body), headers=headers, timeout=timeout_s
    )
    started = time.monotonic()
    try:
        # Only the headers are read; the watchdog bounds the wait for them end to end.
        with _SocketWatchdog(request, timeout_s):
            response = client.send(request, stream=True, follow_redirects=False)
            response.close()
    except raised_on_any(lambda r: r.HTTPError) as exc:
        reason = type(exc).__name__
        if time.monotonic() - started >= timeout_s:
            reason = f"no answer within {timeout_s:g}s"
        raise McpOAuthDiscoveryError(f"could not reach {safe_url(server_url)}: {reason}") from exc
    status = response.status_code
    challenge = response.headers.get("WWW-Authenticate")
    session_id = response.headers.get("MCP-Session-Id")
    _log.debug("OAuth login probe: %s -> HTTP %s", safe_url(server_url), status)
    if status != 401 and session_id:
        delete = client.build_request(
            "DELETE",
            server_url,
            headers={"MCP-Session-Id": session_id, "User-Agent": USER_AGENT},
            timeout=timeout_s,
        )
        with (
            contextlib.suppress(*raised_on_any(lambda r: r.HTTPError)),
            _SocketWatchdog(delete, timeout_s),
        ):
            client.send(delete, stream=True).close()
    return challenge if status == 401 else None


def login(
    *,
    server_url: str,
    redirect_handler: McpOAuthRedirectHandler | None,
    server_id: str | None = None,
    settings: McpOAuthClientSettings | None = None,
    store: McpOAuthTokenStore | None = None,
    client: httpx.Client | None = None,
    timeout_s: float = 30.0,
    probe: bool = True,
) -> McpOAuthTokenRecord:
    """Log in to ``server_url`` and store the record under ``server_id`` (by default the
    server's canonical URI). ``redirect_handler`` may be ``None`` for a client-credentials
    setting."""
    owned = client is None
    http = client if client is not None else httpx.Client(follow_redirects=False)
    try:
        challenge = (
            probe_www_authenticate(server_url, client=http, timeout_s=timeout_s) if probe else None
        )
        session = McpOAuthSession(
            server_id=server_id or default_server_id(server_url),
            server_url=server_url,
            settings=settings,
            client=http,
            store=store,
            redirect_handler=redirect_handler,
            timeout_s=timeout_s,
        )
        return session.login(www_authenticate=challenge)
    finally:
        if owned:
            http.close()
