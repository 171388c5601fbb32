"""The rule of time in the core, on the scripted driver: an outcome carries the clock the
driver read after its action (``Stepper.answer``), whatever it was stamped with; a handler's
time counts against the call waiting on it (and one still running at the deadline ends the call
with its timeout); a timeout's cancellation is detached, beside the error."""

from __future__ import annotations

from typing import Any

import pytest
from mcpstream import errors
from mcpstream._http.core import call_flow
from mcpstream._http.core import steps as s
from mcpstream._http.core.cancel import CANCELLED_NOTIFICATION
from mcpstream._http.core.flows import Stepper

from ..fault_server import notification, result, server_request, sse
from .script import Answer, Pause, Script, protocol, sse_answer
from .test_cancel import stalled

PING = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'


def test_an_outcome_stamped_before_its_action_is_told_the_clock_after_it() -> None:
    def flow() -> s.Flow[float]:
        outcome = yield s.Sleep(1.0)
        return outcome.now

    with Stepper(flow()) as stepper:
        stepper.answer(s.Done(10.0), 12.5)  # a driver that read its clock before the wait
        assert not stepper.running
        assert stepper.result == 12.5


def test_a_handlers_time_counts_against_the_call_waiting_on_it() -> None:
    script = Script(
        [
            sse_answer(sse(server_request(9, "elicitation/create")), Pause(0.1), b""),
            Answer(202),
        ]
    )

    def slow(request: Any) -> Any:
        script.now += 3.0  # the host's handler takes 3 s of the call's 5
        return {"action": "decline"}

    script.handler = slow
    flow = call_flow(
        protocol(has_handler=True),
        PING,
        method="ping",
        expected_id=1,
        timeout_s=5.0,
        now=script.now,
    )
    with pytest.raises(errors.McpHttpTransportError):
        script.run(flow)
    (handle,) = script.of(s.Handle)
    assert handle.wait_s == pytest.approx(5.0)
    # The answer's POST has what is left of the call's time, not the whole of it.
    assert script.sent[1].timeout_s == pytest.approx(2.0)


def test_a_handler_that_outlasts_the_deadline_ends_the_call_with_its_timeout() -> None:
    script = Script(
        [sse_answer(sse(server_request(9, "roots/list")), sse(result(1, {}))), Answer(202)]
    )

    def slow(request: Any) -> Any:
        script.now += 6.0
        return {"roots": []}

    script.handler = slow
    flow = call_flow(
        protocol(has_handler=True),
        PING,
        method="ping",
        expected_id=1,
        timeout_s=5.0,
        now=script.now,
    )
    with pytest.raises(errors.McpHttpTransportTimeoutError, match=r"within 5\.000s"):
        script.run(flow)
    assert len(script.sent) == 1  # no answer POSTed for a call already over


def test_the_cancellation_after_a_timeout_is_detached_from_the_error() -> None:
    core = protocol(session_id="s1")
    core.set_protocol_version("2025-11-25")
    script = Script([stalled(), Answer(202)])
    flow = call_flow(
        core,
        b'{"jsonrpc":"2.0","id":7,"method":"tools/call"}',
        method="tools/call",
        expected_id=7,
        timeout_s=5.0,
        now=script.now,
        cancel_at_server=True,
    )
    with pytest.raises(errors.McpHttpTransportTimeoutError):
        script.run(flow)
    assert script.detached == 1
    (detach,) = script.of(s.Detach)
    assert isinstance(detach, s.Detach)
    assert [body.get("method") for body in script.posted()][-1] == CANCELLED_NOTIFICATION


def test_a_progress_notification_then_a_silence_ends_at_the_deadline() -> None:
    script = Script(
        [sse_answer(Pause(4.0), sse(notification("n/p")), Pause(4.0), sse(result(1, {})))]
    )
    started = script.now
    flow = call_flow(protocol(), PING, method="ping", expected_id=1, timeout_s=5.0, now=started)
    with pytest.raises(errors.McpHttpTransportTimeoutError):
        script.run(flow)
    assert script.now - started == pytest.approx(5.0)
