"""A real MCP server that serves tasks in both eras: the official SDK's ``MCPServer`` (mcp
2.3.0 has no tasks of its own: its mcp_types carry the 2025-11-25 task types only, and its
runtime serves none) with the SDK's own extension points doing what a server of tasks must:

* 2026-07-28, the ``io.modelcontextprotocol/tasks`` extension (SEP-2663): an SDK
  ``Extension`` declared under ``capabilities.extensions``, whose ``intercept_tool_call``
  answers a call of a task tool with a ``CreateTaskResult`` (``resultType: "task"``) when, and
  only when, the request's per-request capabilities declare the extension, and whose
  ``MethodBinding``\\s serve ``tasks/get``, ``tasks/update`` and ``tasks/cancel``;
* 2025-11-25, the tasks of the core protocol: a ``Server.middleware`` adds the ``tasks``
  capability to the ``initialize`` result and answers a ``tools/call`` with ``params.task`` with
  a ``CreateTaskResult`` (``{"task": ...}``: a shape the SDK's result sieve would drop, which a
  middleware that short-circuits owns), and ``MethodBinding``\\s gated to 2025-11-25 serve
  ``tasks/get``, ``tasks/result``, ``tasks/list`` and ``tasks/cancel``.

The tasks advance by the polls they get, not by the clock, so a test asserts behaviour and no
timing: ``slow_echo`` is working for two ``tasks/get`` and then completed with its text
(``must_task`` too, a tool whose ``execution.taskSupport`` is ``required`` at 2025-11-25;
``inline_only`` forbids tasks, ``plain`` says nothing);
``fails`` fails (a JSON-RPC error) at its first poll; ``asks`` wants a name by elicitation
(2026-07-28: in ``inputRequests``, answered with ``tasks/update``; 2025-11-25: asked on the
stream of ``tasks/result``, with a ``notifications/tasks/status`` after), then completes with a
greeting; ``never_ends`` stays working until cancelled.
Hostile ones: ``bad_status``, ``no_id``, ``switch_id`` (``tasks/get`` names another task),
``no_result`` (completed without a result), ``huge_interval`` (a poll interval of years; done at
its first poll) and ``eager`` (a zero poll interval, never done). ``polls`` counts the
``tasks/get`` of each task. Run by ``TasksServer``, the demo server's uvicorn runner serving
this server instead.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest
from mcp.server.context import CallNext, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError, NoBackChannelError
from mcp_types import (
    CallToolRequestParams,
    PaginatedRequestParams,
    RequestParams,
    TaskStatusNotification,
)
from mcpstream.demo import DemoServer
from mcpstream.demo import server as demo_server

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
LEGACY = frozenset({"2025-11-25"})
MODERN = frozenset({"2026-07-28"})
TASK_TOOLS = (
    "slow_echo",
    "fails",
    "asks",
    "never_ends",
    "bad_status",
    "no_id",
    "switch_id",
    "no_result",
    "huge_interval",
    "eager",
)
TASK_SUPPORT = {
    **dict.fromkeys(TASK_TOOLS, "optional"),
    "must_task": "required",  # a slow_echo that is never called without a task
    "inline_only": "forbidden",
}
"""The tools' ``execution.taskSupport`` at 2025-11-25 (``plain``, unlisted here: none)."""
LIST_PAGE_SIZE = 2
STAMP = "2026-07-28T10:30:00Z"


@dataclass
class ServedTask:
    """One task: the tool it runs, its arguments, its status and what it ends with."""

    task_id: str
    tool: str
    arguments: dict[str, Any]
    modern: bool
    status: str = "working"
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    answers: dict[str, Any] = field(default_factory=dict)
    polls: int = 0

    def advance(self) -> None:
        """One poll's worth of work (the tasks advance by polls, not by the clock)."""
        if self.status in ("completed", "failed", "cancelled"):
            return
        polls = self.polls
        if self.tool in ("slow_echo", "must_task") and polls >= 3:
            self.complete(str(self.arguments.get("text", "")))
        elif self.tool == "fails":
            self.status, self.error = "failed", {"code": -32603, "message": "backend down"}
        elif self.tool == "asks":
            name = self.answers.get("name")
            if isinstance(name, dict) and name.get("action") == "accept":
                self.complete(f"Hello, {name.get('content', {}).get('name')}!")
            else:
                self.status = "input_required"
        elif self.tool in ("huge_interval", "no_result"):
            self.complete("done")
            if self.tool == "no_result":
                self.result = None

    def complete(self, text: str) -> None:
        self.status = "completed"
        self.result = {"content": [{"type": "text", "text": text}], "isError": False}

    def wire(self, *, detailed: bool) -> dict[str, Any]:
        """The task as the era sends it (``detailed``: with the 2026 status payloads)."""
        interval = 50
        if self.tool == "huge_interval":
            interval = 10**15
        elif self.tool == "eager":
            interval = 0
        task: dict[str, Any] = {
            "taskId": self.task_id,
            "status": self.status,
            "createdAt": STAMP,
            "lastUpdatedAt": STAMP,
        }
        if self.modern:
            task.update(ttlMs=60_000, pollIntervalMs=interval)
        else:
            task.update(ttl=60_000, pollInterval=interval)
        if self.tool == "bad_status":
            task["status"] = "exploded"
        if self.tool == "no_id":
            del task["taskId"]
        if not detailed:
            return task
        if self.status == "completed" and self.result is not None:
            task["result"] = self.result
        if self.status == "failed":
            task["error"] = self.error
        if self.status == "input_required":
            task["inputRequests"] = {
                "name": {
                    "method": "elicitation/create",
                    "params": {
                        "mode": "form",
                        "message": "Please enter your name.",
                        "requestedSchema": {
                            "type": "object",
                            "properties": {"name": {"type": "string"}},
                            "required": ["name"],
                        },
                    },
                }
            }
        return task


