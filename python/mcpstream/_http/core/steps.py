"""The vocabulary between the flows of the core and the drivers that run them.

A flow is a generator. It yields a *step* (one of the frozen dataclasses below: what it needs
done) and is sent what happened (an *outcome*, also below), or has an exception thrown into it
when the driver's action raised one that is not a failure on the wire (a hook, a handler, a
nested flow). Every outcome carries ``now``, the driver's monotonic clock when it happened, so
that the core never reads a clock itself.

The rule of time: ``now`` is read *after* the I/O, the wait, the handler or the nested flow
that produced the outcome, never before it (a clock read before a blocking read and stamped on
the bytes it returned would give the call that wait again). ``Stepper.answer`` holds the rule
for every driver: it is given the clock the driver read once the action returned, and an
outcome stamped earlier is stamped again with it.

Requests and responses are the core's own descriptions: a driver turns an ``HttpRequest`` into
an httpx request, the head of the answer into a ``Head`` (header names in lower case), body
bytes into ``Bytes``, and exceptions of the HTTP stack into ``Failed`` with a
``FailureKind``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, field
from enum import Enum, auto
from typing import Any, TypeVar, get_args

from ...jsonrpc import JsonRpcNotification, JsonRpcRequest

__all__ = [
    "Authorize",
    "Authorized",
    "Await",
    "BodyEnd",
    "Bytes",
    "Checkpoint",
    "Deliver",
    "Detach",
    "Done",
    "Failed",
    "FailureKind",
    "Flow",
    "Handle",
    "Handled",
    "Head",
    "HttpRequest",
    "Idle",
    "Judged",
    "Notify",
    "OpenStream",
    "Outcome",
    "ReadBody",
    "ReadChunk",
    "ReadSnippet",
    "Renew",
    "Run",
    "Send",
    "Sleep",
    "Step",
    "StreamAnswered",
    "action",
]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class HttpRequest:
    """One HTTP request. ``timeout_s`` is what is left of its operation: a driver ends the
    request by then, end to end (connect, TLS, the whole wait for the head, however it is
    trickled, and the reads of an error body); connecting is also bounded by ``connect_s``
    (None: by ``timeout_s`` alone). A body read with ``ReadChunk(None)`` is not bounded.
    ``quiet_body``: the body may stay quiet for as long as the server likes, from its first
    byte on (the HTTP+SSE stream, whose loss is the session's): the driver bounds each read it
    is asked to bound itself, and the HTTP stack's read timeout is lifted once the head is in."""

    method: str
    url: str
    headers: Mapping[str, str]
    timeout_s: float
    connect_s: float | None = None
    body: bytes | None = None
    quiet_body: bool = False


# -- steps -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Send:
    """Send ``request``, closing the response the flow had open (if any).

    Answered with the ``Head`` of the response, which stays open for the reads that follow,
    or with ``Failed`` when no answer came."""

    request: HttpRequest


@dataclass(frozen=True, slots=True)
class ReadBody:
    """Read the open response's body to its end within ``wait_s``: ``Bytes``, ``Idle`` (the wait
    ran out) or ``Failed``. ``limit`` (None: none): stop reading once more than ``limit`` bytes
    (decompressed) came, and answer with those (the flow refuses them)."""

    wait_s: float
    limit: int | None = None


@dataclass(frozen=True, slots=True)
class ReadChunk:
    """Read the next bytes of the open response, waiting ``wait_s`` at most: ``Bytes``,
    ``BodyEnd``, ``Idle`` or ``Failed``. None waits as long as it takes, with the request's read
    timeout lifted (the GET stream). After an ``Idle`` a driver may be unable to read on (an
    asyncio read cancelled by its wait): it then waits and says ``Idle`` again, so that the
    flow's own clock ends the stream."""

    wait_s: float | None


@dataclass(frozen=True, slots=True)
class ReadSnippet:
    """Read about ``limit`` bytes of the open response, for an error message, then close it:
    ``Bytes`` (whatever could be read; never ``Failed``)."""

    limit: int


@dataclass(frozen=True, slots=True)
class Authorize:
    """Ask the auth hook for the ``Authorization`` value of a message carrying ``method``:
    ``Authorized``. ``scope``: the request-scoped hook object of an earlier ``Authorized``, for a
    replay of that message; None asks the hook for a new one, with ``replay_allowed`` (None:
    the hook's own rule)."""

    method: str
    replay_allowed: bool | None = None
    scope: Any = None


@dataclass(frozen=True, slots=True)
class Renew:
    """Hand a 401/403 answer (status, headers, snippet of the body) to the request-scoped hook
    object ``scope`` of the request it answers: ``Judged``."""

    scope: Any
    status_code: int
    headers: Mapping[str, str]
    body: bytes


@dataclass(frozen=True, slots=True)
class Handle:
    """Run the host's handler on a server-initiated ``request``: ``Handled`` with what it
    returned (awaited, if it may be) or raised. ``wait_s``: the time left to the call that
    waits on the answer (None: no call does): an async driver cancels a handler still running
    then and answers ``Idle``; a sync driver runs the handler on the caller's thread, which
    cannot be interrupted (the call then raises its timeout as soon as the handler returns)."""

    request: JsonRpcRequest
    wait_s: float | None = None


@dataclass(frozen=True, slots=True)
class Run:
    """Run ``flow`` to its end with a response of its own (an answer POSTed while the flow's
    response stays open): ``Done`` with its result, or its exception thrown in."""

    flow: Flow[Any]


@dataclass(frozen=True, slots=True)
class Detach:
    """Run ``flow`` beside the flow that yields it, which goes on at once: ``Done``. What
    follows a timeout (the cancellation of the request at the server) runs so, never delaying
    the error; ``flow`` bounds its own time (``CANCEL_TIMEOUT_S``), and the transport's
    ``close`` waits for it (within that bound) so that no thread, task or connection outlives
    the transport. Its exceptions are the driver's to log."""

    flow: Flow[Any]


@dataclass(frozen=True, slots=True)
class Deliver:
    """Hand ``notifications`` to the host's callback, one by one and in order; a callback that
    raises is logged and the others still get theirs: ``Done``."""

    notifications: tuple[JsonRpcNotification, ...]


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """The event stream of a call reached the event ``event_id`` (a resumption token): hand it
    to ``to``, the host's callback given with the call (``call_flow(checkpoint=...)``), and
    await what it returns when it may be awaited: ``Done``. Only a call given a callback
    yields it."""

    event_id: str
    to: Any


@dataclass(frozen=True, slots=True)
class Sleep:
    """Wait ``delay_s`` (a sync driver cuts it short when the transport closes or the stream
    stops; the flow looks at its state afterwards): ``Done``."""

    delay_s: float


@dataclass(frozen=True, slots=True)
class StreamAnswered:
    """The GET stream's first attempt has its answer (or failed): wake whoever waits for it
    (``send_notification`` of ``notifications/initialized``). ``Done``."""


# -- the HTTP+SSE transport (2024-11-05; ``sse_legacy``) ----------------------------------------


@dataclass(frozen=True, slots=True)
class OpenStream:
    """Run ``flow`` (the HTTP+SSE stream of ``stream``, an ``sse_legacy.SseStream``) in the
    background, as the transport's stream, in place of any it had (stopped): ``Done`` at once.
    The driver stops it as it stops a GET stream (``stream.stopping``, the socket shut down)."""

    stream: Any
    flow: Flow[None]


@dataclass(frozen=True, slots=True)
class Await:
    """Wait until ``ready()`` is true (checked at once, then after each ``Notify`` of another
    flow), ``wait_s`` at most: ``Done`` when it is, ``Idle`` when the wait ran out."""

    ready: Callable[[], bool]
    wait_s: float


@dataclass(frozen=True, slots=True)
class Notify:
    """Wake every flow waiting in ``Await`` to check its condition again: ``Done``."""


Step = (
    (Send | ReadBody | ReadChunk | ReadSnippet | Authorize | Renew | Handle | Run | Deliver | Sleep)
    | (StreamAnswered | Checkpoint | Detach)
    | (OpenStream | Await | Notify)
)

_ACTIONS = {kind: re.sub(r"(?<!^)(?=[A-Z])", "_", kind.__name__).lower() for kind in get_args(Step)}


def action(step: Step) -> str:
    """The name of the driver method that performs ``step``, after its class (``read_chunk``
    for ``ReadChunk``): drivers define ``_do_<action>``."""
    return _ACTIONS[type(step)]


# -- outcomes ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Outcome:
    """What happened, at ``now`` on the driver's monotonic clock."""

    now: float


@dataclass(frozen=True, slots=True)
class Head(Outcome):
    """The status and headers (names in lower case) of the answer to ``Send``."""

    status_code: int
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Bytes(Outcome):
    """Body bytes: the next ones (``ReadChunk``), the whole body (``ReadBody``) or the start of
    it (``ReadSnippet``)."""

    data: bytes


@dataclass(frozen=True, slots=True)
class BodyEnd(Outcome):
    """The body ended cleanly."""


@dataclass(frozen=True, slots=True)
class Idle(Outcome):
    """Nothing came within the wait."""


class FailureKind(Enum):
    """What kind of failure of the HTTP stack a ``Failed`` reports."""

    CONNECT_TIMEOUT = auto()
    TIMEOUT = auto()
    """Any other timeout of the HTTP stack (pool, read, write)."""
    NETWORK = auto()
    """The connection failed or broke (not a timeout); worth another attempt."""
    OTHER = auto()
    """Anything else the HTTP stack raised (a stream already read, an OS error...)."""


@dataclass(frozen=True, slots=True)
class Failed(Outcome):
    """Sending or reading failed; ``error`` is the driver's exception (kept as the cause)."""

    kind: FailureKind
    error: BaseException

    @property
    def is_timeout(self) -> bool:
        """True for either kind of timeout."""
        return self.kind in (FailureKind.CONNECT_TIMEOUT, FailureKind.TIMEOUT)


@dataclass(frozen=True, slots=True)
class Authorized(Outcome):
    """The ``Authorization`` value to send (None: none), and the request-scoped hook object
    that gave it (for ``Renew``, and for ``Authorize`` of a replay)."""

    header: str | None
    scope: Any = None


@dataclass(frozen=True, slots=True)
class Judged(Outcome):
    """The hook's verdict on a 401/403: ``retry`` to send the request again."""

    retry: bool


@dataclass(frozen=True, slots=True)
class Handled(Outcome):
    """What the handler returned (``result``) or raised (``error``)."""

    result: Any = None
    error: BaseException | None = None


@dataclass(frozen=True, slots=True)
class Done(Outcome):
    """A step without an answer of its own is over (``value``: a nested flow's result)."""

    value: Any = None


Flow = Generator[Step, Outcome, T]
"""A flow of the core: yields steps, is sent outcomes, returns ``T``."""
