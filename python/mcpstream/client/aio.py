"""``AsyncClient``: the asyncio MCP client over ``AsyncMcpHttpTransport``."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import httpx

from ..errors import McpHttpTransportSessionExpiredError
from ..oauth import AsyncMcpOAuthRedirectHandler, McpOAuthRedirectHandler
from ..oauth_store import McpOAuthTokenStore
from ..transport_http_async import AsyncMcpHttpTransport
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
from .handlers import AsyncServerRequestRouter, ElicitationHandler, SamplingHandler, ServerRequests
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

__all__ = ["AsyncClient"]

logger = logging.getLogger("mcpstream.client")
T = TypeVar("T")


class AsyncClient(ClientBase):
    """An asyncio client for one MCP server over Streamable HTTP.

    ::

        async with AsyncClient("http://127.0.0.1:8000/mcp") as client:
            result = await client.call_tool("add", {"a": 1, "b": 2})

    The same arguments, methods and behaviour as ``Client`` (see there), with the calls as
    coroutines; ``oauth_redirect_handler`` may be async (a blocking one runs in a worker
    thread). Callbacks and handlers may be plain functions or coroutine functions; they run in
    the client's event loop, awaited by the task that received the notification: the calling
    task for those on a call's answer (all delivered before the call returns), the transport's
    GET stream task for the others. Use one client from one event loop.
    """

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        token: str | None = None,
        oauth: OAuthOption = None,
        oauth_store: McpOAuthTokenStore | None = None,
        oauth_redirect_handler: AsyncMcpOAuthRedirectHandler
        | McpOAuthRedirectHandler
        | None = None,
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
        http_client: httpx.AsyncClient | None = None,
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
        self._transport = AsyncMcpHttpTransport(
            server=self._settings.server,
            workspace_root=Path.cwd(),
            client=http_client,
            server_request_handler=AsyncServerRequestRouter(self._requests),
            oauth_store=oauth_store,
            oauth_redirect_handler=oauth_redirect_handler,
            connect_timeout_s=self._settings.connect_timeout_s,
            on_notification=self._router.adeliver,
        )
        self._lock: asyncio.Lock | None = None
        self._server_info: ServerInfo | None = None
        self._generation = 0
        self._closed = False
        self.session_renewals = 0
        """How many times a new session was initialized after the server lost one."""

    def __repr__(self) -> str:
        return f"AsyncClient({self._transport!r})"

    # -- session ---------------------------------------------------------------------------

    def _session_lock(self) -> asyncio.Lock:
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    async def connect(self) -> ServerInfo:
        """Initialize the session (once); returns the server's info."""
        async with self._session_lock():
            if self._server_info is None:
                await self._handshake()
            assert self._server_info is not None
            return self._server_info

    async def _handshake(self) -> None:
        timeout_s = self._settings.request_timeout_s
        params = initialize_params(self._requests.capabilities(), self._settings.client_info)
        response = await self._transport.request(
            method="initialize", params=params, timeout_s=timeout_s
        )
        info = negotiate(unwrap(response, "initialize"))
        self._transport.set_negotiated_protocol_version(info.protocol_version)
        await self._transport.send_notification(
            method="notifications/initialized", params=None, completion_timeout_s=timeout_s
        )
        self._server_info = info
        self._generation += 1

    async def _renew_session(self, generation: int) -> None:
        async with self._session_lock():
            if self._generation != generation:
                return  # another task renewed it already
            logger.info(
                "MCP server %r lost the session; initializing a new one", self._settings.server.id
            )
            self._transport.reset_session_state()
            self._server_info = None
            await self._handshake()
            self.session_renewals += 1

    async def _send(self, method: str, params: Any, timeout_s: float) -> Any:
        generation = self._generation
        if self._server_info is None:
            await self.connect()
            generation = self._generation
        try:
            response = await self._transport.request(
                method=method, params=params, timeout_s=timeout_s
            )
        except McpHttpTransportSessionExpiredError as exc:
            if not retry_after_expiry(exc):
                raise
            await self._renew_session(generation)
            response = await self._transport.request(
                method=method, params=params, timeout_s=timeout_s
            )
        return unwrap(response, method)

    async def request(
        self, method: str, params: Any = None, *, timeout_s: float | None = None
    ) -> Any:
        """Send any request and return its raw result."""
        return await self._send(method, params, timeout_s or self._settings.request_timeout_s)

    # -- the MCP methods -------------------------------------------------------------------

    async def ping(self, *, timeout_s: float | None = None) -> float:
        """Ping the server; returns the round trip in seconds."""
        started = time.perf_counter()
        await self.request("ping", timeout_s=timeout_s)
        return time.perf_counter() - started

    async def _list(
        self, method: str, key: str, parse: Callable[[Any], T], timeout_s: float | None
    ) -> list[T]:
        pager = Pager(method, key)
        items: list[T] = []
        while not pager.done:
            result = await self.request(method, pager.params(), timeout_s=timeout_s)
            items.extend(parse(item) for item in pager.take(result))
        return items

    async def list_tools(self, *, timeout_s: float | None = None) -> list[Tool]:
        """Every tool of the server (all pages)."""
        return await self._list("tools/list", "tools", Tool.from_dict, timeout_s)

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        progress: ProgressCallback | None = None,
        timeout_s: float | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> ToolResult:
        """Call the tool ``name`` (see ``Client.call_tool``)."""
        token = self._router.register(progress) if progress is not None else None
        try:
            params = tool_call_params(name, arguments, progress_token=token, meta=meta)
            result = await self._send(
                "tools/call", params, timeout_s or self._settings.tool_timeout_s
            )
        finally:
            if token is not None:
                self._router.release(token)
        return ToolResult.from_dict(result)

    async def list_resources(self, *, timeout_s: float | None = None) -> list[Resource]:
        """Every resource of the server (all pages)."""
        return await self._list("resources/list", "resources", Resource.from_dict, timeout_s)

    async def list_resource_templates(
        self, *, timeout_s: float | None = None
    ) -> list[ResourceTemplate]:
        """Every resource template of the server (all pages)."""
        return await self._list(
            "resources/templates/list", "resourceTemplates", ResourceTemplate.from_dict, timeout_s
        )

    async def read_resource(
        self, uri: str, *, timeout_s: float | None = None
    ) -> list[ResourceContents]:
        """The contents of the resource ``uri``."""
        result = await self.request("resources/read", {"uri": uri}, timeout_s=timeout_s)
        return list(parse_read_resource(result))

    async def list_prompts(self, *, timeout_s: float | None = None) -> list[Prompt]:
        """Every prompt of the server (all pages)."""
        return await self._list("prompts/list", "prompts", Prompt.from_dict, timeout_s)

    async def get_prompt(
        self,
        name: str,
        arguments: Mapping[str, str] | None = None,
        *,
        timeout_s: float | None = None,
    ) -> PromptResult:
        """The prompt ``name`` rendered with ``arguments``."""
        params = prompt_get_params(name, arguments)
        result = await self.request("prompts/get", params, timeout_s=timeout_s)
        return PromptResult.from_dict(result)

    # -- closing ---------------------------------------------------------------------------

    async def close(self) -> None:
        """End the session (DELETE) and its GET stream task, close the connections.
        Idempotent."""
        if self._closed:
            return
        self._closed = True
        await self._transport.close()

    async def __aenter__(self) -> AsyncClient:
        try:
            await self.connect()
        except BaseException:
            await self.close()
            raise
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()
