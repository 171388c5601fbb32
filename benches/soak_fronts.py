"""The front ends of the soak behind one async interface: ``open``, ``call`` (a tool call that
raises on any failure, ``isError`` included) and ``close``. A sync front end runs in the
worker's one call thread, as a sync host calls it from a thread of its own.

``client``/``async-client`` (``mcpstream.Client``/``AsyncClient``), ``transport``/
``async-transport`` (the drop-in ``McpHttpTransport``/``AsyncMcpHttpTransport`` with raw
JSON-RPC), ``sdk-over-mcpstream`` (``mcp.Client`` over ``mcpstream.sdk``) and ``reference``
(``mcp.Client`` over the SDK's own ``streamable_http_client``). The pure-Python codec is the
same front ends with ``MCPSTREAM_BACKEND=python`` (set by ``soak.py``).
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

LEGACY = "2025-11-25"
MODERN = "2026-07-28"
FRONT_ENDS = (
    "client",
    "async-client",
    "transport",
    "async-transport",
    "sdk-over-mcpstream",
    "reference",
)
SYNC_FRONT_ENDS = ("client", "transport")


class ToolFailed(Exception):
    """A tool call answered ``isError`` or a JSON-RPC error."""


class SessionEnded(Exception):
    """``mcp.Client``'s session ended (``CONNECTION_CLOSED``: its transport ended on a
    connection error, over the SDK's transport as over mcpstream's): as documented, the host
    opens another, as a framework does."""


class Front:
    """One client of a front end; ``version``: the protocol version it negotiated."""

    version: str = ""

    async def open(self) -> None:
        """Connect (the handshake, or discovery at 2026-07-28)."""
        raise NotImplementedError

    async def call(self, name: str, arguments: dict[str, Any], timeout_s: float) -> None:
        """Call a tool; raises on any failure."""
        raise NotImplementedError

    async def close(self) -> None:
        """Close the client."""
        raise NotImplementedError


class _Sync:
    """Runs a sync front end's calls in one thread, made once (the executor is the worker's,
    so that its thread is part of every baseline)."""

    def __init__(self, executor: ThreadPoolExecutor) -> None:
        self._executor = executor

    async def run(self, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, lambda: function(*args, **kwargs))


class ClientFront(Front):
    """``mcpstream.Client`` (``executor`` given) or ``AsyncClient``."""

    def __init__(
        self, url: str, era: str, headers: dict[str, str], executor: ThreadPoolExecutor | None
    ) -> None:
        from mcpstream import AsyncClient, Client

        options: dict[str, Any] = {
            "headers": headers,
            "protocol": "legacy" if era == LEGACY else None,
        }
        self._sync = _Sync(executor) if executor is not None else None
        self.client: Any = Client(url, **options) if executor else AsyncClient(url, **options)

    async def _do(self, method: str, *args: Any, **kwargs: Any) -> Any:
        bound = getattr(self.client, method)
        if self._sync is not None:
            return await self._sync.run(bound, *args, **kwargs)
        return await bound(*args, **kwargs)

    async def open(self) -> None:
        await self._do("connect")
        self.version = str(self.client.protocol_version)

    async def call(self, name: str, arguments: dict[str, Any], timeout_s: float) -> None:
        result = await self._do("call_tool", name, arguments, timeout_s=timeout_s)
        if result.is_error:
            raise ToolFailed(result.text[:200])

    async def close(self) -> None:
        await self._do("close")


class TransportFront(Front):
    """``McpHttpTransport`` (``executor`` given) or ``AsyncMcpHttpTransport``, with raw
    JSON-RPC as a host of the reference transport sends it. As such a host, it renews an
    expired session itself: ``reset_session_state`` when a call fails with
    ``McpHttpTransportSessionExpiredError``, then a new handshake before the next call."""

    def __init__(
        self, url: str, era: str, headers: dict[str, str], executor: ThreadPoolExecutor | None
    ) -> None:
        from mcpstream.models import ResolvedMcpServer
        from mcpstream.transport_http import AsyncMcpHttpTransport, McpHttpTransport

        self._era = era
        self._negotiated = False
        self._sync = _Sync(executor) if executor is not None else None
        server = ResolvedMcpServer(
            id="soak", transport="http", url=url, headers=headers, call_timeout_s=30.0, oauth=None
        )
        kind = McpHttpTransport if executor is not None else AsyncMcpHttpTransport
        self.transport: Any = kind(server=server, workspace_root=Path(tempfile.gettempdir()))

    async def _do(self, attribute: str, **kwargs: Any) -> Any:
        bound = getattr(self.transport, attribute)
        if self._sync is not None:
            return await self._sync.run(bound, **kwargs)
        return await bound(**kwargs)

    async def open(self) -> None:
        from mcpstream.transport_http import Negotiation

        negotiation = Negotiation(
            capabilities={},
            client_info={"name": "mcpstream-soak", "version": "1"},
            era="legacy" if self._era == LEGACY else None,
        )
        negotiated = await self._do("negotiate", negotiation=negotiation)
        self.version = str(negotiated.version)
        self._negotiated = True

    async def call(self, name: str, arguments: dict[str, Any], timeout_s: float) -> None:
        from mcpstream.errors import McpHttpTransportSessionExpiredError

        params = {"name": name, "arguments": arguments}
        try:
            if not self._negotiated:
                await self.open()
            response = await self._do(
                "request", method="tools/call", params=params, timeout_s=timeout_s
            )
        except McpHttpTransportSessionExpiredError:
            self.transport.reset_session_state()
            self._negotiated = False
            raise
        if response.error is not None:
            raise ToolFailed(str(response.error.get("message"))[:200])
        if response.result.get("isError"):
            raise ToolFailed("isError")

    async def close(self) -> None:
        await self._do("close")


class SdkFront(Front):
    """``mcp.Client`` over mcpstream's transport, or over the SDK's own (``own``). The client
    lives in a task of its own, entered and left there: anyio's cancel scopes must be left by
    the task that entered them, and the worker bounds ``open`` and ``close`` in tasks of theirs."""

    def __init__(self, url: str, era: str, headers: dict[str, str], own: bool) -> None:
        self._url = url
        self._era = era
        self._headers = headers
        self._own = own
        self._life: asyncio.Task[None] | None = None
        self._opened = asyncio.Event()
        self._closing = asyncio.Event()

    async def _live(self) -> None:
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client as sdk_transport
        from mcp.shared._httpx_utils import create_mcp_http_client
        from mcpstream.sdk import streamable_http_client as mcpstream_transport

        async with AsyncExitStack() as stack:
            if self._own:
                http = await stack.enter_async_context(
                    create_mcp_http_client(headers=self._headers)
                )
                transport = sdk_transport(self._url, http_client=http)
            else:
                transport = mcpstream_transport(self._url, headers=self._headers)
            mode = "legacy" if self._era == LEGACY else "auto"
            self.client = await stack.enter_async_context(Client(transport, mode=mode))
            self.version = str(self.client.protocol_version)
            self._opened.set()
            await self._closing.wait()

    async def open(self) -> None:
        self._life = asyncio.create_task(self._live())
        opened = asyncio.create_task(self._opened.wait())
        try:
            await asyncio.wait({self._life, opened}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            opened.cancel()
            if not self._opened.is_set():
                self._life.cancel()
        if not self._opened.is_set():
            await self._life  # its error

    async def call(self, name: str, arguments: dict[str, Any], timeout_s: float) -> None:
        from mcp.shared.exceptions import MCPError
        from mcp_types.jsonrpc import CONNECTION_CLOSED

        try:
            result = await self.client.call_tool(name, arguments, read_timeout_seconds=timeout_s)
        except MCPError as exc:
            if exc.code == CONNECTION_CLOSED:
                raise SessionEnded(exc.message) from exc
            raise
        if result.is_error:
            raise ToolFailed("isError")

    async def close(self) -> None:
        self._closing.set()
        if self._life is None:
            return
        await asyncio.wait({self._life})
        if not self._life.cancelled() and self._life.exception() is not None:
            raise self._life.exception()  # type: ignore[misc]


def make_front(
    kind: str, url: str, era: str, headers: dict[str, str], executor: ThreadPoolExecutor
) -> Front:
    """A new, unopened client of the front end ``kind`` (one of ``FRONT_ENDS``)."""
    sync = executor if kind in SYNC_FRONT_ENDS else None
    if kind in ("client", "async-client"):
        return ClientFront(url, era, headers, sync)
    if kind in ("transport", "async-transport"):
        return TransportFront(url, era, headers, sync)
    if kind in ("sdk-over-mcpstream", "reference"):
        return SdkFront(url, era, headers, own=kind == "reference")
    raise ValueError(f"unknown front end {kind!r}")
