"""The GET stream's flow without a server: what it accepts, what it routes and answers, and
when it reconnects or gives up, on a fake clock."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from mcpstream._http.core import ListenStream, ReconnectPolicy, listen_flow
from mcpstream._http.core import steps as s
from mcpstream._http.core.listen import LISTEN_FILTER
from mcpstream._http.core.protocol import ModernState
from mcpstream.errors import McpAuthError

from ..fault_server import notification, server_request, sse
from .script import Answer, Fail, Hook, Pause, Script, failure, protocol, sse_answer


def listen(script: Script, core: Any, *, timeout_s: float = 30.0) -> ListenStream:
    stream = ListenStream(core)
    script.run(listen_flow(stream, call_timeout_s=timeout_s))
    return stream


def test_a_server_without_a_get_stream_is_left_alone_after_one_attempt() -> None:
    script = Script([Answer(405)])
    listen(script, protocol(session_id="abc"))
    assert [type(step) for step in script.steps] == [s.Send, s.StreamAnswered]
    get = script.sent[0]
    assert get.method == "GET" and "Last-Event-ID" not in get.headers
    assert get.headers["Accept"] == "text/event-stream" and get.headers["MCP-Session-Id"] == "abc"


@pytest.mark.parametrize(
    "answer", [Answer(200, {"content-type": "application/json"}), Answer(500), Answer(404)]
)
def test_an_answer_that_is_not_an_event_stream_ends_it(answer: Answer) -> None:
    script = Script([answer])
    listen(script, protocol())
    assert len(script.sent) == 1 and script.sleeps == []


def test_the_head_timeout_is_the_shorter_of_the_call_timeout_and_its_own() -> None:
    script = Script([Answer(405), Answer(405)])
    listen(script, protocol(), timeout_s=60)
    assert script.sent[0].timeout_s == ListenStream.HEADERS_TIMEOUT_S
    script = Script([Answer(405)])
    listen(script, protocol(), timeout_s=3)
    assert script.sent[0].timeout_s == 3


def test_notifications_are_routed_and_requests_answered_in_background() -> None:
    core = protocol(has_handler=True, push=True)
    stream_body = sse(notification("n/1"), id="g1") + sse(server_request(7, "roots/list"), id="g2")
    script = Script(
        [sse_answer(stream_body), Answer(202), Answer(405)], handler=lambda r: {"roots": []}
    )
    stream = listen(script, core)
    assert [n.method for n in script.delivered] == ["n/1"]
    assert script.posted() == [{"jsonrpc": "2.0", "id": 7, "result": {"roots": []}}]
    assert stream.last_event_id == "g2"
    # The stream ended cleanly and delivered something: reconnect at once by the policy,
    # with the last event id.
    assert script.sent[2].headers["Last-Event-ID"] == "g2"
    assert script.sleeps == [ReconnectPolicy().initial_delay_s]
    kinds = [type(step) for step in script.steps]
    assert kinds.index(s.Deliver) < kinds.index(s.Run)


def test_a_failed_background_answer_is_logged_and_the_stream_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    script = Script(
        [
            sse_answer(sse(server_request(7, "x/y")), sse(notification("n/2"))),
            Answer(202),
            Answer(405),
        ]
    )
    core = protocol()
    with caplog.at_level(logging.WARNING, logger="mcpstream.transport"):
        listen(script, core)
    assert "refused (no handler for server requests is set)" in caplog.text
    assert script.posted()[0]["error"]["code"] == -32601
    assert [n.method for n in core.drain_notifications()] == ["n/2"]


def test_the_server_retry_sets_the_delay_and_fruitless_attempts_give_up() -> None:
    policy = ReconnectPolicy(
        max_attempts=2, initial_delay_s=1.0, multiplier=3.0, max_delay_s=5, min_delay_s=0.0
    )
    answers = [sse_answer(sse(notification("n/1"), id="g1", retry=40))]
    answers += [failure(), sse_answer(Pause(1), Fail()), failure()]
    script = Script(answers)
    listen(script, protocol(policy=policy))
    assert script.sleeps == [0.04, 0.04, 0.04]
    assert len(script.sent) == 4
    assert all(r.headers["Last-Event-ID"] == "g1" for r in script.sent[1:])
    assert script.answered == 4


def test_without_retry_failures_back_off_by_the_policy() -> None:
    policy = ReconnectPolicy(max_attempts=3, initial_delay_s=0.5, multiplier=2.0, max_delay_s=1.5)
    script = Script([failure(), failure(), failure(), failure()])
    listen(script, protocol(policy=policy))
    assert script.sleeps == [0.5, 1.0, 1.5]


def test_a_401_with_credentials_is_renewed_and_reconnected_else_the_stream_stops() -> None:
    script = Script([Answer(401), Answer(401)], hook=Hook([True, False]))
    listen(script, protocol(has_auth=True))
    assert [r.headers["Authorization"] for r in script.sent] == ["Bearer t1", "Bearer t2"]
    assert len(script.of(s.Renew)) == 2 and len(script.sleeps) == 1
    # Each connection is a new message for the hook.
    assert all(step.scope is None for step in script.of(s.Authorize))


def test_a_hook_without_credentials_stops_the_stream(caplog: pytest.LogCaptureFixture) -> None:
    script = Script([Answer(401)], hook=Hook([McpAuthError("log in first")]))
    with caplog.at_level(logging.INFO, logger="mcpstream.transport"):
        listen(script, protocol(has_auth=True))
    assert "stopped: log in first" in caplog.text
    assert script.sleeps == []


def test_a_stopped_stream_ends_at_its_next_step() -> None:
    core = protocol()
    stream = ListenStream(core)
    script = Script([sse_answer(sse(notification("n/1")), sse(notification("n/2")))])
    original = script._answer

    def stop_after_first_chunk(step: s.Step, body: Any) -> s.Outcome:
        outcome = original(step, body)
        if isinstance(outcome, s.Bytes):
            stream.stopping = True
        return outcome

    script._answer = stop_after_first_chunk  # type: ignore[method-assign]
    script.run(listen_flow(stream, call_timeout_s=30))
    assert [n.method for n in core.drain_notifications()] == ["n/1"]
    assert script.sleeps == [] and not stream.connected


def test_after_an_empty_event_id_the_reconnection_sends_no_last_event_id() -> None:
    stream = sse(notification("n/1"), id="g1") + sse(notification("n/2"), id="")
    script = Script(
        [sse_answer(stream), sse_answer(sse(notification("n/3"), id="g3")), Answer(405)]
    )
    stream_state = listen(script, protocol(push=True))
    assert "Last-Event-ID" not in script.sent[1].headers
    assert script.sent[2].headers["Last-Event-ID"] == "g3"
    assert stream_state.last_event_id == "g3"


# -- the stateless era's listen stream: resource subscriptions, the acknowledgement ------------


def modern_listen(script: Script, resources: tuple[str, ...] = ()) -> ListenStream:
    core = protocol(push=True)
    core.modern = ModernState("2026-07-28", {}, {"name": "t", "version": "1"})
    stream = ListenStream(core, resources)
    script.run(listen_flow(stream, call_timeout_s=30.0))
    return stream


def acknowledgement(**honored: Any) -> str:
    return notification("notifications/subscriptions/acknowledged", {"notifications": honored})


def test_the_listen_filter_carries_the_resource_subscriptions() -> None:
    script = Script([Answer(405)])
    modern_listen(script, ("demo://a", "demo://b"))
    sent = json.loads(script.sent[0].body)
    assert sent["method"] == "subscriptions/listen"
    assert sent["params"]["notifications"] == {
        **LISTEN_FILTER,
        "resourceSubscriptions": ["demo://a", "demo://b"],
    }
    script = Script([Answer(405)])
    modern_listen(script)
    assert json.loads(script.sent[0].body)["params"]["notifications"] == LISTEN_FILTER


def test_the_listen_stream_is_answered_by_its_acknowledgement_not_its_head() -> None:
    # The waiters (the next call, subscribe_resource) go on once the server holds the filter.
    honored = {"toolsListChanged": True, "resourceSubscriptions": ["demo://a"]}
    body = sse(acknowledgement(**honored)) + sse(
        notification("notifications/resources/updated", {"uri": "demo://a"})
    )
    script = Script([sse_answer(Pause(1.0), body), Answer(405)])
    stream = modern_listen(script, ("demo://a",))
    kinds = [type(step) for step in script.steps]
    assert kinds.index(s.ReadChunk) < kinds.index(s.StreamAnswered)
    assert kinds.index(s.Deliver) < kinds.index(s.StreamAnswered)
    assert stream.acknowledged == honored and stream.acknowledgements == 1
    methods = [n.method for n in script.delivered]
    assert methods == [
        "notifications/subscriptions/acknowledged",
        "notifications/resources/updated",
    ]


def test_a_refused_listen_stream_is_answered_at_once() -> None:
    script = Script([Answer(405)])
    stream = modern_listen(script, ("demo://a",))
    assert [type(step) for step in script.steps] == [s.Send, s.StreamAnswered]
    assert stream.acknowledged is None