class TaskId(RequestParams):
    """The params of ``tasks/get``, ``tasks/result``, ``tasks/cancel``."""

    taskId: str


class TaskUpdate(TaskId):
    """The params of ``tasks/update`` (2026-07-28)."""

    inputResponses: dict[str, Any]


class TasksExtension(Extension):
    """The tasks of both eras over one store (``tasks``), with a log of the ``tasks/``
    requests answered (``calls``: method and task id) and the polls of each task."""

    identifier = TASKS_EXTENSION

    def __init__(self) -> None:
        self.tasks: dict[str, ServedTask] = {}
        self.calls: list[tuple[str, str]] = []
        self._ids = itertools.count(1)

    def clear(self) -> None:
        self.tasks.clear()
        self.calls.clear()

    def polls(self, task_id: str) -> int:
        return self.tasks[task_id].polls

    def create(self, tool: str, arguments: dict[str, Any], *, modern: bool) -> ServedTask:
        task = ServedTask(f"task-{next(self._ids)}-{tool}", tool, dict(arguments), modern)
        self.tasks[task.task_id] = task
        return task

    def find(self, method: str, task_id: str) -> ServedTask:
        self.calls.append((method, task_id))
        task = self.tasks.get(task_id)
        if task is None:
            raise MCPError(-32602, "Failed to retrieve task: Task not found")
        return task

    # -- 2026-07-28 ----------------------------------------------------------------------------

    async def intercept_tool_call(
        self,
        params: CallToolRequestParams,
        ctx: ServerRequestContext[Any, Any],
        call_next: CallNext,
    ) -> Any:
        meta: Any = ctx.meta or {}
        declared = meta.get("io.modelcontextprotocol/clientCapabilities", {}).get("extensions")
        if ctx.protocol_version not in MODERN or params.name not in TASK_TOOLS:
            return await call_next(ctx)
        if not isinstance(declared, dict) or TASKS_EXTENSION not in declared:
            raise MCPError(
                -32021,
                "Missing required client capability",
                {"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}},
            )
        task = self.create(params.name, params.arguments or {}, modern=True)
        return {"resultType": "task", **task.wire(detailed=False)}

    def methods(self) -> Sequence[MethodBinding]:
        return [
            MethodBinding("tasks/get", TaskId, self._get),
            MethodBinding("tasks/update", TaskUpdate, self._update, MODERN),
            MethodBinding("tasks/cancel", TaskId, self._cancel),
            MethodBinding("tasks/result", TaskId, self._result, LEGACY),
            MethodBinding("tasks/list", PaginatedRequestParams, self._list, LEGACY),
        ]

    async def _get(self, ctx: ServerRequestContext[Any, Any], params: Any) -> dict[str, Any]:
        task = self.find("tasks/get", params.taskId)
        task.polls += 1
        task.advance()
        wire = task.wire(detailed=task.modern)
        if task.tool == "switch_id":
            wire["taskId"] = "someone-elses-task"
        return wire

    async def _update(self, ctx: ServerRequestContext[Any, Any], params: Any) -> dict[str, Any]:
        task = self.find("tasks/update", params.taskId)
        task.answers.update(params.inputResponses)
        task.status = "working" if task.status == "input_required" else task.status
        return {}

    async def _cancel(self, ctx: ServerRequestContext[Any, Any], params: Any) -> dict[str, Any]:
        task = self.find("tasks/cancel", params.taskId)
        if task.status in ("completed", "failed", "cancelled"):
            raise MCPError(-32602, "Cannot cancel a task in a terminal status")
        task.status = "cancelled"
        return {} if task.modern else task.wire(detailed=False)

    async def _result(self, ctx: ServerRequestContext[Any, Any], params: Any) -> dict[str, Any]:
        task = self.find("tasks/result", params.taskId)
        related = {"io.modelcontextprotocol/related-task": {"taskId": task.task_id}}
        if task.status == "input_required":  # ask on this request's stream, as 2025-11-25 says
            request = task.wire(detailed=True)["inputRequests"]["name"]["params"]
            # (The SDK's typed elicitation carries no _meta: the related-task key is on the result.)
            related_id = ctx.request_id
            try:
                answer = await ctx.session.elicit_form(
                    request["message"], request["requestedSchema"], related_id
                )
            except NoBackChannelError:  # JSON mode: no stream of its own; the GET stream, then
                related_id = None
                answer = await ctx.session.elicit_form(
                    request["message"], request["requestedSchema"]
                )
            task.answers["name"] = answer.model_dump(by_alias=True, exclude_none=True)
            task.advance()
            status = {"method": "notifications/tasks/status", "params": task.wire(detailed=False)}
            await ctx.session.send_notification(
                TaskStatusNotification.model_validate(status), related_request_id=related_id
            )
        while task.status not in ("completed", "failed", "cancelled"):
            if task.tool == "never_ends":  # blocks until terminal: never, here
                raise MCPError(-32603, "still working")
            task.polls += 1
            task.advance()
        if task.status == "failed" and task.error is not None:
            raise MCPError(task.error["code"], task.error["message"])
        if task.status == "cancelled":
            raise MCPError(-32603, "The task was cancelled")
        if task.result is None:  # no_result: a tool result without its content list
            return {"content": "none"}
        return {**task.result, "_meta": related}

    async def _list(self, ctx: ServerRequestContext[Any, Any], params: Any) -> dict[str, Any]:
        self.calls.append(("tasks/list", params.cursor or ""))
        tasks = [task for task in self.tasks.values() if not task.modern]
        start = int(params.cursor or 0)
        end = start + LIST_PAGE_SIZE
        result: dict[str, Any] = {"tasks": [t.wire(detailed=False) for t in tasks[start:end]]}
        if end < len(tasks):
            result["nextCursor"] = str(end)
        return result

    # -- 2025-11-25: the capability and the task-augmented call -------------------------------

    async def middleware(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
        """The handshake era's half: ``tasks`` in the ``initialize`` capabilities, each tool's
        ``execution.taskSupport`` in ``tools/list``, and a ``tools/call`` with ``params.task``
        answered with a ``CreateTaskResult`` (refused, as the spec says, for a tool that
        forbids tasks; a plain call of one that requires them is refused too)."""
        params: Any = ctx.params or {}
        legacy = ctx.protocol_version in LEGACY
        if ctx.method == "tools/call" and legacy:
            self.calls.append(("tools/call", "task" if "task" in params else "plain"))
            name = params.get("name", "")
            support = TASK_SUPPORT.get(name, "forbidden")
            tasked = "task" in params
            if (support == "required" and not tasked) or (support == "forbidden" and tasked):
                raise MCPError(-32601, f"Method not found: {name} with this task augmentation")
            if tasked:
                task = self.create(name, params.get("arguments") or {}, modern=False)
                return {"task": task.wire(detailed=False)}
        result = await call_next(ctx)
        if ctx.method == "tools/list" and legacy and isinstance(result, dict):
            for tool in result.get("tools", []):
                support = TASK_SUPPORT.get(tool.get("name"))
                if support is not None:
                    tool["execution"] = {"taskSupport": support}
        if ctx.method == "initialize" and isinstance(result, dict):
            result.setdefault("capabilities", {})["tasks"] = {
                "list": {},
                "cancel": {},
                "requests": {"tools": {"call": {}}},
            }
        return result


def _inline(name: str) -> Any:
    def run(text: str = "") -> str:
        return f"{name} ran inline: {text}"

    return run


def build_tasks_server(extension: TasksExtension) -> MCPServer:
    """An SDK server with the task tools (plain tools too: a call without a task runs them)
    and the tasks ``extension``."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        server = MCPServer("tasks-server", extensions=[extension])
    finally:  # MCPServer configures the root logger of a process that has no handler
        root.handlers[:], root.level = handlers, level

    for name in (*TASK_TOOLS, "must_task", "inline_only", "plain"):
        server.add_tool(_inline(name), name=name, description=f"The task tool {name}.")
    server._lowlevel_server.middleware.append(extension.middleware)
    return server


class TasksServer(DemoServer):
    """``DemoServer``'s uvicorn runner serving the tasks server (``extension``) instead."""

    def __init__(self, extension: TasksExtension, *, json_response: bool = False) -> None:
        super().__init__(json_response=json_response)
        self.extension = extension

    def start(self) -> TasksServer:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(
                demo_server, "build_demo_server", lambda **_: build_tasks_server(self.extension)
            )
            super().start()
        return self


@contextmanager
def tasks_server(json_response: bool = False) -> Iterator[TasksServer]:
    """A running ``TasksServer``."""
    with TasksServer(TasksExtension(), json_response=json_response) as server:
        yield server
