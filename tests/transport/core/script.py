"""A scripted driver for the core's flows: no server, no sockets, a fake clock.

``Script`` answers each step a flow yields from what the test scripted: ``Answer`` objects for
the requests, in order (a status, headers and a body made of byte chunks, ``Pause`` and
``Fail`` items), a fake auth hook, a handler and a notification callback. It records every step,
so that a test can check what the flow asked for, and in which order.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mcpstream._http.core import McpHttpProtocol, ReconnectPolicy, resume_flow
from mcpstream._http.core import steps as s
from mcpstream._http.core.flows import Stepper
from mcpstream.jsonrpc import JsonRpcNotification, JsonRpcRequest
from mcpstream.models import ResolvedMcpServer

URL = "http://mcp.example/mcp?key=s3cret"


@dataclass(frozen=True)
class Pause:
    """Nothing arrives for ``seconds`` (of the fake clock)."""

    seconds: float


@dataclass(frozen=True)
class Fail:
    """The body (or, first in a body, the request) fails with a failure of ``kind``."""

    kind: s.FailureKind = s.FailureKind.NETWORK
    message: str = "connection reset"


@dataclass
class Answer:
    """The server's answer to one request."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: list[bytes | Pause | Fail] = field(default_factory=list)


def json_answer(payload: Any, status: int = 200, **headers: str) -> Answer:
    """A JSON body."""
    return Answer(status, {"content-type": "application/json", **headers}, [dumps(payload)])


def sse_answer(*items: bytes | Pause | Fail, length: bool = False, **headers: str) -> Answer:
    """An SSE body (``length``: with a Content-Length, so not open-ended)."""
    all_headers = {"content-type": "text/event-stream", **headers}
    if length:
        all_headers["content-length"] = str(sum(len(i) for i in items if isinstance(i, bytes)))
    return Answer(200, all_headers, list(items))


def dumps(payload: Any) -> bytes:
    """``payload`` as JSON bytes."""
    return json.dumps(payload).encode()


def protocol(
    *,
    session_id: str | None = None,
    policy: ReconnectPolicy | None = None,
    connect_timeout_s: float | None = None,
    has_auth: bool = False,
    has_handler: bool = False,
    push: bool = False,
) -> McpHttpProtocol:
    """A protocol core for a server at ``URL`` (``session_id``: as if initialized)."""
    core = McpHttpProtocol(
        ResolvedMcpServer(id="srv", url=URL, headers={"X-Static": "1"}),
        max_event_bytes=None,
        reconnect_policy=policy or ReconnectPolicy(),
        connect_timeout_s=connect_timeout_s,
    )
    core.session_id = session_id
    core.has_auth, core.has_handler, core.push_notifications = has_auth, has_handler, push
    return core


class Hook:
    """A fake auth hook: a token per generation, and scripted verdicts on 401/403."""

    def __init__(self, verdicts: list[bool | Exception] | None = None, cost_s: float = 0.0):
        self.generation = 1
        self.verdicts = list(verdicts or [])
        self.cost_s = cost_s
        """Fake seconds each renewal takes."""
        self.scopes: list[tuple[str, bool | None]] = []

    def header(self) -> str:
        return f"Bearer t{self.generation}"


@dataclass
class Scope:
    """The request-scoped object of ``Hook`` for one message."""

    method: str
    replay_allowed: bool | None


