"""The transports' authorization hook: what a scheme such as OAuth must offer, and the hook a
server's configuration asks for.

A transport asks the hook, per JSON-RPC message it sends, for a request-scoped object
(``request_auth``). Before each HTTP request it asks that object for the ``Authorization``
header; when the server answers 401 or 403 it hands the answer over (``should_retry``), and
sends the request again when told to. The DELETE that ends the session uses the stored
credentials as they are (``stored_authorization_header``, which never raises).

``mcpstream.oauth.McpOAuthSession`` and ``AsyncMcpOAuthSession`` are such hooks; the rules of
OAuth (refresh before expiry, one replay after a 401 but never for ``tools/call``, step-up on a
403 ``insufficient_scope`` with a limit, the errors that name ``mcpstream auth login``) live in
them. The transports decide only when to ask and what to send.

DPoP (RFC 9449): a proof is bound to one HTTP request (its method and URL), so the drivers pass
every request they send through :func:`with_dpop_proof`, which asks the hook for the proof of a
request whose ``Authorization`` is a ``DPoP`` one (the POST, the GET stream, the DELETE), and
hand the head of each answer to such a request to :func:`learn_dpop_nonce` (the server's next
nonce may come on any answer).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Protocol
from urllib.parse import urlsplit

import httpx

from ..models import ResolvedMcpServer
from ..oauth import (
    AsyncMcpOAuthRedirectHandler,
    AsyncMcpOAuthSession,
    McpOAuthRedirectHandler,
    McpOAuthSession,
    login_command,
)
from ..oauth.dpop import DPOP_HEADER
from ..oauth_store import McpOAuthTokenStore
from ..redaction import redact_url
from .core.steps import HttpRequest

__all__ = [
    "OAUTH_TIMEOUT_CAP_S",
    "AsyncMcpHttpAuth",
    "AsyncMcpHttpRequestAuth",
    "McpHttpAuth",
    "McpHttpRequestAuth",
    "StoredCredentials",
    "learn_dpop_nonce",
    "resolve_async_auth",
    "resolve_auth",
    "with_dpop_proof",
]

OAUTH_TIMEOUT_CAP_S = 10.0
"""Each HTTP exchange with the authorization server gets the server's call timeout, at most
this long."""


class StoredCredentials(Protocol):
    """What both hooks offer for the DELETE that ends a session."""

    def stored_authorization_header(self) -> str | None:
        """The stored credentials as a header value, or None; never raises."""
        ...


class McpHttpRequestAuth(Protocol):
    """Authorization for one message (its HTTP request and the replays of it)."""

    def authorization_header(self) -> str | None:
        """The ``Authorization`` value to send now (``None``: send none)."""
        ...

    def should_retry(
        self, status_code: int, headers: Mapping[str, str], body: bytes | None = None
    ) -> bool:
        """Judge a 401 or 403 answer: True to send the request again with fresh credentials,
        False to map the status as usual. May raise an ``McpAuthError`` of its own."""
        ...


class McpHttpAuth(Protocol):
    """The hook of the sync transport (``McpOAuthSession`` is one)."""

    def request_auth(
        self, *, method: str, replay_allowed: bool | None = None
    ) -> McpHttpRequestAuth:
        """Authorization for one message carrying ``method``. ``replay_allowed``: whether a
        request refused with 401 may be sent again (``None``: unless it is ``tools/call``)."""
        ...

    def stored_authorization_header(self) -> str | None:
        """The stored credentials as a header value, or None; never raises (for the DELETE)."""
        ...


class AsyncMcpHttpRequestAuth(Protocol):
    """The async form of :class:`McpHttpRequestAuth`."""

    async def authorization_header(self) -> str | None:
        """See :meth:`McpHttpRequestAuth.authorization_header`."""
        ...

    async def should_retry(
        self, status_code: int, headers: Mapping[str, str], body: bytes | None = None
    ) -> bool:
        """See :meth:`McpHttpRequestAuth.should_retry`."""
        ...


class AsyncMcpHttpAuth(Protocol):
    """The hook of the async transport (``AsyncMcpOAuthSession`` is one)."""

    def request_auth(
        self, *, method: str, replay_allowed: bool | None = None
    ) -> AsyncMcpHttpRequestAuth:
        """See :meth:`McpHttpAuth.request_auth`."""
        ...

    def stored_authorization_header(self) -> str | None:
        """See :meth:`McpHttpAuth.stored_authorization_header`."""
        ...


def login_hint(server: ResolvedMcpServer) -> str:
    """The ``mcpstream auth login`` command for ``server``: it names a ``--server-id`` only
    where the server's id is the token store's key."""
    # A host's server id is the token store's key (the login must be stored under it), unless
    # it is only the URL's host:port, the name Client and the SDK route give a server without
    # OAuth: then the login's default key is the one to use.
    url = server.url or ""
    netloc = urlsplit(url).netloc.rpartition("@")[2]
    if server.oauth is None and server.id == netloc:
        return f"mcpstream auth login {redact_url(url)}"
    return login_command(server.id, url)


def _session_settings(server: ResolvedMcpServer) -> dict[str, Any]:
    """The keywords of an OAuth session for ``server``, beside its client, store and handler."""
    assert server.oauth is not None
    return {
        "server_id": server.id,
        "server_url": server.url or "",
        "settings": server.oauth,
        "timeout_s": min(server.call_timeout_s, OAUTH_TIMEOUT_CAP_S),
    }


def resolve_auth(
    server: ResolvedMcpServer,
    *,
    client: httpx.Client,
    store: McpOAuthTokenStore | None = None,
    redirect_handler: McpOAuthRedirectHandler | None = None,
) -> McpHttpAuth | None:
    """The sync hook for ``server``: an OAuth session when it has ``oauth`` settings (over the
    transport's ``client``; ``store`` defaults to the token store file, and without a
    ``redirect_handler`` only stored credentials and the client-credentials grant are used),
    else None (static headers only)."""
    if server.oauth is None:
        return None
    return McpOAuthSession(
        client=client, store=store, redirect_handler=redirect_handler, **_session_settings(server)
    )


def resolve_async_auth(
    server: ResolvedMcpServer,
    *,
    client: httpx.AsyncClient,
    store: McpOAuthTokenStore | None = None,
    redirect_handler: AsyncMcpOAuthRedirectHandler | McpOAuthRedirectHandler | None = None,
) -> AsyncMcpHttpAuth | None:
    """The async hook for ``server`` (see :func:`resolve_auth`); a blocking redirect handler
    runs in a worker thread, so the event loop is never blocked."""
    if server.oauth is None:
        return None
    return AsyncMcpOAuthSession(
        client=client, store=store, redirect_handler=redirect_handler, **_session_settings(server)
    )


def with_dpop_proof(auth: object, request: HttpRequest) -> HttpRequest:
    """``request`` with the DPoP proof of its ``Authorization: DPoP ...`` header added, when
    the hook ``auth`` makes proofs (``dpop_proof``, as the OAuth sessions do); else as it is."""
    prove = getattr(auth, "dpop_proof", None)
    if prove is None:
        return request
    authorization = next(
        (v for k, v in request.headers.items() if k.lower() == "authorization"), None
    )
    if authorization is None or not authorization.startswith("DPoP "):
        return request
    proof = prove(request.method, request.url, authorization)
    if proof is None:
        return request
    return replace(request, headers={**request.headers, DPOP_HEADER: proof})


def learn_dpop_nonce(auth: object, request: HttpRequest, headers: Mapping[str, str]) -> None:
    """Hand the head of the answer to ``request`` to the hook ``auth`` (``dpop_answer``) when
    ``request`` carried a DPoP proof, so that a ``DPoP-Nonce`` given on a success is used by
    the next proof; else nothing."""
    if DPOP_HEADER in request.headers:
        learn = getattr(auth, "dpop_answer", None)
        if learn is not None:
            learn(request.url, headers)
