"""The client front ends under test, and the official Python client (``mcp.Client`` over the
SDK's own transport) as the reference, each behind one async interface (``FrontEnd``) so that
one scenario runs on all of them: ``mcpstream.Client`` and ``AsyncClient``, the drop-in
transports (``McpHttpTransport``, ``AsyncMcpHttpTransport``, driven with raw JSON-RPC as a host
of the reference transport does), and ``mcp.Client`` over ``mcpstream.sdk``.

Every front end answers the server's requests the same way: sampling with ``SAMPLED``,
elicitation by accepting ``{"name": "Ada"}``, roots with ``ROOT``. A sync front end runs in a
worker thread (``asyncio.to_thread``), as a sync host would call it."""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp import Client as SdkClient
from mcp.client.streamable_http import streamable_http_client as sdk_transport
from mcpstream import (
    AsyncClient,
    Client,
    ElicitationRequest,
    ElicitationResponse,
    LogMessage,
    Progress,
    ResourceUpdated,
    SamplingRequest,
    SamplingResponse,
)
from mcpstream.models import ResolvedMcpServer
from mcpstream.sdk import streamable_http_client as mcpstream_sdk_transport
from mcpstream.transport_http import AsyncMcpHttpTransport, McpHttpTransport, Negotiation

SAMPLED = "pong"
ROOT_PATH = Path("/tmp/mcpstream-peers-root")
ROOT = ROOT_PATH.as_uri()
NAME = "Ada"
MODERN = "2026-07-28"
LOG_LEVEL_META = "io.modelcontextprotocol/logLevel"
SDK_MAX_EVENT = 64 * 1024 * 1024

FRONT_ENDS = ("client", "async-client", "transport", "async-transport", "sdk-over-mcpstream")
"""The front ends under test; ``reference`` is the official client on its own transport."""


@dataclass
class ToolOutcome:
    """A tool call's text (its text blocks joined) and ``isError``."""

    text: str
    is_error: bool


@dataclass
class Events:
    """What the server pushed outside call results: resource updates (URIs) and log messages
    (their ``data``), appended from any thread."""

    updates: list[str] = field(default_factory=list)
    logs: list[Any] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add_update(self, uri: str) -> None:
        with self.lock:
            self.updates.append(uri)

    def add_log(self, data: Any) -> None:
        with self.lock:
            self.logs.append(data)

    async def wait_for(self, check: Callable[[Events], bool], bound_s: float) -> bool:
        """Wait until ``check`` holds (``bound_s`` at most); whether it does."""
        deadline = asyncio.get_running_loop().time() + bound_s
        while True:
            with self.lock:
                if check(self):
                    return True
            if asyncio.get_running_loop().time() > deadline:
                return False
            await asyncio.sleep(0.05)


class FrontEnd:
    """One connected client of a front end (see the module docstring); ``era`` is ``legacy``
    (the handshake pinned) or ``auto`` (what the client negotiates)."""

    protocol_version: str
    events: Events

    async def list_tools(self) -> list[str]:
        """The names of every tool (all pages)."""
        raise NotImplementedError

    async def call(
        self,
        name: str,
        arguments: dict[str, Any],
        *,
        progress: list[float] | None = None,
        timeout_s: float = 60.0,
    ) -> ToolOutcome:
        """Call a tool; its progress values are appended to ``progress`` when given."""
        raise NotImplementedError

    async def list_resources(self) -> list[str]:
        """The URIs of every resource (all pages)."""
        raise NotImplementedError

    async def read(self, uri: str) -> str:
        """The text of the first contents of ``uri``."""
        raise NotImplementedError

    async def subscribe(self, uri: str) -> None:
        """Subscribe to the updates of ``uri``."""
        raise NotImplementedError

    async def prompt(self, name: str, arguments: dict[str, str]) -> str:
        """The text of the first message of the prompt."""
        raise NotImplementedError

    async def complete(self, prompt: str, argument: str, value: str) -> list[str]:
        """The completion values for a prompt's argument."""
        raise NotImplementedError

    async def set_level(self, level: str) -> None:
        """Ask for log messages at ``level`` and above."""
        raise NotImplementedError


# -- mcpstream.Client and AsyncClient ---------------------------------------------------------


def _sample(request: SamplingRequest) -> SamplingResponse:
    return SamplingResponse(text=SAMPLED, model="peer-test")