class Script:
    """Runs flows against scripted answers; ``steps`` records what they asked for."""

    def __init__(
        self,
        answers: list[Answer] | None = None,
        *,
        now: float = 100.0,
        hook: Hook | None = None,
        handler: Callable[[JsonRpcRequest], Any] | None = None,
    ) -> None:
        self.now = now
        self.answers = list(answers or [])
        self.hook = hook or Hook()
        self.handler = handler
        self.steps: list[s.Step] = []
        self.sent: list[s.HttpRequest] = []
        self.delivered: list[JsonRpcNotification] = []
        self.sleeps: list[float] = []
        self.answered = 0
        self.checkpoints: list[str] = []
        self.opened: list[Any] = []
        """The streams of ``OpenStream`` steps (the HTTP+SSE transport's)."""
        self.notified = 0
        self.detached = 0
        """How many flows ran detached (``Detach``: a cancellation after a timeout)."""

    # -- what tests read -----------------------------------------------------------------------

    def run(self, flow: s.Flow[Any]) -> Any:
        """Run ``flow`` to its end (a nested ``Run`` gets a body of its own)."""
        body: list[bytes | Pause | Fail] = []
        with Stepper(flow) as stepper:
            while stepper.running:
                step = stepper.step
                self.steps.append(step)
                try:
                    outcome: s.Outcome | Exception = self._answer(step, body)
                except Exception as exc:
                    outcome = exc
                stepper.answer(outcome, self.now)
            return stepper.result

    def of(self, kind: type[Any]) -> list[Any]:
        """The recorded steps of class ``kind``."""
        return [step for step in self.steps if isinstance(step, kind)]

    def posted(self) -> list[Any]:
        """The JSON bodies of the POSTs sent."""
        return [json.loads(r.body or b"null") for r in self.sent if r.method == "POST"]

    # -- answering steps -----------------------------------------------------------------------

    def _answer(self, step: s.Step, body: list[bytes | Pause | Fail]) -> s.Outcome:
        if isinstance(step, s.Send):
            self.sent.append(step.request)
            answer = self.answers.pop(0)
            if answer.body and isinstance(answer.body[0], Fail) and answer.status == 0:
                fail = answer.body[0]
                return s.Failed(self.now, fail.kind, ConnectionError(fail.message))
            body[:] = answer.body
            return s.Head(self.now, answer.status, answer.headers)
        if isinstance(step, s.ReadChunk):
            return self._read_chunk(step.wait_s, body)
        if isinstance(step, s.ReadBody):
            return self._read_body(step.wait_s, body)
        if isinstance(step, s.ReadSnippet):
            data = b"".join(item for item in body if isinstance(item, bytes))[: step.limit]
            body.clear()
            return s.Bytes(self.now, data)
        return self._answer_other(step)

    def _read_chunk(self, wait_s: float | None, body: list[bytes | Pause | Fail]) -> s.Outcome:
        while body and isinstance(body[0], Pause):
            pause = body[0]
            assert isinstance(pause, Pause)
            if wait_s is not None and pause.seconds > wait_s:
                self.now += wait_s
                body[0] = Pause(pause.seconds - wait_s)
                return s.Idle(self.now)
            self.now += pause.seconds
            body.pop(0)
        if not body:
            return s.BodyEnd(self.now)
        item = body.pop(0)
        if isinstance(item, Fail):
            return s.Failed(self.now, item.kind, ConnectionError(item.message))
        assert isinstance(item, bytes)
        return s.Bytes(self.now, item)

    def _read_body(self, wait_s: float, body: list[bytes | Pause | Fail]) -> s.Outcome:
        deadline = self.now + wait_s
        parts = []
        while body:
            outcome = self._read_chunk(deadline - self.now, body)
            if not isinstance(outcome, s.Bytes):
                return outcome
            parts.append(outcome.data)
        return s.Bytes(self.now, b"".join(parts))

    def _answer_other(self, step: s.Step) -> s.Outcome:
        hook = self.hook
        if isinstance(step, s.Authorize):
            scope = step.scope or Scope(step.method, step.replay_allowed)
            hook.scopes.append((step.method, step.replay_allowed))
            return s.Authorized(self.now, hook.header(), scope)
        if isinstance(step, s.Renew):
            verdict = hook.verdicts.pop(0)
            self.now += hook.cost_s
            if isinstance(verdict, Exception):
                raise verdict
            hook.generation += verdict
            return s.Judged(self.now, verdict)
        if isinstance(step, s.Handle):
            assert self.handler is not None
            try:
                return s.Handled(self.now, self.handler(step.request))
            except Exception as exc:
                return s.Handled(self.now, error=exc)
        if isinstance(step, s.Run):
            return s.Done(self.now, self.run(step.flow))
        if isinstance(step, s.Detach):
            # Beside the flow: run here and now, on a clock of its own (the flow's time does
            # not pass meanwhile).
            now = self.now
            self.detached += 1
            self.run(step.flow)
            self.now = now
            return s.Done(self.now)
        if isinstance(step, s.Deliver):
            self.delivered.extend(step.notifications)
            return s.Done(self.now)
        if isinstance(step, s.Sleep):
            self.sleeps.append(step.delay_s)
            self.now += step.delay_s
            return s.Done(self.now)
        if isinstance(step, s.Checkpoint):
            self.checkpoints.append(step.event_id)
            return s.Done(self.now)
        if isinstance(step, s.OpenStream):
            self.opened.append(step.stream)
            step.flow.close()  # no background here: a test runs the stream's flow itself
            return s.Done(self.now)
        if isinstance(step, s.Await):
            if step.ready():
                return s.Done(self.now)
            self.now += step.wait_s
            return s.Idle(self.now)
        if isinstance(step, s.Notify):
            self.notified += 1
            return s.Done(self.now)
        assert isinstance(step, s.StreamAnswered)
        self.answered += 1
        return s.Done(self.now)


def failure(kind: s.FailureKind = s.FailureKind.NETWORK, message: str = "refused") -> Answer:
    """No answer at all: sending the request fails with ``kind``."""
    return Answer(0, {}, [Fail(kind, message)])


def resuming(
    *, last_event_id: str, expected_id: int, now: float, session_id: str = "s1"
) -> s.Flow[Any]:
    """``resume_flow`` of a ``tools/call`` with id ``expected_id`` on a session ``session_id``,
    from the event ``last_event_id`` (a 5 s deadline)."""
    return resume_flow(
        protocol(session_id=session_id),
        last_event_id=last_event_id,
        method="tools/call",
        expected_id=expected_id,
        timeout_s=5.0,
        now=now,
    )
