"""The rules for cancelling a request at the server: no I/O.

A request the client gives up (its timeout ran out, or the host's asyncio task was cancelled)
is cancelled at the server by the rule of the era it was sent in:

* below 2026-07-28 (the handshake era) the stream of its answer is closed and
  ``notifications/cancelled`` (its id and a reason) is POSTed: that era's Streamable HTTP says
  that a disconnection is no cancellation, so the notification is what stops the server's work;
* at 2026-07-28 the stream of its answer is closed, and that is the cancellation (the era has
  no client-to-server notifications over HTTP).

The notification goes only for a request the server may have received (its POST was sent and
did not fail to connect) and has not answered yet, never for ``initialize`` (which a client
must not cancel), and within ``CANCEL_TIMEOUT_S``. After a timeout it goes beside the error
(``steps.Detach``), which the host has at the deadline; a transport's ``close`` waits for it
(``CLOSE_WAIT_S`` at most). After a cancelled task it is sent before the cancellation is
raised, so a dead server holds that up by ``CANCEL_TIMEOUT_S`` at most. The flow that sends it
is ``flows.call_flow`` (``cancel_at_server``); the rule of a relayed session (``relay``) is this
module's too.
"""

from __future__ import annotations

from typing import Any

from ...jsonrpc import JsonRpcId

__all__ = [
    "ABANDONED_REASON",
    "CANCELLED_NOTIFICATION",
    "CANCEL_TIMEOUT_S",
    "CLOSE_WAIT_S",
    "Abandoned",
    "cancel_params",
    "cancellable",
    "notifies_cancellation",
    "timeout_reason",
]

CANCELLED_NOTIFICATION = "notifications/cancelled"

CANCEL_TIMEOUT_S = 2.0
"""The time the POST of ``notifications/cancelled`` may take (connect, answer, all of it; at
most the call's own timeout): the timeout or the cancellation it follows returns by then even
when the server no longer answers."""

CLOSE_WAIT_S = CANCEL_TIMEOUT_S + 1.0
"""How long a transport's ``close`` waits for a cancellation still under way (it runs beside
the timeout error, ``steps.Detach``): its own bound and some slack for scheduling."""

UNCANCELLABLE_METHODS = frozenset({"initialize"})
"""Requests a client must not cancel (the spec's cancellation rules)."""


class Abandoned(BaseException):
    """Thrown into a call's flow by the asyncio driver when the host's task is cancelled while
    the flow waits for a step: the flow cancels the request at the server and raises it again;
    the driver then raises the host's ``CancelledError``. A ``BaseException``, as cancellation
    is, so that no flow's ``except Exception`` takes it for a failure and goes on."""


def notifies_cancellation(modern: bool) -> bool:
    """True when a request in flight of the era (``modern``: 2026-07-28 or later) is cancelled
    with ``notifications/cancelled``; False when closing its stream is the cancellation."""
    return not modern


def cancellable(method: str, *, modern: bool, params: Any = None) -> bool:
    """True when giving up a request ``method`` (with ``params``) of the era sends
    ``notifications/cancelled``. Not for a task-augmented request (2025-11-25: ``params.task``),
    whose work a client stops with ``tasks/cancel``, as the tasks spec says."""
    task_augmented = isinstance(params, dict) and "task" in params
    return (
        notifies_cancellation(modern) and method not in UNCANCELLABLE_METHODS and not task_augmented
    )


ABANDONED_REASON = "cancelled by the client"
"""The reason sent for a request whose asyncio task the host cancelled."""


def timeout_reason(timeout_s: float) -> str:
    """The reason sent for a request that timed out after ``timeout_s``."""
    return f"timed out after {timeout_s:.3f}s"


def cancel_params(request_id: JsonRpcId, reason: str) -> dict[str, Any]:
    """The params of ``notifications/cancelled`` for the request ``request_id``."""
    return {"requestId": request_id, "reason": reason}
