"""Tasks, free of I/O: the 2025-11-25 tasks and the 2026-07-28 ``io.modelcontextprotocol/tasks``
extension (SEP-2663) behind one set of flows, run by the drivers like the flows of ``_core``.

The two eras differ in every detail, and this module is where:

* creation: at 2025-11-25 the client asks (``params.task`` on ``tools/call``, only when the
  server declares ``capabilities.tasks.requests.tools.call`` and the tool's
  ``execution.taskSupport`` allows it, always when it requires it) and the answer is
  ``{"task": {...}}``; at 2026-07-28 the client declares the extension in its per-request
  capabilities and the server decides, call by call: a ``resultType: "task"`` result is the task
  itself, flattened; it may come to a call that did not ask (``call_tool`` then waits for it);
* the fields: ``ttl``/``pollInterval`` or ``ttlMs``/``pollIntervalMs`` (milliseconds both);
* the result: at 2025-11-25 ``tasks/result`` (which blocks at the server until the task ends),
  sent once ``tasks/get`` says the task is terminal or needs input (the server then asks on that
  request's stream, answered by the client's handlers like any server request); at 2026-07-28
  ``tasks/get`` carries it (``result``, or ``error`` for a JSON-RPC failure), and an
  ``input_required`` task lists its requests (``inputRequests``), answered by the same handlers
  and sent back with ``tasks/update``, each key once;
* ``tasks/cancel`` answers the cancelled task at 2025-11-25 and an empty acknowledgement at
  2026-07-28; only 2025-11-25 has ``tasks/list``.

Hostile input: every task object is checked before use (``parse_task``: ``McpTaskProtocolError``
for a missing or bad ``taskId``, an unknown ``status``, a field of the wrong type, a terminal
2026 task without its payload, an answer about another task); the poll interval the server asks
for is bounded (``MIN_POLL_INTERVAL_S``, ``MAX_POLL_INTERVAL_S``) and every wait ends at the
deadline, so the number of polls is bounded by the time given; the input requests of one task are
bounded (``MAX_INPUT_REQUESTS``).

The steps these flows add to those of ``_core``: ``Sleep`` (the driver sleeps, and tells the time:
the core reads no clock; ``Sleep(0)`` only tells the time) and ``Answer`` (the driver runs the
client's handler for one server request, as the transport does for a request on a stream).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .._text import sanitize
from ..errors import (
    McpError,
    McpTaskCancelledError,
    McpTaskError,
    McpTaskProtocolError,
    McpTasksNotSupportedError,
    McpTaskTimeoutError,
    McpTimeoutError,
)
from .results import Task, ToolResult

__all__ = [
    "DEFAULT_POLL_INTERVAL_S",
    "MAX_INPUT_REQUESTS",
    "MAX_POLL_INTERVAL_S",
    "MAX_TASK_ID_CHARS",
    "MIN_POLL_INTERVAL_S",
    "NOW",
    "TASKS_EXTENSION",
    "Answer",
    "Sleep",
    "TaskState",
    "asks_for_task",
    "cancel_task",
    "created_task",
    "declare_tasks",
    "offers_tool_tasks",
    "parse_task",
    "poll_delay",
    "refresh_task",
    "require_legacy_operation",
    "task_call_params",
    "tool_task_support",
    "wait_for_result",
]

T = TypeVar("T")
Flow = Generator[Any, Any, T]
RequestFlow = Callable[[str, Any, float | None], Flow[Any]]
"""``SessionCore.request``: a request in the session, as a flow; its result."""

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
"""The extension's identifier (2026-07-28), declared in the client's per-request capabilities."""
STATUSES = frozenset({"working", "input_required", "completed", "failed", "cancelled"})

MIN_POLL_INTERVAL_S = 0.05
"""The shortest wait between two polls, whatever the server asks (0 included)."""
MAX_POLL_INTERVAL_S = 5.0
"""The longest wait between two polls, whatever the server asks (a deadline cuts it shorter)."""
DEFAULT_POLL_INTERVAL_S = 0.5
"""The wait between two polls when the server suggests none."""
MAX_TASK_ID_CHARS = 1024
"""A longer ``taskId`` is refused (it goes back in every request, and in a header)."""
MAX_INPUT_REQUESTS = 1000
"""The input requests one task may make (2026-07-28); past them the task is refused."""
MIN_REQUEST_S = 0.01
"""A poll is not sent with less time left than this: the wait ends instead."""


# -- the steps -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Sleep:
    """Wait ``seconds`` (none for 0); the outcome is the driver's monotonic time after."""

    seconds: float


NOW = Sleep(0.0)
"""The step that only tells the time (``Sleep(0)``: one made once)."""


