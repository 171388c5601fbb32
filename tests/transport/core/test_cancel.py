"""Cancellation at the server without a server: a request given up (its timeout, or the host's
task cancelled: ``Abandoned``) POSTs ``notifications/cancelled`` in the handshake era, only when
the server may have it and has not answered, bounded in time; nothing at 2026-07-28, nothing
for ``initialize``, nothing without ``cancel_at_server``."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcpstream import errors
from mcpstream._http.core import call_flow
from mcpstream._http.core import steps as s
from mcpstream._http.core.cancel import (
    CANCEL_TIMEOUT_S,
    CANCELLED_NOTIFICATION,
    Abandoned,
    cancellable,
    notifies_cancellation,
)
from mcpstream._http.core.flows import Stepper
from mcpstream._http.core.protocol import ModernState

from ..fault_server import notification, sse
from .script import Answer, Hook, Pause, Script, dumps, failure, protocol, sse_answer

CALL = dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call"})


def calling(
    core: Any, now: float, *, method: str = "tools/call", timeout_s: float = 5.0, cancel=True
) -> s.Flow[Any]:
    return call_flow(
        core,
        CALL,
        method=method,
        expected_id=7,
        timeout_s=timeout_s,
        now=now,
        cancel_at_server=cancel,
    )


def stalled() -> Answer:
    """The head and a progress notification, then nothing for a minute."""
    return sse_answer(sse(notification("notifications/progress")), Pause(60))


def cancellations(script: Script) -> list[dict[str, Any]]:
    return [body for body in script.posted() if body.get("method") == CANCELLED_NOTIFICATION]


def abandon_at(script: Script, flow: s.Flow[Any], kind: type[Any]) -> None:
    """Run ``flow`` on ``script`` and throw ``Abandoned`` in at its first step of ``kind``
    (as the asyncio driver does when the task is cancelled there); the rest of the flow runs
    on the script. ``Abandoned`` must come out."""
    body: list[Any] = []
    abandoned = False
    with Stepper(flow) as stepper, pytest.raises(Abandoned):
        while stepper.running:
            step = stepper.step
            script.steps.append(step)
            if isinstance(step, kind) and not abandoned:
                abandoned = True
                stepper.answer(Abandoned(), script.now)
                continue
            try:
                outcome: s.Outcome | Exception = script._answer(step, body)
            except Exception as exc:
                outcome = exc
            stepper.answer(outcome, script.now)
    assert abandoned


def test_a_timed_out_request_is_cancelled_at_the_server_with_its_id_and_a_reason() -> None:
    core = protocol(session_id="s1")
    core.set_protocol_version("2025-11-25")
    script = Script([stalled(), Answer(202)])
    with pytest.raises(errors.McpHttpTransportTimeoutError, match=r"within 5\.000s"):
        script.run(calling(core, script.now))
    (cancel,) = cancellations(script)
    assert cancel == {
        "jsonrpc": "2.0",
        "method": CANCELLED_NOTIFICATION,
        "params": {"requestId": 7, "reason": "timed out after 5.000s"},
    }
    notice = script.sent[1]
    assert notice.headers["MCP-Session-Id"] == "s1"
    assert notice.headers["MCP-Protocol-Version"] == "2025-11-25"
    assert notice.timeout_s <= CANCEL_TIMEOUT_S


def test_the_cancellation_is_bounded_by_the_calls_timeout_when_that_is_shorter() -> None:
    script = Script([stalled(), Answer(202)])
    with pytest.raises(errors.McpHttpTransportTimeoutError):
        script.run(calling(protocol(), script.now, timeout_s=0.25))
    assert script.sent[1].timeout_s <= 0.25


def test_a_cancelled_task_cancels_its_request_at_the_server_and_abandoned_comes_back() -> None:
    script = Script([stalled(), Answer(202)])
    abandon_at(script, calling(protocol(), script.now), s.ReadChunk)
    (cancel,) = cancellations(script)
    assert cancel["params"] == {"requestId": 7, "reason": "cancelled by the client"}


def test_a_task_cancelled_while_the_post_waits_for_its_answer_still_cancels_it() -> None:
    # The server may have the request already (a JSON-mode server answers only at the end).
    script = Script([Answer(202)])
    abandon_at(script, calling(protocol(), script.now), s.Send)
    (abandoned, notice) = script.of(s.Send)
    assert json.loads(abandoned.request.body)["method"] == "tools/call"
    assert json.loads(notice.request.body)["method"] == CANCELLED_NOTIFICATION


def test_a_task_cancelled_before_the_post_went_out_sends_nothing() -> None:
    core = protocol(has_auth=True)
    script = Script([])
    abandon_at(script, calling(core, script.now), s.Authorize)
    assert script.sent == []


@pytest.mark.parametrize(
    "answers",
    [
        pytest.param([failure(s.FailureKind.CONNECT_TIMEOUT)], id="connect-timeout"),
        pytest.param([failure(s.FailureKind.NETWORK)], id="refused"),
    ],
)
def test_no_cancellation_for_a_request_that_never_reached_the_server(
    answers: list[Answer],
) -> None:
    script = Script(answers)
    with pytest.raises(errors.McpHttpTransportError):
        script.run(calling(protocol(), script.now))
    assert len(script.sent) == 1


def test_a_post_that_timed_out_waiting_for_its_head_is_cancelled() -> None:
    script = Script([failure(s.FailureKind.TIMEOUT, "read timeout"), Answer(202)])
    with pytest.raises(errors.McpHttpTransportTimeoutError):
        script.run(calling(protocol(), script.now))
    assert len(cancellations(script)) == 1


def test_no_cancellation_without_cancel_at_server_for_initialize_or_at_2026_07_28() -> None:
    for flow_of in (
        lambda core, now: calling(core, now, cancel=False),
        lambda core, now: calling(core, now, method="initialize"),
    ):
        script = Script([stalled()])
        with pytest.raises(errors.McpHttpTransportTimeoutError):
            script.run(flow_of(protocol(), script.now))
        assert len(script.sent) == 1
    modern = protocol()
    modern.modern = ModernState("2026-07-28", {}, {})
    script = Script([stalled()])
    with pytest.raises(errors.McpHttpTransportTimeoutError):
        script.run(calling(modern, script.now))
    assert len(script.sent) == 1  # closing the stream (the driver's, at the end) cancels it
    script = Script([stalled()])
    abandon_at(script, calling(modern, script.now), s.ReadChunk)
    assert len(script.sent) == 1


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param(Answer(500, {"content-type": "text/plain"}, [b"boom"]), id="500"),
        pytest.param(failure(s.FailureKind.NETWORK), id="refused"),
        pytest.param(failure(s.FailureKind.TIMEOUT), id="timeout"),
    ],
)
def test_a_cancellation_that_fails_leaves_the_calls_own_error(answer: Answer) -> None:
    script = Script([stalled(), answer])
    with pytest.raises(errors.McpHttpTransportTimeoutError, match="'tools/call' did not"):
        script.run(calling(protocol(), script.now))
    assert len(cancellations(script)) == 1


def test_a_401_to_the_cancellation_goes_to_no_hook() -> None:
    hook = Hook(verdicts=[True])
    script = Script([stalled(), Answer(401, {"content-type": "text/plain"}, [b"no"])], hook=hook)
    with pytest.raises(errors.McpHttpTransportTimeoutError):
        script.run(calling(protocol(has_auth=True), script.now))
    assert script.of(s.Renew) == []
    assert hook.verdicts == [True]  # no login or refresh for a request already given up
    assert len(cancellations(script)) == 1


def test_no_cancellation_once_the_response_arrived() -> None:
    # A response, then a stream that stays open past the deadline: the call completes.
    response = sse(json.dumps({"jsonrpc": "2.0", "id": 7, "result": {}}))
    script = Script([sse_answer(response, Pause(60))])
    assert script.run(calling(protocol(), script.now)).result == {}
    assert len(script.sent) == 1


def test_the_era_rule_is_the_relays_too() -> None:
    assert notifies_cancellation(False) and not notifies_cancellation(True)
    assert cancellable("tools/call", modern=False)
    assert not cancellable("initialize", modern=False)
    assert not cancellable("tools/call", modern=True)


def test_a_task_augmented_request_is_not_cancelled_by_notification() -> None:
    # 2025-11-25 tasks: the work of a task-augmented request is stopped with tasks/cancel.
    task_call = {"name": "render", "arguments": {}, "task": {"ttl": 60000}}
    assert not cancellable("tools/call", modern=False, params=task_call)
    assert cancellable("tools/call", modern=False, params={"name": "render", "arguments": {}})