def _elicit(request: ElicitationRequest) -> ElicitationResponse:
    return ElicitationResponse(action="accept", content={"name": NAME})


class _ClientFrontEnd(FrontEnd):
    """``mcpstream.Client`` (``sync``) or ``AsyncClient`` over the same calls."""

    def __init__(self, url: str, era: str, sync: bool) -> None:
        self.events = Events()
        self._sync = sync
        options: dict[str, Any] = {
            "protocol": "legacy" if era == "legacy" else None,
            "sampling_handler": _sample,
            "elicitation_handler": _elicit,
            "roots": [ROOT_PATH],
            "logging_handler": self._log,
            "on_resource_updated": self._updated,
        }
        self.client: Any = Client(url, **options) if sync else AsyncClient(url, **options)

    def _log(self, message: LogMessage) -> None:
        self.events.add_log(message.data)

    def _updated(self, update: ResourceUpdated) -> None:
        self.events.add_update(update.uri)

    async def _do(self, method: str, *args: Any, **kwargs: Any) -> Any:
        bound = getattr(self.client, method)
        if self._sync:
            return await asyncio.to_thread(bound, *args, **kwargs)
        return await bound(*args, **kwargs)

    async def open(self) -> None:
        await self._do("connect")
        self.protocol_version = self.client.protocol_version

    async def close(self) -> None:
        await self._do("close")

    async def list_tools(self) -> list[str]:
        return [tool.name for tool in await self._do("list_tools")]

    async def call(
        self,
        name: str,
        arguments: dict[str, Any],
        *,
        progress: list[float] | None = None,
        timeout_s: float = 60.0,
    ) -> ToolOutcome:
        def on_progress(update: Progress) -> None:
            assert progress is not None
            progress.append(update.progress)

        result = await self._do(
            "call_tool",
            name,
            arguments,
            progress=on_progress if progress is not None else None,
            timeout_s=timeout_s,
        )
        return ToolOutcome(result.text, result.is_error)

    async def list_resources(self) -> list[str]:
        return [resource.uri for resource in await self._do("list_resources")]

    async def read(self, uri: str) -> str:
        contents = await self._do("read_resource", uri)
        return str(contents[0].text)

    async def subscribe(self, uri: str) -> None:
        await self._do("subscribe_resource", uri)

    async def prompt(self, name: str, arguments: dict[str, str]) -> str:
        result = await self._do("get_prompt", name, arguments)
        return str(result.messages[0].content.text)

    async def complete(self, prompt: str, argument: str, value: str) -> list[str]:
        ref = {"type": "ref/prompt", "name": prompt}
        completion = await self._do("complete", ref, {"name": argument, "value": value})
        return list(completion.values)

    async def set_level(self, level: str) -> None:
        await self._do("set_logging_level", level)


# -- the drop-in transports, driven with raw JSON-RPC -------------------------------------------


class _Answers:
    """The server-request handler of the transports (sync; the async transport accepts it)."""

    def handle_request(self, *, context: Any, method: str, request_id: Any, params: Any) -> Any:
        if method == "sampling/createMessage":
            return _sample(SamplingRequest.from_params(params)).to_result()
        if method == "elicitation/create":
            return {"action": "accept", "content": {"name": NAME}}
        if method == "roots/list":
            return {"roots": [{"uri": ROOT, "name": "root"}]}
        raise AssertionError(f"unexpected server request {method}")


class JsonRpcError(Exception):
    """A JSON-RPC error answered to a request of the transports' front end."""


CAPABILITIES = {"sampling": {}, "elicitation": {"form": {}}, "roots": {"listChanged": True}}
_tokens = itertools.count(1)