@dataclass(frozen=True, slots=True)
class Answer:
    """Run the client's handler for the server request ``method`` with ``params`` (an input
    request of a task); the outcome is its result."""

    method: str
    params: Any


# -- task objects ----------------------------------------------------------------------------------


def _bad(what: str, task_id: str | None = None) -> McpTaskProtocolError:
    return McpTaskProtocolError(f"the server sent a malformed task: {what}", task_id=task_id)


def _millis(raw: Mapping[str, Any], key: str, task_id: str) -> float | None:
    value = raw.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
        raise _bad(f"'{key}' is not a number of milliseconds", task_id)
    return min(float(value), 1e15) / 1000.0  # a huge one stays a float, not inf


def _text(raw: Mapping[str, Any], key: str, task_id: str) -> str | None:
    value = raw.get(key)
    if value is not None and not isinstance(value, str):
        raise _bad(f"'{key}' is not a string", task_id)
    return value


def _input_requests(raw: Any, task_id: str) -> dict[str, dict[str, Any]]:
    if not isinstance(raw, Mapping) or not raw:
        raise _bad("an input_required task without its 'inputRequests'", task_id)
    requests: dict[str, dict[str, Any]] = {}
    for key, request in raw.items():
        if not isinstance(request, Mapping) or not isinstance(request.get("method"), str):
            raise _bad("an input request without a method", task_id)
        requests[str(key)] = dict(request)
    return requests


def parse_task(raw: Any, *, modern: bool, detailed: bool, expected_id: str | None = None) -> Task:
    """The task ``raw`` describes, every field checked (``McpTaskProtocolError`` otherwise).

    ``modern``: 2026-07-28 field names (``ttlMs``, ``pollIntervalMs``); ``detailed``: a
    2026-07-28 ``tasks/get`` answer, whose terminal and ``input_required`` states carry their
    payload (a ``CreateTaskResult`` carries none, and any there is ignored, as the extension
    says); ``expected_id``: the task asked about, which the answer must be about."""
    if not isinstance(raw, Mapping):
        raise _bad("not an object")
    task_id = raw.get("taskId")
    if not isinstance(task_id, str) or not task_id or len(task_id) > MAX_TASK_ID_CHARS:
        raise _bad(f"no 'taskId' string (of at most {MAX_TASK_ID_CHARS} characters)")
    if sanitize(task_id, MAX_TASK_ID_CHARS) != task_id:
        raise _bad("a 'taskId' with control characters")
    if expected_id is not None and task_id != expected_id:
        raise _bad("the answer is about another task", expected_id)
    status = raw.get("status")
    if not isinstance(status, str) or status not in STATUSES:
        raise _bad("an unknown 'status'", task_id)
    ttl_key, poll_key = ("ttlMs", "pollIntervalMs") if modern else ("ttl", "pollInterval")
    result = error = None
    requests: dict[str, dict[str, Any]] = {}
    if detailed and status == "completed":
        result = raw.get("result")
        if not isinstance(result, Mapping):
            raise _bad("a completed task without its 'result'", task_id)
        result = dict(result)
    elif detailed and status == "failed":
        error = raw.get("error")
        if not isinstance(error, Mapping):
            raise _bad("a failed task without its 'error'", task_id)
        error = dict(error)
    elif detailed and status == "input_required":
        requests = _input_requests(raw.get("inputRequests"), task_id)
    return Task(
        task_id=task_id,
        status=str(status),
        status_message=_text(raw, "statusMessage", task_id),
        created_at=_text(raw, "createdAt", task_id),
        last_updated_at=_text(raw, "lastUpdatedAt", task_id),
        ttl_s=_millis(raw, ttl_key, task_id),
        poll_interval_s=_millis(raw, poll_key, task_id),
        result=result,
        error=error,
        input_requests=requests,
    )


# -- a task's state --------------------------------------------------------------------------------


@dataclass(slots=True)
class TaskState:
    """What a handle holds: the era, the task as last seen (None when the server ran the call
    without a task: ``final`` is then its result), the input requests answered and delivered
    (2026-07-28: each once), and whether a cancellation was sent."""

    modern: bool
    task: Task | None
    final: ToolResult | None = None
    answered: set[str] = field(default_factory=set)
    pending: dict[str, Any] = field(default_factory=dict)
    """Answers to input requests not delivered yet (a ``tasks/update`` that failed)."""
    cancel_requested: bool = False

    @property
    def task_id(self) -> str | None:
        """The task's id (None without a task)."""
        return self.task.task_id if self.task is not None else None

    @property
    def status(self) -> str:
        """The last status seen (``completed`` for a call run without a task)."""
        return self.task.status if self.task is not None else "completed"


