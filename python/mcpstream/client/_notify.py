"""Delivery of the server's notifications to a client's callbacks.

The transports push each notification to the client as soon as they decode it (their
``on_notification`` hook), on the thread (``Client``) or in the task (``AsyncClient``) that read
it: the calling thread or task for notifications on a call's answer, so that every notification
that came before a response is delivered before the call returns, and the GET stream's thread or
task for the others. ``NotificationRouter`` decides who gets what and runs the callbacks.
"""

from __future__ import annotations

import inspect
import itertools
import logging
import threading
from collections.abc import Callable
from typing import Any

from ..jsonrpc import JsonRpcNotification
from .events import Notification, Progress
from .features import LogMessage, ResourceUpdated

__all__ = [
    "LoggingHandler",
    "NotificationCallback",
    "NotificationRouter",
    "ProgressCallback",
    "ResourceUpdatedCallback",
]

logger = logging.getLogger("mcpstream.client")

PROGRESS_METHOD = "notifications/progress"
LOG_MESSAGE_METHOD = "notifications/message"
RESOURCE_UPDATED_METHOD = "notifications/resources/updated"

NotificationCallback = Callable[[Notification], Any]
"""Called with each notification (``AsyncClient`` awaits what it returns, if awaitable)."""
ProgressCallback = Callable[[Progress], Any]
"""Called with each progress notification of one call (awaited likewise)."""
LoggingHandler = Callable[[LogMessage], Any]
"""Called with each log message of the server (awaited likewise)."""
ResourceUpdatedCallback = Callable[[ResourceUpdated], Any]
"""Called with each update of a subscribed resource (awaited likewise)."""

Delivery = tuple[Callable[[Any], Any], Any]


def _report(exc: BaseException) -> None:
    logger.warning("a notification callback raised %s", type(exc).__name__, exc_info=exc)


class NotificationRouter:
    """Sends progress to the callback of the call that owns its token, log messages to the
    ``logging_handler``, resource updates to ``on_resource_updated`` (each when there is one),
    and everything else to the client's notification callback (dropped when there is none)."""

    def __init__(
        self,
        on_notification: NotificationCallback | None,
        *,
        logging_handler: LoggingHandler | None = None,
        on_resource_updated: ResourceUpdatedCallback | None = None,
    ) -> None:
        self.on_notification = on_notification
        self.logging_handler = logging_handler
        self.on_resource_updated = on_resource_updated
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
        typed = self._route_typed(notification.method, params)
        if typed is not None:
            return typed
        if self.on_notification is None:
            return None
        return self.on_notification, Notification(method=notification.method, params=params)

    def _route_typed(self, method: str, params: Any) -> Delivery | None:
        """A log message or a resource update for its own callback (None: not one, or no
        such callback, or unusable params: the notification callback gets it as sent)."""
        if method == LOG_MESSAGE_METHOD and self.logging_handler is not None:
            message = LogMessage.from_params(params)
            return (self.logging_handler, message) if message is not None else None
        if method == RESOURCE_UPDATED_METHOD and self.on_resource_updated is not None:
            update = ResourceUpdated.from_params(params)
            return (self.on_resource_updated, update) if update is not None else None
        return None

    def deliver(self, notification: JsonRpcNotification) -> None:
        """Run the callback ``notification`` is routed to (``Client``: the transport's
        ``on_notification``). A callback that raises is logged, and the call goes on."""
        delivery = self.route(notification)
        if delivery is None:
            return
        callback, argument = delivery
        try:
            callback(argument)
        except Exception as exc:
            _report(exc)

    async def adeliver(self, notification: JsonRpcNotification) -> None:
        """Run, and await if need be, the callback ``notification`` is routed to
        (``AsyncClient``: the transport's ``on_notification``)."""
        delivery = self.route(notification)
        if delivery is None:
            return
        callback, argument = delivery
        try:
            outcome = callback(argument)
            if inspect.isawaitable(outcome):
                await outcome
        except Exception as exc:
            _report(exc)