class _TransportFrontEnd(FrontEnd):
    """``McpHttpTransport`` (``sync``) or ``AsyncMcpHttpTransport``: JSON-RPC requests with
    their pages, progress tokens and ``_meta`` made here, as a host of the reference transport
    makes them."""

    def __init__(self, url: str, era: str, sync: bool, workdir: Path) -> None:
        self.events = Events()
        self._era = era
        self._sync = sync
        self._level: str | None = None
        self._progress: dict[str, list[float]] = {}
        server = ResolvedMcpServer(
            id="peer",
            transport="http",
            url=url,
            headers={},
            call_timeout_s=60.0,
            oauth=None,
        )
        kind = McpHttpTransport if sync else AsyncMcpHttpTransport
        self.transport: Any = kind(
            server=server,
            workspace_root=workdir,
            server_request_handler=_Answers(),
            on_notification=self._notified,
        )

    def _notified(self, notification: Any) -> None:
        params = notification.params if isinstance(notification.params, dict) else {}
        if notification.method == "notifications/progress":
            sink = self._progress.get(str(params.get("progressToken")))
            if sink is not None:
                sink.append(params["progress"])
        elif notification.method == "notifications/resources/updated":
            self.events.add_update(params["uri"])
        elif notification.method == "notifications/message":
            self.events.add_log(params.get("data"))

    async def _do(self, attribute: str, **kwargs: Any) -> Any:
        bound = getattr(self.transport, attribute)
        if self._sync:
            return await asyncio.to_thread(bound, **kwargs)
        return await bound(**kwargs)

    async def request(self, method: str, params: dict[str, Any], timeout_s: float = 60.0) -> Any:
        """The result of one request (``_meta.logLevel`` added at 2026-07-28 once asked)."""
        if self._level is not None and self.protocol_version == MODERN:
            params = {**params, "_meta": {**params.get("_meta", {}), LOG_LEVEL_META: self._level}}
        response = await self._do("request", method=method, params=params, timeout_s=timeout_s)
        if response.error is not None:
            raise JsonRpcError(f"{method}: {response.error.get('message')}")
        return response.result

    async def open(self) -> None:
        negotiation = Negotiation(
            capabilities=CAPABILITIES,
            client_info={"name": "peer-test", "version": "1"},
            era="legacy" if self._era == "legacy" else None,
        )
        negotiated = await self._do("negotiate", negotiation=negotiation)
        self.protocol_version = negotiated.version

    async def close(self) -> None:
        await self._do("close")

    async def _pages(self, method: str, key: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        cursor: str | None = None
        while True:
            result = await self.request(method, {"cursor": cursor} if cursor else {})
            items.extend(result[key])
            cursor = result.get("nextCursor")
            if not cursor:
                return items

    async def list_tools(self) -> list[str]:
        return [tool["name"] for tool in await self._pages("tools/list", "tools")]

    async def call(
        self,
        name: str,
        arguments: dict[str, Any],
        *,
        progress: list[float] | None = None,
        timeout_s: float = 60.0,
    ) -> ToolOutcome:
        params: dict[str, Any] = {"name": name, "arguments": arguments}
        token = f"peer-{next(_tokens)}"
        if progress is not None:
            self._progress[token] = progress
            params["_meta"] = {"progressToken": token}
        try:
            result = await self.request("tools/call", params, timeout_s)
        finally:
            self._progress.pop(token, None)
        text = "".join(block.get("text", "") for block in result.get("content", []))
        return ToolOutcome(text, bool(result.get("isError")))

    async def list_resources(self) -> list[str]:
        return [item["uri"] for item in await self._pages("resources/list", "resources")]

    async def read(self, uri: str) -> str:
        result = await self.request("resources/read", {"uri": uri})
        return str(result["contents"][0]["text"])

    async def subscribe(self, uri: str) -> None:
        if self.protocol_version != MODERN:
            await self.request("resources/subscribe", {"uri": uri})
            return
        acknowledged = await self._do("listen_for_resources", resources=[uri], timeout_s=10.0)
        if acknowledged is None:
            raise RuntimeError("subscriptions/listen was not acknowledged")

    async def prompt(self, name: str, arguments: dict[str, str]) -> str:
        result = await self.request("prompts/get", {"name": name, "arguments": arguments})
        return str(result["messages"][0]["content"]["text"])

    async def complete(self, prompt: str, argument: str, value: str) -> list[str]:
        params = {
            "ref": {"type": "ref/prompt", "name": prompt},
            "argument": {"name": argument, "value": value},
        }
        result = await self.request("completion/complete", params)
        return list(result["completion"]["values"])

    async def set_level(self, level: str) -> None:
        if self.protocol_version == MODERN:
            self._level = level  # 2026-07-28 removed logging/setLevel: the level goes in _meta
        else:
            await self.request("logging/setLevel", {"level": level})


# -- mcp.Client, over mcpstream.sdk or over the SDK's own transport ---------------------------


class _SdkFrontEnd(FrontEnd):
    """``mcp.Client`` over ``transport`` (mcpstream's or the SDK's own)."""

    def __init__(self, transport: Any, era: str) -> None:
        self.events = Events()
        self._progress_sink: list[float] | None = None
        self.client = SdkClient(
            transport,
            mode="legacy" if era == "legacy" else "auto",
            sampling_callback=self._sample,
            elicitation_callback=self._elicit,
            list_roots_callback=self._roots,
            logging_callback=self._log,
            message_handler=self._message,
        )

    async def _sample(self, context: Any, params: Any) -> types.CreateMessageResult:
        content = types.TextContent(type="text", text=SAMPLED)
        return types.CreateMessageResult(role="assistant", content=content, model="peer-test")

    async def _elicit(self, context: Any, params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"name": NAME})

    async def _roots(self, context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=ROOT, name="root")])

    async def _log(self, params: types.LoggingMessageNotificationParams) -> None:
        self.events.add_log(params.data)

    async def _message(self, message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            self.events.add_update(str(message.params.uri))

    async def list_tools(self) -> list[str]:
        names: list[str] = []
        cursor: str | None = None
        while True:
            page = await self.client.list_tools(cursor=cursor)
            names.extend(tool.name for tool in page.tools)
            cursor = page.next_cursor
            if not cursor:
                return names

    async def call(
        self,
        name: str,
        arguments: dict[str, Any],
        *,
        progress: list[float] | None = None,
        timeout_s: float = 60.0,
    ) -> ToolOutcome:
        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            assert progress is not None
            progress.append(value)

        result = await self.client.call_tool(
            name,
            arguments,
            read_timeout_seconds=timeout_s,
            progress_callback=on_progress if progress is not None else None,
        )
        text = "".join(getattr(block, "text", "") for block in result.content)
        return ToolOutcome(text, bool(result.is_error))

    async def list_resources(self) -> list[str]:
        uris: list[str] = []
        cursor: str | None = None
        while True:
            page = await self.client.list_resources(cursor=cursor)
            uris.extend(str(resource.uri) for resource in page.resources)
            cursor = page.next_cursor
            if not cursor:
                return uris

    async def read(self, uri: str) -> str:
        result = await self.client.read_resource(uri)
        return str(result.contents[0].text)  # type: ignore[union-attr]

    async def subscribe(self, uri: str) -> None:
        await self.client.subscribe_resource(uri)

    async def prompt(self, name: str, arguments: dict[str, str]) -> str:
        result = await self.client.get_prompt(name, arguments)
        return str(result.messages[0].content.text)  # type: ignore[union-attr]

    async def complete(self, prompt: str, argument: str, value: str) -> list[str]:
        ref = types.PromptReference(type="ref/prompt", name=prompt)
        result = await self.client.complete(ref, {"name": argument, "value": value})
        return list(result.completion.values)

    async def set_level(self, level: str) -> None:
        await self.client.set_logging_level(level)  # type: ignore[arg-type]


@asynccontextmanager
async def connect(kind: str, url: str, era: str, workdir: Path) -> AsyncIterator[FrontEnd]:
    """A connected front end of ``kind`` (one of ``FRONT_ENDS``, or ``reference``)."""
    async with AsyncExitStack() as stack:
        front: FrontEnd
        if kind in ("client", "async-client"):
            client = _ClientFrontEnd(url, era, sync=kind == "client")
            await client.open()
            stack.push_async_callback(client.close)
            front = client
        elif kind in ("transport", "async-transport"):
            raw = _TransportFrontEnd(url, era, sync=kind == "transport", workdir=workdir)
            stack.push_async_callback(raw.close)
            await raw.open()
            front = raw
        else:
            # The SDK's transport refuses events over 1 MiB by default: the large result's 4 MiB
            # need a larger cap (mcpstream's default is 64 MiB).
            transport = (
                mcpstream_sdk_transport(url)
                if kind == "sdk-over-mcpstream"
                else sdk_transport(url, max_sse_event_size=SDK_MAX_EVENT)
            )
            sdk = _SdkFrontEnd(transport, era)
            await stack.enter_async_context(sdk.client)
            sdk.protocol_version = sdk.client.protocol_version
            front = sdk
        yield front