def declare_tasks(capabilities: Mapping[str, Any]) -> dict[str, Any]:
    """The client's capabilities with the tasks extension declared (``extensions``): sent on
    every 2026-07-28 request, so any ``tools/call`` may be answered with a task. (In the
    2025-11-25 ``initialize`` it is one more capability, ignored: the client is no receiver of
    tasks there, and declares no ``tasks`` capability of its own.)"""
    declared = dict(capabilities)
    extensions = declared.get("extensions")
    declared["extensions"] = {**(extensions if isinstance(extensions, Mapping) else {})}
    declared["extensions"][TASKS_EXTENSION] = {}
    return declared


def offers_tool_tasks(capabilities: Mapping[str, Any]) -> bool:
    """True when a 2025-11-25 server declares ``tasks.requests.tools.call``."""
    # (most servers have no tasks: no walk then, on every call)
    return "tasks" in capabilities and _declares(capabilities, "requests", "tools", "call")


def _declares(capabilities: Mapping[str, Any], *path: str) -> bool:
    node: Any = capabilities.get("tasks")
    if node is None:  # (no tasks: most servers)
        return False
    for key in path:
        if not isinstance(node, Mapping) or not isinstance(node.get(key), Mapping):
            return False
        node = node[key]
    return True


def require_legacy_operation(capabilities: Mapping[str, Any], modern: bool, name: str) -> None:
    """Raise ``McpTasksNotSupportedError`` unless the era and the server have ``tasks/name``
    (2026-07-28 has no ``tasks/list``; at 2025-11-25 ``list`` and ``cancel`` are declared)."""
    if modern:
        if name == "list":
            raise McpTasksNotSupportedError(
                "the io.modelcontextprotocol/tasks extension (2026-07-28) has no tasks/list"
            )
        return
    if not _declares(capabilities, name):
        raise McpTasksNotSupportedError(f"the server does not declare tasks.{name}")


def tool_task_support(tool: Any) -> str:
    """A listed tool's ``execution.taskSupport`` (2025-11-25): ``required``, ``optional``, or
    ``forbidden`` (the default, for anything else too)."""
    execution = tool.get("execution") if isinstance(tool, Mapping) else None
    support = execution.get("taskSupport") if isinstance(execution, Mapping) else None
    return support if support in ("required", "optional") else "forbidden"


def asks_for_task(*, modern: bool, offered: bool, support: str | None, as_task: bool) -> bool:
    """Whether a ``tools/call`` carries ``params.task``. Never at 2026-07-28 (the server
    decides there). At 2025-11-25 only when the server offers tool tasks
    (``capabilities.tasks.requests.tools.call``), and then as the tool says (``support``: its
    ``execution.taskSupport``, None when the tool was not listed): a ``required`` tool is always
    called as a task (the spec's MUST: a plain call of it is waited for as a task), an
    ``optional`` one when the host asks, a ``forbidden`` or unlisted one never."""
    if modern or not offered:
        return False
    return support == "required" or (as_task and support == "optional")


def task_call_params(params: dict[str, Any], *, asked: bool) -> dict[str, Any]:
    """The params of a ``tools/call``: with ``task`` (2025-11-25) when it asks for one."""
    return {**params, "task": {}} if asked else params


def created_task(result: Any, *, modern: bool) -> TaskState | None:
    """The task a ``tools/call`` result creates, or None for a plain tool result."""
    if not isinstance(result, (dict, Mapping)):  # (a dict, as a rule: no ABC check then)
        return None
    if modern:
        if result.get("resultType") != "task":
            return None
        return TaskState(True, parse_task(result, modern=True, detailed=False))
    if "task" not in result or "content" in result:
        return None
    return TaskState(False, parse_task(result.get("task"), modern=False, detailed=False))


def poll_delay(task: Task, remaining_s: float) -> float:
    """How long to wait before the next poll: the server's interval within the bounds, no
    longer than the time left."""
    hint = task.poll_interval_s
    interval = DEFAULT_POLL_INTERVAL_S if hint is None else hint
    interval = min(max(interval, MIN_POLL_INTERVAL_S), MAX_POLL_INTERVAL_S)
    return max(0.0, min(interval, remaining_s))


# -- the flows -------------------------------------------------------------------------------------


def refresh_task(request: RequestFlow, state: TaskState, timeout_s: float | None) -> Flow[Task]:
    """``tasks/get``: the task now (kept in ``state``)."""
    task = _require_task(state)
    result = yield from request("tasks/get", {"taskId": task.task_id}, timeout_s)
    state.task = parse_task(
        result, modern=state.modern, detailed=state.modern, expected_id=task.task_id
    )
    return state.task


