"""Delivery of the server's notifications to a client's callbacks.

The transports queue every notification they receive (on a call's event stream or on the GET
stream) for ``drain_notifications``. A client drains that queue often while a call is in flight,
so progress reaches its callback while the tool runs, less often when idle, and once more when
each call ends, so every notification that arrived before a response is delivered before the
call returns. ``NotificationRouter`` decides who gets what; the pumps (a thread for ``Client``,
a task for ``AsyncClient``) do the draining.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import itertools
import logging
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from ..jsonrpc import JsonRpcNotification
from .events import Notification, Progress

__all__ = [
    "ACTIVE_POLL_S",
    "IDLE_POLL_S",
    "AsyncNotificationPump",
    "NotificationCallback",
    "NotificationPump",
    "NotificationRouter",
    "ProgressCallback",
]

logger = logging.getLogger("mcpstream.client")

ACTIVE_POLL_S = 0.01
"""How often the queue is drained while a call is in flight."""
IDLE_POLL_S = 0.1
"""How often the queue is drained between calls (notifications on the GET stream)."""
PROGRESS_METHOD = "notifications/progress"

NotificationCallback = Callable[[Notification], Any]
"""Called with each notification (``AsyncClient`` awaits what it returns, if awaitable)."""
ProgressCallback = Callable[[Progress], Any]
"""Called with each progress notification of one call (awaited likewise)."""

Delivery = tuple[Callable[[Any], Any], Any]


class NotificationRouter:
    """Sends progress to the callback of the call that owns its token, and everything else to
    the client's notification callback (dropped when there is none)."""

    def __init__(self, on_notification: NotificationCallback | None) -> None:
        self.on_notification = on_notification
        self._progress: dict[str, ProgressCallback] = {}
        self._tokens = itertools.count(1)
        self._lock = threading.Lock()

    def register(self, callback: ProgressCallback) -> str:
        """A new progress token whose notifications go to ``callback``."""
        with self._lock:
            token = f"mcpstream-progress-{next(self._tokens)}"
            self._progress[token] = callback
        return token

    def release(self, token: str) -> None:
        """Forget ``token``: its late notifications go to the notification callback."""
        with self._lock:
            self._progress.pop(token, None)

    def route(self, notification: JsonRpcNotification) -> Delivery | None:
        """The callback and argument for ``notification``, or None to drop it."""
        params = notification.params
        if notification.method == PROGRESS_METHOD and isinstance(params, dict):
            token = params.get("progressToken")
            with self._lock:
                callback = self._progress.get(token) if isinstance(token, str) else None
            progress = Progress.from_params(params)
            if callback is not None and progress is not None:
                return callback, progress
        if self.on_notification is None:
            return None
        return self.on_notification, Notification(method=notification.method, params=params)


def _report(exc: BaseException) -> None:
    logger.warning("a notification callback raised %s", type(exc).__name__, exc_info=exc)


class NotificationPump:
    """Drains a sync transport's queue on a daemon thread; callbacks run on that thread (or on
    the calling thread at the end of a call)."""

    def __init__(
        self,
        drain: Callable[[], tuple[JsonRpcNotification, ...]],
        router: NotificationRouter,
        *,
        name: str,
    ) -> None:
        self._drain = drain
        self._router = router
        self._name = name
        self._dispatch_lock = threading.RLock()
        self._state_lock = threading.Lock()
        self._active = 0
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the thread (once)."""
        with self._state_lock:
            if self._thread is not None or self._stopping.is_set():
                return
            self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while not self._stopping.is_set():
            self._wake.wait(ACTIVE_POLL_S if self._active else IDLE_POLL_S)
            self._wake.clear()
            self.flush()

    def flush(self) -> None:
        """Deliver every queued notification now, in order."""
        with self._dispatch_lock:
            for notification in self._drain():
                delivery = self._router.route(notification)
                if delivery is None:
                    continue
                callback, argument = delivery
                try:
                    callback(argument)
                except Exception as exc:
                    _report(exc)

    @contextlib.contextmanager
    def active(self) -> Iterator[None]:
        """Poll fast while the block (a call) runs; deliver what is left when it ends."""
        with self._state_lock:
            self._active += 1
        self._wake.set()
        try:
            yield
        finally:
            with self._state_lock:
                self._active -= 1
            self.flush()

    def stop(self) -> None:
        """Stop and join the thread (unless called from a callback on it)."""
        self._stopping.set()
        self._wake.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(5.0)


_dispatching: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "mcpstream_dispatching", default=False
)


class AsyncNotificationPump:
    """Drains an async transport's queue in a task; callbacks may be coroutine functions."""

    def __init__(
        self, drain: Callable[[], tuple[JsonRpcNotification, ...]], router: NotificationRouter
    ) -> None:
        self._drain = drain
        self._router = router
        self._active = 0
        self._wake: asyncio.Event | None = None
        self._lock: asyncio.Lock | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start the task (once), in the running loop."""
        if self._task is None:
            self._wake = asyncio.Event()
            self._lock = asyncio.Lock()
            self._task = asyncio.create_task(self._run(), name="mcpstream-notifications")

    async def _run(self) -> None:
        assert self._wake is not None
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(
                    self._wake.wait(), ACTIVE_POLL_S if self._active else IDLE_POLL_S
                )
            self._wake.clear()
            await self.flush()

    async def flush(self) -> None:
        """Deliver every queued notification now, in order. From inside a callback this does
        nothing: the delivery in progress goes on with the rest."""
        if _dispatching.get() or self._lock is None:
            return
        async with self._lock:
            token = _dispatching.set(True)
            try:
                for notification in self._drain():
                    delivery = self._router.route(notification)
                    if delivery is not None:
                        await self._deliver(*delivery)
            finally:
                _dispatching.reset(token)

    @staticmethod
    async def _deliver(callback: Callable[[Any], Any], argument: Any) -> None:
        try:
            outcome = callback(argument)
            if inspect.isawaitable(outcome):
                await outcome
        except Exception as exc:
            _report(exc)

    @contextlib.asynccontextmanager
    async def active(self) -> AsyncIterator[None]:
        """Poll fast while the block (a call) runs; deliver what is left when it ends."""
        self._active += 1
        if self._wake is not None:
            self._wake.set()
        try:
            yield
        finally:
            self._active -= 1
            await self.flush()

    async def stop(self) -> None:
        """Cancel the task and wait for it (unless called from a callback it runs)."""
        task, self._task = self._task, None
        if task is None or task is asyncio.current_task():
            return
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
