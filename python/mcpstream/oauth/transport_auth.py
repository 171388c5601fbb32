"""An adapter from :class:`~mcpstream.oauth.session.McpOAuthSession` to the transport's
``McpHttpAuth`` hook (``request_headers`` / ``on_unauthorized``), so that
``transport_core.resolve_auth`` can return ``McpOAuthHttpAuth.for_server(server)`` for a server
with ``oauth`` settings.

The ``McpHttpAuth`` hook sees 401 answers only and decides the ``tools/call`` rule itself; the
fuller :meth:`McpOAuthSession.request_auth` hook also handles 403 ``insufficient_scope`` step-up
and tells a refreshed-but-not-replayed ``tools/call`` apart. The adapter keeps the request
object of the current thread's last ``request_headers`` call, so ``on_unauthorized`` knows which
token was sent.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

import httpx

from ..oauth_store import McpOAuthTokenStore
from ._flow import McpOAuthRedirectHandler
from .session import McpOAuthRequestAuth, McpOAuthSession

__all__ = ["McpOAuthHttpAuth"]

_CLOSE_METHOD = "session/delete"


class McpOAuthHttpAuth:
    """``McpHttpAuth`` over an OAuth session (sync; see the module docstring)."""

    def __init__(self, session: McpOAuthSession) -> None:
        self.session = session
        self._local = threading.local()

    @classmethod
    def for_server(
        cls,
        server: Any,
        *,
        client: httpx.Client | None = None,
        store: McpOAuthTokenStore | None = None,
        redirect_handler: McpOAuthRedirectHandler | None = None,
    ) -> McpOAuthHttpAuth:
        """The adapter for a ``ResolvedMcpServer`` (``id``, ``url``, ``oauth``,
        ``call_timeout_s``)."""
        session = McpOAuthSession(
            server_id=server.id,
            server_url=server.url or "",
            settings=server.oauth,
            client=client,
            store=store,
            redirect_handler=redirect_handler,
            timeout_s=min(float(server.call_timeout_s), 10.0),
        )
        return cls(session)

    def request_headers(self, *, method: str) -> Mapping[str, str]:
        """The ``Authorization`` header for a request carrying ``method`` (none when the
        session will authorize on the 401). The session DELETE at close uses the stored token
        as it is and never raises."""
        if method == _CLOSE_METHOD:
            header = self.session.stored_authorization_header()
            return {"Authorization": header} if header else {}
        auth = self.session.request_auth(method=method)
        self._local.current = (method, auth)
        header = auth.authorization_header()
        return {"Authorization": header} if header else {}

    def on_unauthorized(self, *, method: str, www_authenticate: str | None) -> bool:
        """Renew the credentials after a 401; ``True``: send the request again."""
        current: tuple[str, McpOAuthRequestAuth] | None = getattr(self._local, "current", None)
        auth = current[1] if current is not None and current[0] == method else None
        if auth is None:
            auth = self.session.request_auth(method=method)
            auth.authorization_header()
        headers = {"WWW-Authenticate": www_authenticate} if www_authenticate else {}
        return auth.should_retry(401, headers)
