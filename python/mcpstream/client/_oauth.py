"""OAuth for the clients, through ``httpx.Auth`` on the HTTP client given to the transport.

The transport's own hook for OAuth (``McpHttpAuth``, chosen by ``transport_core.resolve_auth``
from ``ResolvedMcpServer.oauth``) does not accept OAuth settings yet, so the clients put an
``httpx.Auth`` on the HTTP client instead. It drives the same ``McpOAuthSession`` the hook
would: the stored login (refreshed before it expires), a refresh and a single replay on 401 (never
for ``tools/call``: it may have side effects), step-up on 403 ``insufficient_scope``, and the
OAuth errors that name ``mcpstream auth login`` when there is no usable login. The JSON-RPC
method a request carries is read from its body.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Generator

import httpx

from ..oauth import (
    AsyncMcpOAuthSession,
    McpOAuthClientSettings,
    McpOAuthSession,
    default_server_id,
)

__all__ = ["AsyncOAuthAuth", "OAuthAuth", "OAuthOption", "async_oauth_session", "oauth_session"]

OAuthOption = bool | McpOAuthClientSettings | McpOAuthSession | AsyncMcpOAuthSession | None
"""What a client's ``oauth`` argument may be: ``True`` for the stored login of the server's URL
(``mcpstream auth login URL``), settings (a machine client, a pre-registered client id), or a
ready session."""

_CHALLENGES = (401, 403)
_GET_STREAM = "GET"


def _method_of(request: httpx.Request) -> str:
    """The JSON-RPC method in the body of a POST; ``GET`` for a stream."""
    if request.method != "POST":
        return _GET_STREAM
    try:
        payload = json.loads(request.content)
    except ValueError:
        return "unknown"
    method = payload.get("method") if isinstance(payload, dict) else None
    return method if isinstance(method, str) else "response"


def _set_header(request: httpx.Request, header: str | None) -> None:
    if header:
        request.headers["Authorization"] = header
    else:
        request.headers.pop("Authorization", None)


def oauth_session(option: OAuthOption, url: str, server_id: str | None) -> McpOAuthSession | None:
    """The sync OAuth session an ``oauth`` argument asks for (None: no OAuth)."""
    if option is None or option is False:
        return None
    if isinstance(option, McpOAuthSession):
        return option
    if isinstance(option, AsyncMcpOAuthSession):
        raise TypeError("Client needs an McpOAuthSession, not an AsyncMcpOAuthSession")
    settings = option if isinstance(option, McpOAuthClientSettings) else None
    return McpOAuthSession(
        server_id=server_id or default_server_id(url), server_url=url, settings=settings
    )


def async_oauth_session(
    option: OAuthOption, url: str, server_id: str | None
) -> AsyncMcpOAuthSession | None:
    """The async OAuth session an ``oauth`` argument asks for (None: no OAuth)."""
    if option is None or option is False:
        return None
    if isinstance(option, AsyncMcpOAuthSession):
        return option
    if isinstance(option, McpOAuthSession):
        raise TypeError("AsyncClient needs an AsyncMcpOAuthSession, not an McpOAuthSession")
    settings = option if isinstance(option, McpOAuthClientSettings) else None
    return AsyncMcpOAuthSession(
        server_id=server_id or default_server_id(url), server_url=url, settings=settings
    )


class OAuthAuth(httpx.Auth):
    """``httpx.Auth`` over a sync OAuth session."""

    requires_request_body = True

    def __init__(self, session: McpOAuthSession) -> None:
        self.session = session

    def sync_auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response]:
        """Authorize ``request``; on 401/403 renew the credentials and replay when allowed."""
        if request.method == "DELETE":
            _set_header(request, self.session.stored_authorization_header())
            yield request
            return
        auth = self.session.request_auth(method=_method_of(request))
        _set_header(request, auth.authorization_header())
        response = yield request
        while response.status_code in _CHALLENGES:
            body = response.read()
            if not auth.should_retry(response.status_code, response.headers, body):
                return
            _set_header(request, auth.authorization_header())
            response = yield request


class AsyncOAuthAuth(httpx.Auth):
    """``httpx.Auth`` over an async OAuth session."""

    requires_request_body = True

    def __init__(self, session: AsyncMcpOAuthSession) -> None:
        self.session = session

    async def async_auth_flow(
        self, request: httpx.Request
    ) -> AsyncGenerator[httpx.Request, httpx.Response]:
        """Authorize ``request``; on 401/403 renew the credentials and replay when allowed."""
        if request.method == "DELETE":
            _set_header(request, self.session.stored_authorization_header())
            yield request
            return
        auth = self.session.request_auth(method=_method_of(request))
        _set_header(request, await auth.authorization_header())
        response = yield request
        while response.status_code in _CHALLENGES:
            body = await response.aread()
            if not await auth.should_retry(response.status_code, response.headers, body):
                return
            _set_header(request, await auth.authorization_header())
            response = yield request