def cancel_task(
    request: RequestFlow,
    state: TaskState,
    capabilities: Mapping[str, Any],
    timeout_s: float | None,
) -> Flow[Task | None]:
    """``tasks/cancel``: the task as the server says it is after (2025-11-25: cancelled), or
    as last seen (2026-07-28 acknowledges only: cancellation is cooperative, the task may
    still end otherwise); None for a call run without a task (nothing to cancel)."""
    if state.task is None:
        return None
    require_legacy_operation(capabilities, state.modern, "cancel")
    task_id = state.task.task_id
    result = yield from request("tasks/cancel", {"taskId": task_id}, timeout_s)
    state.cancel_requested = True
    if not state.modern:
        state.task = parse_task(result, modern=False, detailed=False, expected_id=task_id)
    return state.task


def wait_for_result(request: RequestFlow, state: TaskState, timeout_s: float) -> Flow[ToolResult]:
    """Poll the task until it ends, within ``timeout_s``; its tool result. A failed task
    raises its JSON-RPC error (``McpError``), a cancelled one ``McpTaskCancelledError``, one
    not done in time ``McpTaskTimeoutError`` (it goes on at the server)."""
    if state.final is not None:
        return state.final
    now = yield NOW
    deadline = now + timeout_s
    try:
        return (yield from _poll(request, state, deadline, now))
    except McpTaskTimeoutError:
        raise
    except McpTimeoutError as exc:  # a request given the time left ran out of it
        raise _too_late(state, timeout_s) from exc
    except _OutOfTime:
        raise _too_late(state, timeout_s) from None


class _OutOfTime(Exception):
    """The deadline passed between two polls."""


def _too_late(state: TaskState, timeout_s: float) -> McpTaskTimeoutError:
    return McpTaskTimeoutError(
        f"the task was not done within {timeout_s:g} s", task_id=state.task_id
    )


def _poll(request: RequestFlow, state: TaskState, deadline: float, now: float) -> Flow[ToolResult]:
    while True:
        task = _require_task(state)
        if task.status == "cancelled":
            raise McpTaskCancelledError("the task was cancelled", task_id=task.task_id)
        if not state.modern and task.status != "working":
            # completed, failed or input_required: tasks/result ends it (blocking at the
            # server meanwhile, where the server asks for input on its stream).
            params = {"taskId": task.task_id}
            try:
                result = yield from request("tasks/result", params, _left(deadline, now))
            except McpError as exc:  # the call's own error, as at 2026-07-28
                raise McpError(exc.code, exc.message, exc.data, method="tools/call") from exc
            state.final = ToolResult.from_dict(result)
            return state.final
        if task.status == "completed":
            state.final = ToolResult.from_dict(task.result)
            return state.final
        if task.status == "failed":
            raise _task_failure(task)
        if task.status == "input_required":
            yield from _answer_inputs(request, state, task, _left(deadline, now))
            now = yield NOW
        now = yield Sleep(poll_delay(task, _left(deadline, now)))
        yield from refresh_task(request, state, _left(deadline, now))
        now = yield NOW


def _left(deadline: float, now: float) -> float:
    """The time left for a request (``_OutOfTime`` when there is too little to send one)."""
    if deadline - now < MIN_REQUEST_S:
        raise _OutOfTime
    return deadline - now


def _require_task(state: TaskState) -> Task:
    if state.task is None:
        raise McpTaskError("the call ran without a task")
    return state.task


def _task_failure(task: Task) -> McpError:
    error = task.error or {}
    code = error.get("code")
    message = error.get("message")
    return McpError(
        code if isinstance(code, int) and not isinstance(code, bool) else 0,
        message if isinstance(message, str) else "(no message)",
        error.get("data"),
        method="tools/call",
    )


def _answer_inputs(
    request: RequestFlow, state: TaskState, task: Task, timeout_s: float
) -> Flow[None]:
    """Answer the input requests of ``task`` not answered yet (each key once, as the extension
    asks: a poll that lists them again does not ask the user again) with one ``tasks/update``."""
    pending = state.pending
    for key, wanted in task.input_requests.items():
        if key in state.answered or key in pending:
            continue
        if len(state.answered) + len(pending) >= MAX_INPUT_REQUESTS:
            raise _bad(f"more than {MAX_INPUT_REQUESTS} input requests", task.task_id)
        method = str(wanted["method"])
        try:
            pending[key] = yield Answer(method, wanted.get("params"))
        except Exception as exc:
            raise McpTaskError(
                f"the handler failed on the task's input request {sanitize(method)!r}",
                task_id=task.task_id,
            ) from exc
    if pending:
        # Kept until delivered: a tasks/update that fails is sent again by the next wait,
        # without asking the user again.
        params = {"taskId": task.task_id, "inputResponses": dict(pending)}
        yield from request("tasks/update", params, timeout_s)
        state.answered.update(pending)
        pending.clear()
