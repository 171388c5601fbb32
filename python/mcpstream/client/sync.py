"""``Client``: a blocking MCP client over ``McpHttpTransport``."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import httpx

from ..errors import McpHttpTransportSessionExpiredError
from ..oauth import McpOAuthRedirectHandler
from ..oauth_store import McpOAuthTokenStore
from ..transport_http import McpHttpTransport
from ._core import (
    DEFAULT_CONNECT_TIMEOUT_S,
    DEFAULT_REQUEST_TIMEOUT_S,
    DEFAULT_TOOL_TIMEOUT_S,
    ClientBase,
    ClientSettings,
    OAuthOption,
    Pager,
    initialize_params,
    negotiate,
    prompt_get_params,
    retry_after_expiry,
    tool_call_params,
    unwrap,
)
from ._notify import NotificationCallback, NotificationRouter, ProgressCallback
from .content import ResourceContents
from .handlers import ElicitationHandler, SamplingHandler, ServerRequestRouter, ServerRequests
from .results import (
    Prompt,
    PromptResult,
    Resource,
    ResourceTemplate,
    ServerInfo,
    Tool,
    ToolResult,
    parse_read_resource,
)

__all__ = ["Client"]

logger = logging.getLogger("mcpstream.client")
T = TypeVar("T")


class Client(ClientBase):
    """A blocking client for one MCP server over Streamable HTTP.

    ::

        with Client("http://127.0.0.1:8000/mcp") as client:
            tools = client.list_tools()
            result = client.call_tool("add", {"a": 1, "b": 2}, progress=print)
            print(result.text)

    ``connect`` (run by ``with``, or by the first call) does the initialize handshake: it offers
    protocol version 2025-11-25 and accepts 2025-06-18 and 2025-03-26 too.

    Authentication: static ``headers``, a bearer ``token``, or OAuth, done by the transport:
    ``oauth=True`` for the login stored by ``mcpstream auth login URL`` (or an
    ``McpOAuthConfig`` for a pre-registered client, scopes, a machine client). ``oauth_store``
    replaces the token store file, and ``oauth_redirect_handler`` (a ``LoopbackRedirectHandler``,
    say) lets the client log in by itself when it has no usable credentials; both are ignored
    without ``oauth``. With OAuth, ``server_id`` (the store key) defaults to the URL, as for
    ``mcpstream auth login URL``.

    Timeouts: ``connect_timeout_s`` bounds establishing each connection (TCP and TLS), so an
    unreachable server fails fast; ``request_timeout_s`` is the budget of the handshake,
    listings, reads and pings, ``tool_timeout_s`` that of tool calls; each call may pass its own.

    ``on_notification`` gets every notification the server sends (progress of a call with a
    ``progress`` callback goes to that callback instead), pushed by the transport as soon as it
    arrives: on the calling thread for those on a call's answer (all delivered before the call
    returns), on the transport's GET stream thread for the others. Callbacks on different
    threads may run at the same time, and must not block for long. ``elicitation_handler``
    answers the server's questions to the user (default: decline), ``sampling_handler`` its
    requests for a completion (default: refused), and ``roots`` are the roots offered to it.

    When the server lost the session (it restarted: HTTP 404 to a request with the session id),
    the client initializes a new session once on its own and sends the call again, unless the
    404 came after the server had taken the call (to the GET resuming the call's event stream):
    then the call may have run, and the session-expired error is raised (``request_delivered``);
    the next call starts a new session. JSON-RPC errors are raised as ``McpError``; everything
    else as the transport's errors (``mcpstream.errors``). Safe to share between threads.
    """

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        token: str | None = None,
        oauth: OAuthOption = None,
        oauth_store: McpOAuthTokenStore | None = None,
        oauth_redirect_handler: McpOAuthRedirectHandler | None = None,
        connect_timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S,
        request_timeout_s: float = DEFAULT_REQUEST_TIMEOUT_S,
        tool_timeout_s: float = DEFAULT_TOOL_TIMEOUT_S,
        on_notification: NotificationCallback | None = None,
        elicitation_handler: ElicitationHandler | None = None,
        sampling_handler: SamplingHandler | None = None,
        roots: Sequence[str | Path] | None = None,
        client_name: str = "mcpstream",
        client_version: str | None = None,
        server_id: str | None = None,
        http_client: httpx.Client | None = None,
    ) -> None:
        self._settings = ClientSettings.create(
            url,
            headers=headers,
            token=token,
            oauth=oauth,
            server_id=server_id,
            connect_timeout_s=connect_timeout_s,
            request_timeout_s=request_timeout_s,
            tool_timeout_s=tool_timeout_s,
            client_name=client_name,
            client_version=client_version,
        )
        self._requests = ServerRequests(
            elicitation_handler=elicitation_handler, sampling_handler=sampling_handler, roots=roots
        )
        self._router = NotificationRouter(on_notification)
        self._transport = McpHttpTransport(
            server=self._settings.server,
            workspace_root=Path.cwd(),
            client=http_client,
            server_request_handler=ServerRequestRouter(self._requests),
            oauth_store=oauth_store,
            oauth_redirect_handler=oauth_redirect_handler,
            connect_timeout_s=self._settings.connect_timeout_s,
            on_notification=self._router.deliver,
        )
        self._lock = threading.RLock()
        self._server_info: ServerInfo | None = None
        self._generation = 0
        self._closed = False
        self.session_renewals = 0
        """How many times a new session was initialized after the server lost one."""

    def __repr__(self) -> str:
        return f"Client({self._transport!r})"

    # -- session ---------------------------------------------------------------------------

    def connect(self) -> ServerInfo:
        """Initialize the session (once); returns the server's info."""
        with self._lock:
            if self._server_info is None:
                self._handshake()
            assert self._server_info is not None
            return self._server_info

    def _handshake(self) -> None:
        timeout_s = self._settings.request_timeout_s
        params = initialize_params(self._requests.capabilities(), self._settings.client_info)
        response = self._transport.request(method="initialize", params=params, timeout_s=timeout_s)
        info = negotiate(unwrap(response, "initialize"))
        self._transport.set_negotiated_protocol_version(info.protocol_version)
        self._transport.send_notification(
            method="notifications/initialized", params=None, completion_timeout_s=timeout_s
        )
        self._server_info = info
        self._generation += 1

    def _renew_session(self, generation: int) -> None:
        with self._lock:
            if self._generation != generation:
                return  # another thread renewed it already
            logger.info(
                "MCP server %r lost the session; initializing a new one", self._settings.server.id
            )
            self._transport.reset_session_state()
            self._server_info = None
            self._handshake()
            self.session_renewals += 1

    def _send(self, method: str, params: Any, timeout_s: float) -> Any:
        with self._lock:
            if self._server_info is None:
                self._handshake()
            generation = self._generation
        try:
            response = self._transport.request(method=method, params=params, timeout_s=timeout_s)
        except McpHttpTransportSessionExpiredError as exc:
            if not retry_after_expiry(exc):
                raise
            self._renew_session(generation)
            response = self._transport.request(method=method, params=params, timeout_s=timeout_s)
        return unwrap(response, method)

    def request(self, method: str, params: Any = None, *, timeout_s: float | None = None) -> Any:
        """Send any request and return its raw result (the escape hatch for methods this class
        has no wrapper for)."""
        return self._send(method, params, timeout_s or self._settings.request_timeout_s)

    # -- the MCP methods -------------------------------------------------------------------

    def ping(self, *, timeout_s: float | None = None) -> float:
        """Ping the server; returns the round trip in seconds."""
        started = time.perf_counter()
        self.request("ping", timeout_s=timeout_s)
        return time.perf_counter() - started

    def _list(
        self, method: str, key: str, parse: Callable[[Any], T], timeout_s: float | None
    ) -> list[T]:
        pager = Pager(method, key)
        items: list[T] = []
        while not pager.done:
            result = self.request(method, pager.params(), timeout_s=timeout_s)
            items.extend(parse(item) for item in pager.take(result))
        return items

    def list_tools(self, *, timeout_s: float | None = None) -> list[Tool]:
        """Every tool of the server (all pages)."""
        return self._list("tools/list", "tools", Tool.from_dict, timeout_s)

    def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        progress: ProgressCallback | None = None,
        timeout_s: float | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> ToolResult:
        """Call the tool ``name``. ``progress`` gets the call's progress notifications while it
        runs (a progress token is sent in ``_meta``); all of them are delivered before this
        returns. A tool's own failure is ``ToolResult.is_error``, not an exception."""
        token = self._router.register(progress) if progress is not None else None
        try:
            params = tool_call_params(name, arguments, progress_token=token, meta=meta)
            result = self._send("tools/call", params, timeout_s or self._settings.tool_timeout_s)
        finally:
            if token is not None:
                self._router.release(token)
        return ToolResult.from_dict(result)

    def list_resources(self, *, timeout_s: float | None = None) -> list[Resource]:
        """Every resource of the server (all pages)."""
        return self._list("resources/list", "resources", Resource.from_dict, timeout_s)

    def list_resource_templates(self, *, timeout_s: float | None = None) -> list[ResourceTemplate]:
        """Every resource template of the server (all pages)."""
        return self._list(
            "resources/templates/list", "resourceTemplates", ResourceTemplate.from_dict, timeout_s
        )

    def read_resource(self, uri: str, *, timeout_s: float | None = None) -> list[ResourceContents]:
        """The contents of the resource ``uri``."""
        return list(
            parse_read_resource(self.request("resources/read", {"uri": uri}, timeout_s=timeout_s))
        )

    def list_prompts(self, *, timeout_s: float | None = None) -> list[Prompt]:
        """Every prompt of the server (all pages)."""
        return self._list("prompts/list", "prompts", Prompt.from_dict, timeout_s)

    def get_prompt(
        self,
        name: str,
        arguments: Mapping[str, str] | None = None,
        *,
        timeout_s: float | None = None,
    ) -> PromptResult:
        """The prompt ``name`` rendered with ``arguments``."""
        params = prompt_get_params(name, arguments)
        return PromptResult.from_dict(self.request("prompts/get", params, timeout_s=timeout_s))

    # -- closing ---------------------------------------------------------------------------

    def close(self) -> None:
        """End the session (DELETE) and its GET stream, close the connections. Idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._transport.close()

    def __enter__(self) -> Client:
        try:
            self.connect()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
