"""The demo server's task tool, ``render``, in both eras that have tasks (imports the ``mcp``
SDK: load it only through ``mcpstream.demo.server``).

The SDK (mcp 2.3.0) serves no tasks of its own; its extension points do what a server of
tasks must:

* 2026-07-28, the ``io.modelcontextprotocol/tasks`` extension (SEP-2663): a call of ``render``
  from a client that declares the extension is answered with a task (``resultType: "task"``),
  served by ``tasks/get`` (the result in its answer once done) and ``tasks/cancel``;
* 2025-11-25, the tasks of the core protocol: a middleware declares the ``tasks`` capability,
  lists ``render`` with ``execution.taskSupport: "optional"`` and answers a ``tools/call`` with
  ``params.task`` with a task, served by ``tasks/get``, ``tasks/result``, ``tasks/list`` and
  ``tasks/cancel``.

A task of ``render`` is done ``seconds`` (default 1) after it was created. Called without a
task (a client that does not ask for one), ``render`` waits as long and answers inline.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from typing import Any

import anyio
from mcp.server.context import CallNext, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolRequestParams, PaginatedRequestParams, RequestParams

__all__ = ["TASKS_EXTENSION", "TASK_TOOL", "DemoTasks", "add_task_tool"]

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
TASK_TOOL = "render"
_LEGACY = frozenset({"2025-11-25"})
_MODERN = frozenset({"2026-07-28"})
_TERMINAL = ("completed", "failed", "cancelled")
_POLL_INTERVAL_MS = 200
_TTL_MS = 600_000


def _rendered(arguments: dict[str, Any]) -> str:
    return f"rendered scene {arguments.get('scene', 1)}"


def _seconds(arguments: dict[str, Any]) -> float:
    try:
        return max(0.0, float(arguments.get("seconds", 1.0)))
    except (TypeError, ValueError):
        return 1.0


def _stamp(seconds: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


@dataclass
class _Task:
    """One task of ``render``: done at ``due`` (a ``time.monotonic`` value)."""

    task_id: str
    arguments: dict[str, Any]
    modern: bool
    created: float
    due: float
    status: str = "working"

    def advance(self) -> None:
        if self.status == "working" and time.monotonic() >= self.due:
            self.status = "completed"

    def result(self) -> dict[str, Any]:
        text = _rendered(self.arguments)
        return {"content": [{"type": "text", "text": text}], "isError": False}

    def wire(self, *, with_result: bool) -> dict[str, Any]:
        """The task as its era sends it (``with_result``: the 2026 result once done)."""
        task: dict[str, Any] = {
            "taskId": self.task_id,
            "status": self.status,
            "createdAt": _stamp(self.created),
            "lastUpdatedAt": _stamp(time.time()),
        }
        if self.modern:
            task.update(ttlMs=_TTL_MS, pollIntervalMs=_POLL_INTERVAL_MS)
        else:
            task.update(ttl=_TTL_MS, pollInterval=_POLL_INTERVAL_MS)
        if with_result and self.status == "completed":
            task["result"] = self.result()
        return task


class _TaskId(RequestParams):
    """The params of ``tasks/get``, ``tasks/result`` and ``tasks/cancel``."""

    taskId: str


class DemoTasks(Extension):
    """The tasks of ``render`` in both eras, over one store."""

    identifier = TASKS_EXTENSION

    def __init__(self) -> None:
        self.tasks: dict[str, _Task] = {}
        self._ids = itertools.count(1)

    def _create(self, arguments: dict[str, Any], *, modern: bool) -> _Task:
        now = time.monotonic()
        task_id = f"render-{next(self._ids)}"
        task = _Task(task_id, dict(arguments), modern, time.time(), now + _seconds(arguments))
        self.tasks[task_id] = task
        return task

    def _find(self, task_id: str) -> _Task:
        task = self.tasks.get(task_id)
        if task is None:
            raise MCPError(-32602, "Failed to retrieve task: Task not found")
        task.advance()
        return task

    async def intercept_tool_call(
        self,
        params: CallToolRequestParams,
        ctx: ServerRequestContext[Any, Any],
        call_next: CallNext,
    ) -> Any:
        """At 2026-07-28, a call of ``render`` from a client declaring the extension is a task."""
        meta: Any = ctx.meta or {}
        capabilities = meta.get("io.modelcontextprotocol/clientCapabilities", {})
        declared = capabilities.get("extensions") if isinstance(capabilities, dict) else None
        if (
            ctx.protocol_version not in _MODERN
            or params.name != TASK_TOOL
            or not isinstance(declared, dict)
            or TASKS_EXTENSION not in declared
        ):
            return await call_next(ctx)
        task = self._create(params.arguments or {}, modern=True)
        return {"resultType": "task", **task.wire(with_result=False)}

    def methods(self) -> list[MethodBinding]:
        """``tasks/get`` and ``tasks/cancel`` in both eras; ``tasks/result`` and ``tasks/list``
        at 2025-11-25."""
        return [
            MethodBinding("tasks/get", _TaskId, self._get),
            MethodBinding("tasks/cancel", _TaskId, self._cancel),
            MethodBinding("tasks/result", _TaskId, self._result, _LEGACY),
            MethodBinding("tasks/list", PaginatedRequestParams, self._list, _LEGACY),
        ]

    async def _get(self, ctx: ServerRequestContext[Any, Any], params: Any) -> dict[str, Any]:
        task = self._find(params.taskId)
        return task.wire(with_result=task.modern)

    async def _cancel(self, ctx: ServerRequestContext[Any, Any], params: Any) -> dict[str, Any]:
        task = self._find(params.taskId)
        if task.status in _TERMINAL:
            raise MCPError(-32602, "Cannot cancel a task in a terminal status")
        task.status = "cancelled"
        return {} if task.modern else task.wire(with_result=False)

    async def _result(self, ctx: ServerRequestContext[Any, Any], params: Any) -> dict[str, Any]:
        task = self._find(params.taskId)
        while task.status == "working":  # tasks/result blocks until the task ends
            await anyio.sleep(max(0.0, task.due - time.monotonic()))
            task.advance()
        if task.status == "cancelled":
            raise MCPError(-32603, "The task was cancelled")
        related = {"io.modelcontextprotocol/related-task": {"taskId": task.task_id}}
        return {**task.result(), "_meta": related}

    async def _list(self, ctx: ServerRequestContext[Any, Any], params: Any) -> dict[str, Any]:
        tasks = [task for task in self.tasks.values() if not task.modern]
        for task in tasks:
            task.advance()
        return {"tasks": [task.wire(with_result=False) for task in tasks]}

    async def middleware(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
        """The 2025-11-25 half: the ``tasks`` capability, ``render``'s ``taskSupport`` in
        ``tools/list``, and a ``tools/call`` of ``render`` with ``params.task`` made a task."""
        params: Any = ctx.params or {}
        legacy = ctx.protocol_version in _LEGACY
        if ctx.method == "tools/call" and legacy and "task" in params:
            if params.get("name") != TASK_TOOL:
                raise MCPError(-32601, f"Method not found: {params.get('name')} as a task")
            task = self._create(params.get("arguments") or {}, modern=False)
            return {"task": task.wire(with_result=False)}
        result = await call_next(ctx)
        if ctx.method == "tools/list" and legacy and isinstance(result, dict):
            for tool in result.get("tools", []):
                if tool.get("name") == TASK_TOOL:
                    tool["execution"] = {"taskSupport": "optional"}
        if ctx.method == "initialize" and isinstance(result, dict):
            result.setdefault("capabilities", {})["tasks"] = {
                "list": {},
                "cancel": {},
                "requests": {"tools": {"call": {}}},
            }
        return result


def add_task_tool(server: MCPServer, tasks: DemoTasks) -> None:
    """Register ``render`` on ``server`` and the 2025-11-25 half of ``tasks`` (its extension
    must be among the server's ``extensions``)."""

    @server.tool(name=TASK_TOOL)
    async def render(scene: int = 1, seconds: float = 1.0) -> str:
        """Render 'scene' in 'seconds' (default 1): a task when the client asks for one."""
        await anyio.sleep(_seconds({"seconds": seconds}))
        return _rendered({"scene": scene})

    server._lowlevel_server.middleware.append(tasks.middleware)
