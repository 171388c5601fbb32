"""``AsyncClient``: the asyncio MCP client over ``AsyncMcpHttpTransport``, a thin driver of the
flows of ``_core`` (it awaits their steps in the calling task)."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

if TYPE_CHECKING:  # the optional stack (mcpstream[httpx2]): a type only, never imported here
    import httpx  # noqa: F401 (named in the quoted base below)
    import httpx2  # noqa: F401

from .._telemetry import otel_loaded
from ..oauth import AsyncMcpOAuthRedirectHandler, McpOAuthRedirectHandler
from ..transport_http_async import AsyncMcpHttpTransport
from ._base import ClientBase, TransportOptions, send
from ._core import Flow, Locked, Request, Step
from ._notify import NotificationRouter, ProgressCallback
from ._tasks import Answer, Sleep
from .content import ResourceContents
from .features import Completion, CompletionReference
from .results import (
    Prompt,
    PromptResult,
    Resource,
    ResourceTemplate,
    ServerInfo,
    Task,
    Tool,
    ToolResult,
)
from .skills import Skill, SkillFileContent
from .tasks import AsyncTaskHandle

__all__ = ["AsyncClient"]

T = TypeVar("T")
RedirectHandler = AsyncMcpOAuthRedirectHandler | McpOAuthRedirectHandler


class AsyncClient(
    ClientBase[AsyncMcpHttpTransport, "httpx.AsyncClient | httpx2.AsyncClient", RedirectHandler]
):
    """An asyncio client for one MCP server over Streamable HTTP (or the deprecated HTTP+SSE
    transport of 2024-11-05, which it falls back to by itself).

    For example:

        async with AsyncClient("http://127.0.0.1:8000/mcp") as client:
            result = await client.call_tool("add", {"a": 1, "b": 2})

    The same arguments, methods and behaviour as ``Client`` (see there), with the calls as
    coroutines, ``http_client`` an ``httpx.AsyncClient`` or ``httpx2.AsyncClient``;
    ``oauth_redirect_handler`` may be async (a blocking one runs in a worker
    thread). Callbacks and handlers may be plain functions or coroutine functions; they run in
    the client's event loop, awaited by the task that received the notification: the calling
    task for those on a call's answer (all delivered before the call returns), the transport's
    GET stream task for the others. Use one client from one event loop.
    """

    _awaitable_answers = True

    def _open(self, options: TransportOptions, router: NotificationRouter) -> AsyncMcpHttpTransport:
        self._lock = asyncio.Lock()  # bound to no loop until first waited on
        return AsyncMcpHttpTransport(**options, on_notification=router.adeliver)

    async def _run(self, flow: Flow[T]) -> T:
        """Await ``flow``'s steps in this task; what it returns (``advance``, written out:
        the loop of every call)."""
        try:
            step = flow.send(None)
            while True:
                try:
                    outcome = await self._do(step)
                except BaseException as exc:  # cancellation too: the flow cleans up
                    step = flow.throw(exc)
                else:
                    step = flow.send(outcome)
        except StopIteration as stop:
            result: T = stop.value
            return result

    async def _do(self, step: Step) -> Any:
        if isinstance(step, Request) and not otel_loaded():  # the common step, first (as send)
            # (the transport's own ``request`` less its checks: the step's timeout is checked,
            # ``call_timeout``, and this transport records no telemetry of its own)
            return await self._transport._request(step.method, step.params, step.timeout_s)
        if isinstance(step, Locked):
            async with self._lock:
                return await self._run(step.flow)
        if isinstance(step, Sleep):
            if step.seconds > 0:
                await asyncio.sleep(step.seconds)
            return time.monotonic()
        if isinstance(step, Answer):
            answer = self._answers.answer(step.method, step.params)
            return await answer if inspect.isawaitable(answer) else answer
        operation = self._telemetry.begin(step, self.protocol_version, self._transport)
        if operation is None:
            return await send(self._transport, step)
        with operation as traced:  # the span is current while the message is out
            return operation.done(await send(self._transport, traced))

    # -- the MCP methods (see ``Client``) --------------------------------------------------

    async def connect(self) -> ServerInfo:
        """Initialize the session (once); returns the server's info."""
        return await self._run(self._core.connect())

    async def request(
        self, method: str, params: Any = None, *, timeout_s: float | None = None
    ) -> Any:
        """Send any request and return its raw result."""
        return await self._run(self._core.request(method, params, timeout_s))

    async def ping(self, *, timeout_s: float | None = None) -> float:
        """Ping the server; returns the round trip in seconds."""
        return await self._run(self._core.ping(timeout_s))

    async def list_tools(self, *, timeout_s: float | None = None) -> list[Tool]:
        """Every tool of the server (all pages)."""
        return await self._run(self._core.list_tools(timeout_s))

    @overload
    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        progress: ProgressCallback | None = None,
        timeout_s: float | None = None,
        meta: Mapping[str, Any] | None = None,
        as_task: Literal[False] = False,
    ) -> ToolResult: ...

    @overload
    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        progress: None = None,
        timeout_s: float | None = None,
        meta: Mapping[str, Any] | None = None,
        as_task: Literal[True],
    ) -> AsyncTaskHandle: ...

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        progress: ProgressCallback | None = None,
        timeout_s: float | None = None,
        meta: Mapping[str, Any] | None = None,
        as_task: bool = False,
    ) -> ToolResult | AsyncTaskHandle:
        """Call the tool ``name`` (see ``Client.call_tool``; ``as_task=True``: an
        ``AsyncTaskHandle``)."""
        if not as_task:
            return await self._run(
                self._core.call_tool(name, arguments, progress, timeout_s, meta, time.monotonic())
            )
        state = await self._run(
            self._core.start_tool_task(name, arguments, timeout_s, meta, progress)
        )
        return AsyncTaskHandle(self, state)

    async def get_task(self, task_id: str, *, timeout_s: float | None = None) -> AsyncTaskHandle:
        """A handle on the task ``task_id``, created before (``tasks/get`` for its state)."""
        return AsyncTaskHandle(self, await self._run(self._core.get_task(task_id, timeout_s)))

    async def list_tasks(self, *, timeout_s: float | None = None) -> list[Task]:
        """Every task the server lists (``tasks/list``, all pages): 2025-11-25 only, where the
        server declares ``tasks.list``; else ``McpTasksNotSupportedError`` (2026-07-28 has
        none: a client keeps the ids of its tasks)."""
        return await self._run(self._core.list_tasks(timeout_s))

    async def list_resources(self, *, timeout_s: float | None = None) -> list[Resource]:
        """Every resource of the server (all pages)."""
        return await self._run(self._core.list_resources(timeout_s))

    async def list_resource_templates(
        self, *, timeout_s: float | None = None
    ) -> list[ResourceTemplate]:
        """Every resource template of the server (all pages)."""
        return await self._run(self._core.list_resource_templates(timeout_s))

    async def read_resource(
        self, uri: str, *, timeout_s: float | None = None
    ) -> list[ResourceContents]:
        """The contents of the resource ``uri``."""
        return await self._run(self._core.read_resource(uri, timeout_s))

    async def list_prompts(self, *, timeout_s: float | None = None) -> list[Prompt]:
        """Every prompt of the server (all pages)."""
        return await self._run(self._core.list_prompts(timeout_s))

    async def get_prompt(
        self,
        name: str,
        arguments: Mapping[str, str] | None = None,
        *,
        timeout_s: float | None = None,
    ) -> PromptResult:
        """The prompt ``name`` rendered with ``arguments``."""
        return await self._run(self._core.get_prompt(name, arguments, timeout_s))

    # -- completion, logging, resource subscriptions, roots ---------------------------------

    async def complete(
        self,
        ref: CompletionReference,
        argument: Mapping[str, str],
        context_arguments: Mapping[str, str] | None = None,
        *,
        timeout_s: float | None = None,
    ) -> Completion:
        """Suggestions for an argument of a prompt or resource template (see
        ``Client.complete``)."""
        return await self._run(self._core.complete(ref, argument, context_arguments, timeout_s))

    async def set_logging_level(self, level: str, *, timeout_s: float | None = None) -> None:
        """Ask for the server's log messages at ``level`` and above (see
        ``Client.set_logging_level``)."""
        await self._run(self._core.set_logging_level(level, timeout_s))

    async def subscribe_resource(self, uri: str, *, timeout_s: float | None = None) -> None:
        """Get the updates of the resource ``uri`` at ``on_resource_updated`` (see
        ``Client.subscribe_resource``)."""
        await self._run(self._core.subscribe_resource(uri, timeout_s))

    async def unsubscribe_resource(self, uri: str, *, timeout_s: float | None = None) -> None:
        """Stop the updates of ``uri`` (see ``Client.unsubscribe_resource``)."""
        await self._run(self._core.unsubscribe_resource(uri, timeout_s))

    async def send_roots_list_changed(self) -> None:
        """Tell the server that the roots changed, at the handshake era; nothing at
        2026-07-28 (see ``Client.send_roots_list_changed``)."""
        await self._run(self._core.send_roots_list_changed())

    # -- the skills extension (SEP-2640) ---------------------------------------------------

    async def list_skills(self, *, timeout_s: float | None = None) -> list[Skill]:
        """Every skill the server lists (``skills/list``, all pages), no file read; as
        ``Client.list_skills`` (``McpSkillsNotSupportedError`` without the extension)."""
        return await self._run(self._core.list_skills(timeout_s))

    async def get_skill(self, uri: str, *, timeout_s: float | None = None) -> Skill:
        """The entry of the skill whose ``SKILL.md`` is at ``uri`` (``skills/get``)."""
        return await self._run(self._core.get_skill(uri, timeout_s))

    async def read_skill(
        self, skill: Skill | str, path: str = "SKILL.md", *, timeout_s: float | None = None
    ) -> SkillFileContent:
        """Read the file ``path`` of ``skill`` (an entry, a name or a ``SKILL.md`` URI) and
        verify it against the skill's entry, as ``Client.read_skill`` does: a mismatch raises
        ``McpSkillIntegrityError`` and the content is dropped."""
        return await self._run(self._core.read_skill(skill, path, timeout_s))

    # -- closing ---------------------------------------------------------------------------

    async def aclose(self) -> None:
        """End the session (DELETE) and its GET stream task, close the connections (as
        ``httpx.AsyncClient.aclose``; ``async with`` does it). Idempotent."""
        if self._core.close():
            self._telemetry.end_session()
            await self._transport.close()

    async def close(self) -> None:
        """The same as ``aclose`` (kept: the name ``Client`` has)."""
        await self.aclose()

    async def __aenter__(self) -> AsyncClient:
        try:
            await self.connect()
        except BaseException:
            await self.aclose()
            raise
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
