"""The vocabulary between the flows of the core and the drivers that run them.

A flow is a generator. It yields a *step* (one of the frozen dataclasses below: what it needs
done) and is sent what happened (an *outcome*, also below), or has an exception thrown into it
when the driver's action raised one that is not a failure on the wire (a hook, a handler, a
nested flow). Every outcome carries ``now``, the driver's monotonic clock when it happened, so
that the core never reads a clock itself.

Requests and responses are the core's own descriptions: a driver turns an ``HttpRequest`` into
an httpx request, the head of the answer into a ``Head`` (header names in lower case), body
bytes into ``Chunk`` / ``Body``, and exceptions of the HTTP stack into ``Failed`` with a
``FailureKind``.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, ClassVar, TypeVar

from ...jsonrpc import JsonRpcNotification, JsonRpcRequest

__all__ = [
    "Authorize",
    "Authorized",
    "Body",
    "BodyEnd",
    "Chunk",
    "Deliver",
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
    "ReadBody",
    "ReadChunk",
    "ReadSnippet",
    "Renew",
    "Run",
    "Send",
    "Sleep",
    "StreamAnswered",
]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class HttpRequest:
    """One HTTP request: every phase bounded by ``timeout_s``, connecting also by ``connect_s``
    (None: by ``timeout_s`` alone). ``idle_body``: once the head has arrived, the body may be
    idle for as long as the server likes (the GET stream); the head is awaited ``timeout_s``."""

    method: str
    url: str
    headers: Mapping[str, str]
    timeout_s: float
    connect_s: float | None = None
    body: bytes | None = None
    idle_body: bool = False


# -- steps -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Send:
    """Send ``request`` (closing the response the flow had open): ``Head`` or ``Failed``."""

    action: ClassVar[str] = "send"

    request: HttpRequest


@dataclass(frozen=True, slots=True)
class ReadBody:
    """Read the open response's body to its end within ``wait_s``: ``Body``, ``Idle`` (the wait
    ran out) or ``Failed``."""

    action: ClassVar[str] = "read_body"

    wait_s: float


@dataclass(frozen=True, slots=True)
class ReadChunk:
    """Read the next bytes of the open response, waiting ``wait_s`` at most (None: as long as
    it takes): ``Chunk``, ``BodyEnd``, ``Idle`` or ``Failed``."""

    action: ClassVar[str] = "read_chunk"

    wait_s: float | None


@dataclass(frozen=True, slots=True)
class ReadSnippet:
    """Read about ``limit`` bytes of the open response, for an error message, then close it:
    ``Body`` (whatever could be read; never ``Failed``)."""

    action: ClassVar[str] = "read_snippet"

    limit: int


@dataclass(frozen=True, slots=True)
class Authorize:
    """Ask the auth hook for the ``Authorization`` value of a message carrying ``method``:
    ``Authorized``. ``again``: for a replay of the message of the previous ``Authorize`` (same
    request-scoped hook object); otherwise a new one is asked for, with ``replay_allowed``
    (None: the hook's rule). ``stored``: the stored credentials as they are (never raises)."""

    action: ClassVar[str] = "authorize"

    method: str
    replay_allowed: bool | None = None
    again: bool = False
    stored: bool = False


@dataclass(frozen=True, slots=True)
class Renew:
    """Hand a 401/403 answer to the request's auth hook (the one of the last ``Authorize``):
    ``Judged``."""

    action: ClassVar[str] = "renew"

    status_code: int
    headers: Mapping[str, str]
    body: bytes


@dataclass(frozen=True, slots=True)
class Handle:
    """Run the host's handler on a server-initiated request: ``Handled``."""

    action: ClassVar[str] = "handle"

    request: JsonRpcRequest


@dataclass(frozen=True, slots=True)
class Run:
    """Run ``flow`` to its end with a response of its own (an answer POSTed while the flow's
    response stays open): ``Done`` with its result, or its exception thrown in."""

    action: ClassVar[str] = "run_nested"

    flow: Flow[Any]


@dataclass(frozen=True, slots=True)
class Deliver:
    """Hand ``notifications`` to the host's callback, in order (a callback that raises is
    logged): ``Done``."""

    action: ClassVar[str] = "deliver"

    notifications: tuple[JsonRpcNotification, ...]


@dataclass(frozen=True, slots=True)
class Sleep:
    """Wait ``delay_s`` (cut short when the flow's transport or stream is stopped): ``Done``."""

    action: ClassVar[str] = "sleep"

    delay_s: float


@dataclass(frozen=True, slots=True)
class StreamAnswered:
    """The GET stream's first attempt has its answer (or failed): wake whoever waits for it."""

    action: ClassVar[str] = "stream_answered"


Step = (
    Send | ReadBody | ReadChunk | ReadSnippet | Authorize | Renew | Handle | Run | Deliver | Sleep
) | StreamAnswered
"""Every step; each names the driver method that performs it (``action``)."""


# -- outcomes ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Head:
    """The status and headers (names in lower case) of the answer to ``Send``."""

    now: float
    status_code: int
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Chunk:
    """Body bytes."""

    now: float
    data: bytes


@dataclass(frozen=True, slots=True)
class Body:
    """A whole body (``ReadBody``) or a snippet of one (``ReadSnippet``)."""

    now: float
    data: bytes


@dataclass(frozen=True, slots=True)
class BodyEnd:
    """The body ended cleanly."""

    now: float


@dataclass(frozen=True, slots=True)
class Idle:
    """Nothing came within the wait."""

    now: float


class FailureKind(Enum):
    """What kind of failure of the HTTP stack a ``Failed`` reports."""

    CONNECT_TIMEOUT = "connect timeout"
    TIMEOUT = "timeout"
    """Any other timeout of the HTTP stack (pool, read, write)."""
    NETWORK = "network"
    """The connection failed or broke (not a timeout); worth another attempt."""
    OTHER = "other"
    """Anything else the HTTP stack raised (a stream already read, an OS error...)."""


@dataclass(frozen=True, slots=True)
class Failed:
    """Sending or reading failed; ``error`` is the driver's exception (kept as the cause)."""

    now: float
    kind: FailureKind
    error: BaseException

    @property
    def is_timeout(self) -> bool:
        """True for either kind of timeout."""
        return self.kind in (FailureKind.CONNECT_TIMEOUT, FailureKind.TIMEOUT)


@dataclass(frozen=True, slots=True)
class Authorized:
    """The ``Authorization`` value to send (None: none)."""

    now: float
    header: str | None


@dataclass(frozen=True, slots=True)
class Judged:
    """The hook's verdict on a 401/403: ``retry`` to send the request again."""

    now: float
    retry: bool


@dataclass(frozen=True, slots=True)
class Handled:
    """What the handler returned (``result``) or raised (``error``)."""

    now: float
    result: Any = None
    error: BaseException | None = None


@dataclass(frozen=True, slots=True)
class Done:
    """A step without an answer of its own is over (``value``: a nested flow's result)."""

    now: float
    value: Any = None


Outcome = Head | Chunk | Body | BodyEnd | Idle | Failed | Authorized | Judged | Handled | Done
Flow = Generator[Step, Outcome, T]
"""A flow of the core: yields steps, is sent outcomes, returns ``T``."""
