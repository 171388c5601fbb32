"""Task handles: a tool call running as a task at the server, in either era (the 2025-11-25
tasks, the 2026-07-28 ``io.modelcontextprotocol/tasks`` extension), one API.

``Client.call_tool(name, arguments, as_task=True)`` returns a ``TaskHandle`` (``AsyncClient``:
an ``AsyncTaskHandle``, the same methods as coroutines); ``get_task(task_id)`` makes one for a
task created before (its id kept, say, across a restart). A handle holds what the server last
said of its task (``task``, ``status``); ``refresh`` asks again (``tasks/get``), ``result``
waits for the tool result (polling at the server's interval, within bounds and the time given),
``cancel`` asks the server to cancel it (``tasks/cancel``). When the server ran the call without
a task (at 2025-11-25 a server that offers no tool tasks is not asked for one; at 2026-07-28 the
server decides), the handle holds the result already: ``task_id`` is None, ``status`` is
``completed``, ``result`` returns at once. Every decision is in ``_tasks``; these only run it.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Protocol, TypeVar

from ._core import Flow, SessionCore
from ._tasks import TaskState
from .results import Task, ToolResult

__all__ = ["AsyncTaskHandle", "Task", "TaskHandle"]

T = TypeVar("T")


class _Runs(Protocol):
    """What a handle needs of its ``Client``: the core and the driver that runs its flows."""

    _core: SessionCore

    def _run(self, flow: Flow[T]) -> T: ...


class _AwaitsRuns(Protocol):
    """What a handle needs of its ``AsyncClient``."""

    _core: SessionCore

    def _run(self, flow: Flow[T]) -> Awaitable[T]: ...


class _HandleView:
    """What both handles show of their task's state (nothing is sent)."""

    def __init__(self, state: TaskState) -> None:
        self._state = state

    @property
    def task_id(self) -> str | None:
        """The server's id of the task (None when the call ran without a task)."""
        return self._state.task_id

    @property
    def status(self) -> str:
        """The last status seen: ``working``, ``input_required``, ``completed``, ``failed``
        or ``cancelled``."""
        return self._state.status

    @property
    def task(self) -> Task | None:
        """The task as the server last described it (None when the call ran without one)."""
        return self._state.task

    @property
    def era(self) -> str:
        """``"modern"`` (the 2026-07-28 extension) or ``"legacy"`` (2025-11-25 tasks)."""
        return "modern" if self._state.modern else "legacy"

    @property
    def cancel_requested(self) -> bool:
        """True once ``cancel`` was sent."""
        return self._state.cancel_requested

    def __repr__(self) -> str:  # the id is left out: a server may make it a bearer token
        return f"{type(self).__name__}(status={self.status!r}, era={self.era!r})"


class TaskHandle(_HandleView):
    """A task of ``Client`` (see the module docstring); the calls block the calling thread.
    Several handles may be used from several threads at once, one handle by one at a time."""

    def __init__(self, client: _Runs, state: TaskState) -> None:
        super().__init__(state)
        self._client = client

    def refresh(self, *, timeout_s: float | None = None) -> Task | None:
        """Ask the server for the task's state (``tasks/get``); the task now."""
        self._client._run(self._client._core.refresh_task(self._state, timeout_s))
        return self._state.task

    def result(self, *, timeout_s: float | None = None) -> ToolResult:
        """Wait for the tool result, at most ``timeout_s`` (default: the client's tool
        timeout). A failed task raises its JSON-RPC error (``McpError``), a cancelled one
        ``McpTaskCancelledError``, one not done in time ``McpTaskTimeoutError`` (the task goes
        on: wait again, or cancel). At 2026-07-28 the task's input requests are answered by
        the client's handlers (elicitation, sampling, roots) and sent with ``tasks/update``."""
        return self._client._run(self._client._core.task_result(self._state, timeout_s))

    def cancel(self, *, timeout_s: float | None = None) -> Task | None:
        """Ask the server to cancel the task (``tasks/cancel``): 2025-11-25 answers the
        cancelled task, 2026-07-28 only acknowledges (the task may still end otherwise: see
        ``refresh``). ``McpTasksNotSupportedError`` when a 2025-11-25 server does not declare
        ``tasks.cancel``; nothing to do (None) for a call run without a task."""
        return self._client._run(self._client._core.cancel_task(self._state, timeout_s))


class AsyncTaskHandle(_HandleView):
    """A task of ``AsyncClient``: ``TaskHandle``'s methods as coroutines (see there)."""

    def __init__(self, client: _AwaitsRuns, state: TaskState) -> None:
        super().__init__(state)
        self._client = client

    async def refresh(self, *, timeout_s: float | None = None) -> Task | None:
        """Ask the server for the task's state (``tasks/get``); the task now."""
        await self._client._run(self._client._core.refresh_task(self._state, timeout_s))
        return self._state.task

    async def result(self, *, timeout_s: float | None = None) -> ToolResult:
        """Wait for the tool result (see ``TaskHandle.result``)."""
        return await self._client._run(self._client._core.task_result(self._state, timeout_s))

    async def cancel(self, *, timeout_s: float | None = None) -> Task | None:
        """Ask the server to cancel the task (see ``TaskHandle.cancel``)."""
        return await self._client._run(self._client._core.cancel_task(self._state, timeout_s))
